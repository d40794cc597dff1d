import { describe, expect, it } from 'vitest';
import { TollgateError } from '../errors';
import { CborEncodeError, CborFloat, CborTag, decodeCanonical, encodeCanonical, type CborKey, type CborValue, type EncodeOptions } from './index';

const toHex = (data: Uint8Array) => Array.from(data, (byte) => byte.toString(16).padStart(2, '0')).join('');
const hex = (value: CborValue, options?: EncodeOptions) => toHex(encodeCanonical(value, options));

function refusal(value: unknown, options?: EncodeOptions): CborEncodeError {
  try {
    encodeCanonical(value as CborValue, options);
  } catch (error) {
    expect(error).toBeInstanceOf(CborEncodeError);
    return error as CborEncodeError;
  }
  throw new Error('expected encodeCanonical to refuse the value');
}

describe('encodeCanonical integers', () => {
  it('writes JS numbers above 2^32 as integers, never as float64', () => {
    expect(hex(2 ** 32)).toBe('1b0000000100000000');
    expect(hex(2 ** 40)).toBe('1b0000010000000000');
    expect(hex(Number.MAX_SAFE_INTEGER)).toBe('1b001fffffffffffff');
    expect(hex(2 ** 64 - 2048)).toBe('1bfffffffffffff800');
    expect(hex(-(2 ** 32))).toBe('3affffffff');
    expect(hex(-(2 ** 32) - 1)).toBe('3b0000000100000000');
    expect(hex(-(2 ** 64))).toBe('3bffffffffffffffff');
  });

  it('writes bigints in the shortest form, the same bytes as equal numbers', () => {
    expect(hex(1n)).toBe('01');
    expect(hex(-1n)).toBe('20');
    expect(hex(1000n)).toBe(hex(1000));
    expect(hex(4294967295n)).toBe('1affffffff');
    expect(hex(2n ** 64n - 1n)).toBe('1bffffffffffffffff');
    expect(hex(-(2n ** 64n))).toBe('3bffffffffffffffff');
  });

  it('refuses integers beyond 64 bits unless bignums are allowed', () => {
    expect(refusal(2n ** 64n).reason).toBe('integer_out_of_range');
    expect(refusal(-(2n ** 64n) - 1n).reason).toBe('integer_out_of_range');
    expect(refusal(2 ** 64).reason).toBe('integer_out_of_range');
    // 2^72 is 0x01 followed by nine zero bytes: a ten-byte string (head 4a).
    expect(hex(2n ** 72n, { allowBignums: true })).toBe('c24a01' + '00'.repeat(9));
    expect(hex(-(2n ** 72n) - 1n, { allowBignums: true })).toBe('c34a01' + '00'.repeat(9));
    const huge = 3n ** 200n;
    expect(decodeCanonical(encodeCanonical(huge, { allowBignums: true }), { allowBignums: true })).toBe(huge);
  });

  it('writes -0 as integer zero unless floats are allowed', () => {
    expect(hex(-0)).toBe('00');
    expect(hex(-0, { allowFloats: true })).toBe('f98000');
  });
});

describe('encodeCanonical strings', () => {
  it('writes Uint8Array and Buffer as plain byte strings (no tag 64)', () => {
    expect(hex(new Uint8Array([1, 2]))).toBe('420102');
    expect(hex(Buffer.from([1, 2]))).toBe('420102');
    expect(hex(new Uint8Array(24))).toBe('5818' + '00'.repeat(24));
  });

  it('writes text as UTF-8 with shortest length heads, keeping a leading BOM', () => {
    expect(hex('a'.repeat(23))).toBe('77' + '61'.repeat(23));
    expect(hex('a'.repeat(24))).toBe('7818' + '61'.repeat(24));
    expect(hex('a'.repeat(256))).toBe('790100' + '61'.repeat(256));
    expect(hex('é'.repeat(20))).toBe('7828' + 'c3a9'.repeat(20));
    expect(hex('\ufeffa')).toBe('64efbbbf61');
    expect(hex('😀')).toBe('64f09f9880');
  });

  it('refuses strings with lone surrogates, which have no UTF-8 form', () => {
    expect(refusal('a\ud800b').reason).toBe('invalid_utf8');
    expect(refusal('\udc00').reason).toBe('invalid_utf8');
    expect(refusal(new Map([['\ud83d', 1]])).reason).toBe('invalid_utf8');
  });

  it('grows its buffer for large items and returns an exact-size plain Uint8Array', () => {
    const big = new Uint8Array(100_000).fill(7);
    const encoded = encodeCanonical([big, big]);
    expect(encoded.length).toBe(1 + 2 * (5 + 100_000));
    expect(Object.getPrototypeOf(encoded)).toBe(Uint8Array.prototype);
    expect(encoded.buffer.byteLength).toBe(encoded.length);
  });
});

describe('encodeCanonical maps', () => {
  it('sorts keys bytewise by their encoding: shorter first within a type, ints before negatives before text', () => {
    const map = new Map<CborKey, CborValue>([[100, 0], ['aa', 0], [-1, 0], ['z', 0], [24, 0], [10, 0]]);
    // 10 (0a) < 24 (1818) < 100 (1864) < -1 (20) < "z" (617a) < "aa" (626161)
    expect(hex(map)).toBe('a6' + '0a00' + '181800' + '186400' + '2000' + '617a00' + '62616100');
  });

  it('sorts nested maps and uses a one-byte head for small maps', () => {
    const inner = new Map<CborKey, CborValue>([[2, 'b'], [1, 'a']]);
    expect(hex([new Map([[1, inner], [0, null]])])).toBe('81' + 'a2' + '00f6' + '01' + 'a2' + '016161' + '026162');
  });

  it('gives the same bytes whatever the insertion order', () => {
    const entries: [CborKey, CborValue][] = [[3, 'c'], ['k', [1, 2]], [-7, new Uint8Array([9])], [2n ** 60n, true], [0, new Map([[5, 5], [4, 4]])]];
    const forward = encodeCanonical(new Map(entries));
    const backward = encodeCanonical(new Map([...entries].reverse()));
    expect(toHex(backward)).toBe(toHex(forward));
  });

  it('refuses keys that collide after normalisation', () => {
    const error = refusal(new Map<CborKey, CborValue>([[1, 'a'], [1n, 'b']]));
    expect(error.reason).toBe('duplicate_key');
    expect(error.details.path).toBe('${1}');
    expect(refusal([new Map<CborKey, CborValue>([[2 ** 60, 0], [2n ** 60n, 1]])]).reason).toBe('duplicate_key');
  });

  it('refuses keys that are not integers or text', () => {
    for (const key of [1.5, true, null, new Uint8Array([1]), [1], NaN, 2n ** 64n, 2 ** 70]) {
      expect(refusal(new Map<unknown, CborValue>([[key, 0]])).reason).toBe('invalid_key');
    }
  });
});

describe('encodeCanonical refusals', () => {
  it('throws a TollgateError whose code is the stable reason, with the path in details', () => {
    const error = refusal([0, new Map([[7, [1.5]]])]);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ name: 'CborEncodeError', code: 'float_not_allowed', reason: 'float_not_allowed', details: { path: '$[1]{7}[0]' } });
  });

  it('refuses plain objects and other non-CBOR values with a path', () => {
    const object = refusal({ a: 1 });
    expect(object.reason).toBe('type_not_allowed');
    expect(object.message).toContain('Map');
    for (const value of [new Date(0), new Set([1]), () => 1, Symbol('s'), new Uint16Array(2), new ArrayBuffer(2), Object.create(null)]) {
      expect(refusal(value).reason).toBe('type_not_allowed');
    }
    const nested = refusal(new Map<CborKey, unknown>([[1, [0, { x: 1 }]]]));
    expect(nested.details.path).toBe('${1}[1]');
  });

  it('refuses undefined, also as a sparse-array hole or a map value, unless allowed', () => {
    expect(refusal(undefined).reason).toBe('type_not_allowed');
    expect(refusal([1, , 3]).details.path).toBe('$[1]');
    expect(refusal(new Map([['a', undefined]])).details.path).toBe('${"a"}');
    expect(toHex(encodeCanonical([undefined], { allowUndefined: true }))).toBe('81f7');
  });

  it('refuses non-integers and non-finite numbers without allowFloats', () => {
    expect(refusal(1.5).reason).toBe('float_not_allowed');
    expect(refusal(new CborFloat(2)).reason).toBe('float_not_allowed');
    expect(refusal(NaN).reason).toBe('non_finite');
    expect(refusal(Infinity).reason).toBe('non_finite');
    expect(refusal(-Infinity).reason).toBe('non_finite');
  });

  it('refuses tags that are not allowed or not valid tag numbers', () => {
    expect(refusal(new CborTag(18, 1)).reason).toBe('tag_not_allowed');
    expect(refusal(new CborTag(-1, 1), { allowTags: [-1] }).reason).toBe('tag_not_allowed');
    expect(refusal(new CborTag(1.5, 1), { allowTags: [1.5] }).reason).toBe('tag_not_allowed');
    expect(hex(new CborTag(18, [1]), { allowTags: [18] })).toBe('d28101');
    expect(hex(new CborTag(1000, 0), { allowTags: [1000] })).toBe('d903e800');
  });

  it('refuses nesting deeper than maxDepth, which also stops cycles', () => {
    const nest = (levels: number): CborValue => (levels === 0 ? 0 : [nest(levels - 1)]);
    expect(encodeCanonical(nest(16)).length).toBe(17);
    expect(refusal(nest(17)).reason).toBe('depth_exceeded');
    expect(refusal(nest(3), { maxDepth: 2 }).reason).toBe('depth_exceeded');
    const cycle: CborValue[] = [];
    cycle.push(cycle);
    expect(refusal(cycle).reason).toBe('depth_exceeded');
    expect(refusal(new CborTag(1, new CborTag(1, 0)), { allowTags: [1], maxDepth: 1 }).reason).toBe('depth_exceeded');
    expect(() => encodeCanonical(0, { maxDepth: 257 })).toThrow(RangeError);
  });
});

describe('encodeCanonical floats (allowFloats)', () => {
  const floats = { allowFloats: true } as const;

  it('picks the shortest of float16/32/64 that holds the value exactly', () => {
    expect(hex(0.5, floats)).toBe('f93800');
    expect(hex(2 ** -24, floats)).toBe('f90001');
    expect(hex(3 * 2 ** -24, floats)).toBe('f90003');
    expect(hex(2 ** -14, floats)).toBe('f90400');
    expect(hex(2 ** -25, floats)).toBe('fa33000000');
    expect(hex(1.5 * 2 ** -24, floats)).toBe('fa33c00000');
    expect(hex(Math.fround(0.1), floats)).toBe('fa3dcccccd');
    expect(hex(0.1, floats)).toBe('fb3fb999999999999a');
    expect(hex(new CborFloat(65504), floats)).toBe('f97bff');
    expect(hex(new CborFloat(65520), floats)).toBe('fa477ff000');
    expect(hex(new CborFloat(2 ** 24 + 1), floats)).toBe('fb4170000010000000');
    expect(hex(-Infinity, floats)).toBe('f9fc00');
    expect(hex(new CborFloat(NaN), floats)).toBe('f97e00');
  });

  it('round-trips every float16 bit pattern except non-canonical NaNs', () => {
    let canonical = 0;
    for (let bits = 0; bits < 0x10000; bits++) {
      const input = new Uint8Array([0xf9, bits >> 8, bits & 0xff]);
      const isNaN = (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
      if (isNaN && bits !== 0x7e00) {
        expect(() => decodeCanonical(input, floats)).toThrow(/NaN/);
        continue;
      }
      expect(encodeCanonical(decodeCanonical(input, floats), floats)).toEqual(input);
      canonical++;
    }
    expect(canonical).toBe(0x10000 - 2 * 0x3ff + 1);
  });
});
