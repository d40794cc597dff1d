import { describe, expect, it } from 'vitest';
import { defaultBackoff, retryDelayMs } from '@tollgate/core/storage';

describe('retryDelayMs', () => {
  it('doubles the ceiling per attempt and scales it by the random sample', () => {
    const options = { baseMs: 1_000, maxMs: 60_000 };
    const half = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => retryDelayMs(attempt, options, half))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });

  it('spans the full jitter range from 0 to just under the ceiling', () => {
    const options = { baseMs: 1_000, maxMs: 60_000 };
    expect(retryDelayMs(3, options, () => 0)).toBe(0);
    expect(retryDelayMs(3, options, () => 0.999_999)).toBe(3_999);
  });

  it('uses the defaults and stays finite for huge attempt numbers', () => {
    expect(retryDelayMs(1, {}, () => 0.5)).toBe(defaultBackoff.baseMs / 2);
    expect(retryDelayMs(10_000, {}, () => 0.5)).toBe(defaultBackoff.maxMs / 2);
  });

  it('refuses bad attempts, bounds and random samples', () => {
    expect(() => retryDelayMs(0)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5)).toThrow(RangeError);
    expect(() => retryDelayMs(1, { baseMs: -1 })).toThrow(RangeError);
    expect(() => retryDelayMs(1, {}, () => 1)).toThrow(RangeError);
    expect(() => retryDelayMs(1, {}, () => Number.NaN)).toThrow(RangeError);
  });
});
