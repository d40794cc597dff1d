import { describe, expect, it } from 'vitest';
import { encodeCanonical } from '@tollgate/core/cbor';
import { encodeCborSequence, isArtifactError, parseRevocationSince, revocationPageRange, revocationPageSize, splitCborSequence } from '@tollgate/core/license';

describe('the since parameter', () => {
  it('accepts decimal u64 values without sign or leading zeros', () => {
    expect(parseRevocationSince('0')).toBe(0n);
    expect(parseRevocationSince('42')).toBe(42n);
    expect(parseRevocationSince('18446744073709551615')).toBe(2n ** 64n - 1n);
  });

  it('refuses everything else', () => {
    for (const bad of [undefined, '', '-1', '+1', '01', '00', '1.0', '1e3', ' 1', '1 ', '0x10', 'abc', '18446744073709551616', '99999999999999999999999']) {
      expect(parseRevocationSince(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('revocation pages', () => {
  it('answers with the batches up to the next multiple of the page size, complete only when the head reached it', () => {
    expect(revocationPageSize).toBe(64);
    expect(revocationPageRange(0n, 0)).toBeUndefined();
    expect(revocationPageRange(0n, 1)).toEqual({ first: 1, last: 1, complete: false });
    expect(revocationPageRange(0n, 64)).toEqual({ first: 1, last: 64, complete: true });
    expect(revocationPageRange(0n, 100)).toEqual({ first: 1, last: 64, complete: true });
    expect(revocationPageRange(10n, 100)).toEqual({ first: 11, last: 64, complete: true });
    expect(revocationPageRange(63n, 100)).toEqual({ first: 64, last: 64, complete: true });
    expect(revocationPageRange(64n, 100)).toEqual({ first: 65, last: 100, complete: false });
    expect(revocationPageRange(100n, 100)).toBeUndefined();
    expect(revocationPageRange(2n ** 64n - 1n, 100)).toBeUndefined();
  });

  it('gives the same answer for a since forever once that answer is complete', () => {
    for (const head of [64, 65, 200, 1000]) expect(revocationPageRange(5n, head)).toEqual({ first: 6, last: 64, complete: true });
  });
});

describe('CBOR sequences', () => {
  it('frames items back to back and splits them again', () => {
    const items = [encodeCanonical([new Uint8Array([1]), new Map(), 'x']), encodeCanonical(new Map([[1, [2, 3]]])), encodeCanonical(7)];
    const sequence = encodeCborSequence(items);
    expect(sequence).toHaveLength(items.reduce((total, item) => total + item.length, 0));
    expect(splitCborSequence(sequence)).toEqual(items);
    expect(splitCborSequence(new Uint8Array(0))).toEqual([]);
  });

  it('refuses truncation, indefinite lengths, tags, and too many items', () => {
    const reasonOf = (bytes: number[], maxItems?: number) => {
      try {
        splitCborSequence(Uint8Array.from(bytes), maxItems);
      } catch (error) {
        return isArtifactError(error) ? error.reason : 'other';
      }
      return undefined;
    };
    expect(reasonOf([0x82, 0x01])).toBe('bad_encoding');
    expect(reasonOf([0x43, 0x01])).toBe('bad_encoding');
    expect(reasonOf([0x9f, 0xff])).toBe('bad_encoding');
    expect(reasonOf([0xd2, 0x80])).toBe('bad_encoding');
    expect(reasonOf([0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])).toBe('bad_encoding');
    expect(reasonOf([0x01, 0x02, 0x03], 2)).toBe('bad_encoding');
    expect(reasonOf([0x01, 0x02], 2)).toBeUndefined();
  });
});
