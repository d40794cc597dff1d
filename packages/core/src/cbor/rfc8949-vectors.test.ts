import { describe, expect, it } from 'vitest';
import {
  CborDecodeError,
  CborEncodeError,
  CborFloat,
  CborTag,
  decodeCanonical,
  encodeCanonical,
  type CborValue,
  type DecodeOptions,
  type EncodeOptions,
} from './index';

// Every example of RFC 8949 Appendix A (Table 6), classified by how the strict codec must treat it.
type Vector =
  | { diag: string; hex: string; kind: 'canonical'; value: CborValue }
  // `withoutFloats`: what encoding the value yields when floats are off (a refusal reason, or bytes for -0,
  // which is an integer zero in JS terms).
  | { diag: string; hex: string; kind: 'float'; value: number | CborFloat; withoutFloats: string }
  | { diag: string; hex: string; kind: 'longer_float' }
  | { diag: string; hex: string; kind: 'bignum'; value: bigint }
  | { diag: string; hex: string; kind: 'tag'; value: CborTag }
  | { diag: string; hex: string; kind: 'indefinite' }
  | { diag: string; hex: string; kind: 'simple' }
  | { diag: string; hex: string; kind: 'undefined' };

const bytes = (...values: number[]) => new Uint8Array(values);
const oneTo25 = Array.from({ length: 25 }, (_, index) => index + 1);

const vectors: Vector[] = [
  { diag: '0', hex: '00', kind: 'canonical', value: 0 },
  { diag: '1', hex: '01', kind: 'canonical', value: 1 },
  { diag: '10', hex: '0a', kind: 'canonical', value: 10 },
  { diag: '23', hex: '17', kind: 'canonical', value: 23 },
  { diag: '24', hex: '1818', kind: 'canonical', value: 24 },
  { diag: '25', hex: '1819', kind: 'canonical', value: 25 },
  { diag: '100', hex: '1864', kind: 'canonical', value: 100 },
  { diag: '1000', hex: '1903e8', kind: 'canonical', value: 1000 },
  { diag: '1000000', hex: '1a000f4240', kind: 'canonical', value: 1000000 },
  { diag: '1000000000000', hex: '1b000000e8d4a51000', kind: 'canonical', value: 1000000000000 },
  { diag: '18446744073709551615', hex: '1bffffffffffffffff', kind: 'canonical', value: 18446744073709551615n },
  { diag: '18446744073709551616', hex: 'c249010000000000000000', kind: 'bignum', value: 18446744073709551616n },
  { diag: '-18446744073709551616', hex: '3bffffffffffffffff', kind: 'canonical', value: -18446744073709551616n },
  { diag: '-18446744073709551617', hex: 'c349010000000000000000', kind: 'bignum', value: -18446744073709551617n },
  { diag: '-1', hex: '20', kind: 'canonical', value: -1 },
  { diag: '-10', hex: '29', kind: 'canonical', value: -10 },
  { diag: '-100', hex: '3863', kind: 'canonical', value: -100 },
  { diag: '-1000', hex: '3903e7', kind: 'canonical', value: -1000 },
  { diag: '0.0', hex: 'f90000', kind: 'float', value: new CborFloat(0), withoutFloats: 'float_not_allowed' },
  { diag: '-0.0', hex: 'f98000', kind: 'float', value: -0, withoutFloats: 'hex:00' },
  { diag: '1.0', hex: 'f93c00', kind: 'float', value: new CborFloat(1), withoutFloats: 'float_not_allowed' },
  { diag: '1.1', hex: 'fb3ff199999999999a', kind: 'float', value: 1.1, withoutFloats: 'float_not_allowed' },
  { diag: '1.5', hex: 'f93e00', kind: 'float', value: 1.5, withoutFloats: 'float_not_allowed' },
  { diag: '65504.0', hex: 'f97bff', kind: 'float', value: new CborFloat(65504), withoutFloats: 'float_not_allowed' },
  { diag: '100000.0', hex: 'fa47c35000', kind: 'float', value: new CborFloat(100000), withoutFloats: 'float_not_allowed' },
  { diag: '3.4028234663852886e+38', hex: 'fa7f7fffff', kind: 'float', value: 3.4028234663852886e38, withoutFloats: 'integer_out_of_range' },
  { diag: '1.0e+300', hex: 'fb7e37e43c8800759c', kind: 'float', value: 1.0e300, withoutFloats: 'integer_out_of_range' },
  { diag: '5.960464477539063e-8', hex: 'f90001', kind: 'float', value: 5.960464477539063e-8, withoutFloats: 'float_not_allowed' },
  { diag: '0.00006103515625', hex: 'f90400', kind: 'float', value: 0.00006103515625, withoutFloats: 'float_not_allowed' },
  { diag: '-4.0', hex: 'f9c400', kind: 'float', value: new CborFloat(-4), withoutFloats: 'float_not_allowed' },
  { diag: '-4.1', hex: 'fbc010666666666666', kind: 'float', value: -4.1, withoutFloats: 'float_not_allowed' },
  { diag: 'Infinity', hex: 'f97c00', kind: 'float', value: Infinity, withoutFloats: 'non_finite' },
  { diag: 'NaN', hex: 'f97e00', kind: 'float', value: NaN, withoutFloats: 'non_finite' },
  { diag: '-Infinity', hex: 'f9fc00', kind: 'float', value: -Infinity, withoutFloats: 'non_finite' },
  { diag: 'Infinity (float32)', hex: 'fa7f800000', kind: 'longer_float' },
  { diag: 'NaN (float32)', hex: 'fa7fc00000', kind: 'longer_float' },
  { diag: '-Infinity (float32)', hex: 'faff800000', kind: 'longer_float' },
  { diag: 'Infinity (float64)', hex: 'fb7ff0000000000000', kind: 'longer_float' },
  { diag: 'NaN (float64)', hex: 'fb7ff8000000000000', kind: 'longer_float' },
  { diag: '-Infinity (float64)', hex: 'fbfff0000000000000', kind: 'longer_float' },
  { diag: 'false', hex: 'f4', kind: 'canonical', value: false },
  { diag: 'true', hex: 'f5', kind: 'canonical', value: true },
  { diag: 'null', hex: 'f6', kind: 'canonical', value: null },
  { diag: 'undefined', hex: 'f7', kind: 'undefined' },
  { diag: 'simple(16)', hex: 'f0', kind: 'simple' },
  { diag: 'simple(255)', hex: 'f8ff', kind: 'simple' },
  { diag: '0("2013-03-21T20:04:00Z")', hex: 'c074323031332d30332d32315432303a30343a30305a', kind: 'tag', value: new CborTag(0, '2013-03-21T20:04:00Z') },
  { diag: '1(1363896240)', hex: 'c11a514b67b0', kind: 'tag', value: new CborTag(1, 1363896240) },
  { diag: '1(1363896240.5)', hex: 'c1fb41d452d9ec200000', kind: 'tag', value: new CborTag(1, 1363896240.5) },
  { diag: "23(h'01020304')", hex: 'd74401020304', kind: 'tag', value: new CborTag(23, bytes(1, 2, 3, 4)) },
  { diag: "24(h'6449455446')", hex: 'd818456449455446', kind: 'tag', value: new CborTag(24, bytes(0x64, 0x49, 0x45, 0x54, 0x46)) },
  { diag: '32("http://www.example.com")', hex: 'd82076687474703a2f2f7777772e6578616d706c652e636f6d', kind: 'tag', value: new CborTag(32, 'http://www.example.com') },
  { diag: "h''", hex: '40', kind: 'canonical', value: bytes() },
  { diag: "h'01020304'", hex: '4401020304', kind: 'canonical', value: bytes(1, 2, 3, 4) },
  { diag: '""', hex: '60', kind: 'canonical', value: '' },
  { diag: '"a"', hex: '6161', kind: 'canonical', value: 'a' },
  { diag: '"IETF"', hex: '6449455446', kind: 'canonical', value: 'IETF' },
  { diag: '"\\"\\\\"', hex: '62225c', kind: 'canonical', value: '"\\' },
  { diag: '"\\u00fc"', hex: '62c3bc', kind: 'canonical', value: '\u00fc' },
  { diag: '"\\u6c34"', hex: '63e6b0b4', kind: 'canonical', value: '\u6c34' },
  { diag: '"\\ud800\\udd51"', hex: '64f0908591', kind: 'canonical', value: '\ud800\udd51' },
  { diag: '[]', hex: '80', kind: 'canonical', value: [] },
  { diag: '[1, 2, 3]', hex: '83010203', kind: 'canonical', value: [1, 2, 3] },
  { diag: '[1, [2, 3], [4, 5]]', hex: '8301820203820405', kind: 'canonical', value: [1, [2, 3], [4, 5]] },
  { diag: '[1, 2, 3, ..., 25]', hex: '98190102030405060708090a0b0c0d0e0f101112131415161718181819', kind: 'canonical', value: oneTo25 },
  { diag: '{}', hex: 'a0', kind: 'canonical', value: new Map() },
  { diag: '{1: 2, 3: 4}', hex: 'a201020304', kind: 'canonical', value: new Map([[1, 2], [3, 4]]) },
  { diag: '{"a": 1, "b": [2, 3]}', hex: 'a26161016162820203', kind: 'canonical', value: new Map<string, CborValue>([['a', 1], ['b', [2, 3]]]) },
  { diag: '["a", {"b": "c"}]', hex: '826161a161626163', kind: 'canonical', value: ['a', new Map([['b', 'c']])] },
  {
    diag: '{"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}',
    hex: 'a56161614161626142616361436164614461656145',
    kind: 'canonical',
    value: new Map([['a', 'A'], ['b', 'B'], ['c', 'C'], ['d', 'D'], ['e', 'E']]),
  },
  { diag: "(_ h'0102', h'030405')", hex: '5f42010243030405ff', kind: 'indefinite' },
  { diag: '(_ "strea", "ming")', hex: '7f657374726561646d696e67ff', kind: 'indefinite' },
  { diag: '[_ ]', hex: '9fff', kind: 'indefinite' },
  { diag: '[_ 1, [2, 3], [_ 4, 5]]', hex: '9f018202039f0405ffff', kind: 'indefinite' },
  { diag: '[_ 1, [2, 3], [4, 5]]', hex: '9f01820203820405ff', kind: 'indefinite' },
  { diag: '[1, [2, 3], [_ 4, 5]]', hex: '83018202039f0405ff', kind: 'indefinite' },
  { diag: '[1, [_ 2, 3], [4, 5]]', hex: '83019f0203ff820405', kind: 'indefinite' },
  { diag: '[_ 1, 2, 3, ..., 25]', hex: '9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff', kind: 'indefinite' },
  { diag: '{_ "a": 1, "b": [_ 2, 3]}', hex: 'bf61610161629f0203ffff', kind: 'indefinite' },
  { diag: '["a", {_ "b": "c"}]', hex: '826161bf61626163ff', kind: 'indefinite' },
  { diag: '{_ "Fun": true, "Amt": -2}', hex: 'bf6346756ef563416d7421ff', kind: 'indefinite' },
];

const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
const toHex = (data: Uint8Array) => Array.from(data, (byte) => byte.toString(16).padStart(2, '0')).join('');
const everything = { allowFloats: true, allowUndefined: true, allowBignums: true, allowTags: [0, 1, 23, 24, 32] } as const;

function decodeReason(hex: string, options: DecodeOptions = {}): string | undefined {
  try {
    decodeCanonical(fromHex(hex), options);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CborDecodeError);
    return (error as CborDecodeError).reason;
  }
}

function encodeReason(value: unknown, options: EncodeOptions = {}): string | undefined {
  try {
    encodeCanonical(value as CborValue, options);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(CborEncodeError);
    return (error as CborEncodeError).reason;
  }
}

const byKind = <Kind extends Vector['kind']>(kind: Kind) =>
  vectors.filter((vector): vector is Extract<Vector, { kind: Kind }> => vector.kind === kind);

describe('RFC 8949 Appendix A', () => {
  it('lists every example of the appendix', () => {
    expect(vectors).toHaveLength(81);
  });

  it.each(byKind('canonical'))('round-trips $diag byte-exactly by default', ({ hex, value }) => {
    expect(decodeCanonical(fromHex(hex))).toStrictEqual(value);
    expect(toHex(encodeCanonical(value))).toBe(hex);
  });

  it.each(byKind('float'))('encodes $diag to its shortest float only with allowFloats', ({ hex, value, withoutFloats }) => {
    expect(decodeCanonical(fromHex(hex), { allowFloats: true })).toStrictEqual(value);
    expect(toHex(encodeCanonical(value, { allowFloats: true }))).toBe(hex);
    expect(decodeReason(hex)).toBe('float_not_allowed');
    if (withoutFloats.startsWith('hex:')) expect(toHex(encodeCanonical(value))).toBe(withoutFloats.slice(4));
    else expect(encodeReason(value)).toBe(withoutFloats);
  });

  it.each(byKind('longer_float'))('refuses $diag: not the shortest form, and no floats by default', ({ hex }) => {
    expect(decodeReason(hex, { allowFloats: true })).toBe('non_canonical');
    expect(decodeReason(hex)).toBe('float_not_allowed');
  });

  it.each(byKind('bignum'))('refuses bignum $diag by default and round-trips it with allowBignums', ({ hex, value }) => {
    expect(decodeReason(hex)).toBe('tag_not_allowed');
    expect(encodeReason(value)).toBe('integer_out_of_range');
    expect(decodeCanonical(fromHex(hex), { allowBignums: true })).toBe(value);
    expect(toHex(encodeCanonical(value, { allowBignums: true }))).toBe(hex);
  });

  it.each(byKind('tag'))('refuses tagged $diag by default and round-trips it when its tag is allowed', ({ hex, value }) => {
    expect(decodeReason(hex)).toBe('tag_not_allowed');
    expect(encodeReason(value)).toBe('tag_not_allowed');
    expect(decodeCanonical(fromHex(hex), everything)).toStrictEqual(value);
    expect(toHex(encodeCanonical(value, everything))).toBe(hex);
  });

  it.each(byKind('indefinite'))('refuses indefinite-length $diag under any options', ({ hex }) => {
    expect(decodeReason(hex)).toBe('indefinite_length');
    expect(decodeReason(hex, everything)).toBe('indefinite_length');
  });

  it.each(byKind('simple'))('refuses $diag: simple values are never in the allowed set', ({ hex }) => {
    expect(decodeReason(hex)).toBe('type_not_allowed');
    expect(decodeReason(hex, everything)).toBe('type_not_allowed');
  });

  it('refuses undefined by default and round-trips it with allowUndefined', () => {
    const [vector] = byKind('undefined');
    expect(vector?.hex).toBe('f7');
    expect(decodeReason('f7')).toBe('type_not_allowed');
    expect(encodeReason(undefined)).toBe('type_not_allowed');
    expect(decodeCanonical(fromHex('f7'), { allowUndefined: true })).toBeUndefined();
    expect(toHex(encodeCanonical(undefined, { allowUndefined: true }))).toBe('f7');
  });

  it('decodes byte strings as plain Uint8Array copies', () => {
    const input = fromHex('4401020304');
    const decoded = decodeCanonical(input) as Uint8Array;
    expect(Object.getPrototypeOf(decoded)).toBe(Uint8Array.prototype);
    input[1] = 0xff;
    expect(decoded[0]).toBe(1);
  });
});
