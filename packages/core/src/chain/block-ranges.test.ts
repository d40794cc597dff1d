import { describe, expect, it } from 'vitest';
import { blockRanges } from './index';

const collect = (...args: Parameters<typeof blockRanges>) => [...blockRanges(...args)];

describe('blockRanges', () => {
  it('walks backward from the newest block in spans of at most maxBlockSpan', () => {
    expect(collect(0n, 9n, 4n)).toEqual([
      { from: 6n, to: 9n },
      { from: 2n, to: 5n },
      { from: 0n, to: 1n },
    ]);
  });

  it('walks forward from the oldest block when asked', () => {
    expect(collect(10n, 20n, 5n, 'forward')).toEqual([
      { from: 10n, to: 14n },
      { from: 15n, to: 19n },
      { from: 20n, to: 20n },
    ]);
  });

  it('covers every block exactly once for assorted spans', () => {
    for (const span of [1n, 2n, 3n, 7n, 100n]) {
      for (const direction of ['backward', 'forward'] as const) {
        const blocks = collect(5n, 27n, span, direction).flatMap(({ from, to }) => {
          expect(to - from + 1n).toBeLessThanOrEqual(span);
          return Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));
        });
        expect(blocks.sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 23 }, (_, i) => 5n + BigInt(i)));
      }
    }
  });

  it('yields one range for a single block', () => {
    expect(collect(3n, 3n, 10n)).toEqual([{ from: 3n, to: 3n }]);
  });

  it('rejects a negative start, an inverted range and a span below 1', () => {
    expect(() => collect(-1n, 3n, 1n)).toThrow(RangeError);
    expect(() => collect(5n, 4n, 1n)).toThrow(/before fromBlock/);
    expect(() => collect(0n, 4n, 0n)).toThrow(/maxBlockSpan/);
  });
});
