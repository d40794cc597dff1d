import { describe, expect, it } from 'vitest';
import {
  CborDecodeError,
  CborEncodeError,
  cborMap,
  decodeCanonical,
  encodeCanonical,
  expectCborMap,
  readCborField,
  readOptionalCborField,
  type CborKey,
  type CborValue,
} from './index';

const toHex = (data: Uint8Array) => Array.from(data, (byte) => byte.toString(16).padStart(2, '0')).join('');

function decodeError(read: () => unknown): CborDecodeError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(CborDecodeError);
    return error as CborDecodeError;
  }
  throw new Error('expected a CborDecodeError');
}

describe('cborMap', () => {
  it('omits undefined values, keeps null, and encodes canonically', () => {
    const retryAfter: number | undefined = undefined;
    const map = cborMap<CborValue>([[1, 'Slow down.'], [2, retryAfter], [0, 1005], [3, null]]);
    expect([...map.keys()]).toEqual([1, 0, 3]);
    // {0: 1005, 1: "Slow down.", 3: null}, keys sorted
    expect(toHex(encodeCanonical(map))).toBe('a3' + '001903ed' + '016a536c6f7720646f776e2e' + '03f6');
  });

  it('normalises safe bigint keys so they match decoded keys', () => {
    const map = cborMap([[7n, 'x']]);
    expect(map.get(7)).toBe('x');
    expect(decodeCanonical(encodeCanonical(map))).toStrictEqual(map);
  });

  it('refuses a key given twice, also as number and bigint', () => {
    expect(() => cborMap([[1, 'a'], [1n, 'b']])).toThrow(CborEncodeError);
    expect(() => cborMap([['k', 'a'], ['k', undefined]])).toThrow(expect.objectContaining({ reason: 'duplicate_key' }));
  });
});

describe('field readers', () => {
  const body = encodeCanonical(
    cborMap<CborValue>([
      [0, 42],
      [1, 'text'],
      [2, new Uint8Array([1, 2])],
      [3, true],
      [4, [1, 2]],
      [5, new Map([[1, 1]])],
      [6, -5],
      [7, 2n ** 60n],
      [8, null],
    ]),
  );
  const map = expectCborMap(decodeCanonical(body), 'test body');

  it('returns each kind typed', () => {
    expect(readCborField(map, 0, 'uint')).toBe(42);
    expect(readCborField(map, 6, 'int')).toBe(-5);
    expect(readCborField(map, 1, 'text')).toBe('text');
    expect(readCborField(map, 2, 'bytes')).toEqual(new Uint8Array([1, 2]));
    expect(readCborField(map, 3, 'bool')).toBe(true);
    expect(readCborField(map, 4, 'array')).toEqual([1, 2]);
    expect(readCborField(map, 5, 'map')).toEqual(new Map([[1, 1]]));
    expect(readCborField(map, 7, 'bigint')).toBe(2n ** 60n);
    expect(readCborField(map, 0, 'bigint')).toBe(42n);
    expect(readCborField(map, 0n, 'uint')).toBe(42);
  });

  it('returns undefined for an absent optional field', () => {
    expect(readOptionalCborField(map, 99, 'text')).toBeUndefined();
    expect(readOptionalCborField(map, 1, 'text')).toBe('text');
  });

  it('refuses a missing required field', () => {
    expect(decodeError(() => readCborField(map, 99, 'uint'))).toMatchObject({ reason: 'missing_key', details: { key: '99', expected: 'uint' } });
  });

  it.each([
    [6, 'uint', 'a negative integer'],
    [7, 'int', 'an integer beyond the safe range'],
    [1, 'bytes', 'text'],
    [2, 'text', 'bytes'],
    [0, 'bool', 'an integer'],
    [5, 'array', 'a map'],
    [4, 'map', 'an array'],
    [8, 'text', 'a present null'],
    [1, 'bigint', 'text'],
  ] as const)('refuses key %s read as %s when it holds %s', (key, kind, _holds) => {
    expect(decodeError(() => readCborField(map, key, kind))).toMatchObject({ reason: 'wrong_type', details: { key: String(key), expected: kind } });
    expect(decodeError(() => readOptionalCborField(map, key, kind)).reason).toBe('wrong_type');
  });

  it('expectCborMap refuses anything but a map', () => {
    for (const value of [[], 'x', 1, null, undefined, new Uint8Array(0)] as (CborValue | undefined)[]) {
      expect(decodeError(() => expectCborMap(value)).reason).toBe('wrong_type');
    }
    const same: Map<CborKey, CborValue> = expectCborMap(map);
    expect(same).toBe(map);
  });
});
