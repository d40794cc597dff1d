import { describe, expect, it } from 'vitest';
import { CryptoError, isHexId, randomBytes, randomEpochId, randomId, type RandomSource } from './index';
import { thrownBy } from '../../test/support/thrown';

const refusal = (run: () => unknown): CryptoError => thrownBy(CryptoError, run);

describe('randomBytes', () => {
  it('returns exactly the requested number of bytes', () => {
    for (const length of [0, 1, 31, 32, 65_536, 65_537, 200_000]) expect(randomBytes(length)).toHaveLength(length);
  });

  it('fills buffers larger than one getRandomValues draw completely', () => {
    // 2^-(8·4096) chance that a random 4 KiB tail is all zeros: a zero tail means it was never filled.
    const bytes = randomBytes(3 * 65_536 + 4096);
    expect(bytes.subarray(-4096).some((byte) => byte !== 0)).toBe(true);
    expect(bytes.subarray(65_536, 65_536 + 4096).some((byte) => byte !== 0)).toBe(true);
  });

  it('refuses negative, fractional and non-numeric lengths', () => {
    for (const length of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '8' as unknown as number]) {
      expect(refusal(() => randomBytes(length)).code).toBe('invalid_argument');
    }
  });
});

describe('randomId / randomEpochId', () => {
  it('formats 16 and 8 random bytes as lowercase hex', () => {
    expect(randomId()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomEpochId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('draws 10,000 distinct ids', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => randomId()));
    expect(ids.size).toBe(10_000);
    const epochIds = new Set(Array.from({ length: 10_000 }, () => randomEpochId()));
    expect(epochIds.size).toBe(10_000);
  });

  it('uses an injected source, so tests can pin identifiers', () => {
    const counting: RandomSource = (length) => Uint8Array.from({ length }, (_, index) => index * 17);
    expect(randomId(counting)).toBe('00112233445566778899aabbccddeeff');
    expect(randomEpochId(counting)).toBe('0011223344556677');
  });

  it('refuses a source that breaks its contract', () => {
    const short: RandomSource = () => new Uint8Array(4);
    expect(refusal(() => randomId(short)).code).toBe('invalid_argument');
    const wrongType = (() => [1, 2, 3, 4, 5, 6, 7, 8]) as unknown as RandomSource;
    expect(refusal(() => randomEpochId(wrongType)).code).toBe('invalid_argument');
  });
});

describe('isHexId', () => {
  it('accepts lowercase hex of exactly the given byte length', () => {
    expect(isHexId(randomId(), 16)).toBe(true);
    expect(isHexId(randomEpochId(), 8)).toBe(true);
    expect(isHexId('0123456789abcdef', 8)).toBe(true);
  });

  it('refuses other lengths, uppercase, prefixes, non-hex and non-strings', () => {
    const refused: Array<[unknown, number]> = [
      ['0123456789abcdef', 16],
      ['0123456789abcde', 8],
      ['0123456789abcdef0', 8],
      ['0123456789ABCDEF', 8],
      ['0x23456789abcdef', 8],
      ['0123456789abcdeg', 8],
      ['0123456789abcde ', 8],
      [0x0123456789abcdefn, 8],
      [null, 8],
      ['', 0],
      ['00', -1],
      ['00', 0.5],
    ];
    for (const [value, bytes] of refused) expect(isHexId(value, bytes)).toBe(false);
  });
});
