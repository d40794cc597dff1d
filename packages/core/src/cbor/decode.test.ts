import { describe, expect, it } from 'vitest';
import { TollgateError } from '../errors';
import {
  CborDecodeError,
  CborTag,
  bulkDecodeLimits,
  clientDecodeLimits,
  decodeCanonical,
  encodeCanonical,
  maxCborDepth,
  type CborKey,
  type CborValue,
  type DecodeOptions,
} from './index';

const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));

function refusal(input: string | Uint8Array, options?: DecodeOptions): CborDecodeError {
  try {
    decodeCanonical(typeof input === 'string' ? fromHex(input) : input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(CborDecodeError);
    return error as CborDecodeError;
  }
  throw new Error('expected decodeCanonical to refuse the input');
}

const reason = (input: string | Uint8Array, options?: DecodeOptions) => refusal(input, options).reason;

describe('decodeCanonical: non-shortest heads', () => {
  it.each([
    ['1800', '0 in one extra byte'],
    ['1817', '23 in one extra byte'],
    ['190001', '1 in two bytes'],
    ['1900ff', '255 in two bytes'],
    ['1a0000ffff', '65535 in four bytes'],
    ['1b00000000ffffffff', '2^32 - 1 in eight bytes'],
    ['3800', '-1 in one extra byte'],
    ['3b0000000000000000', '-1 in eight bytes'],
  ])('refuses the integer %s (%s)', (hex) => {
    const error = refusal(hex);
    expect(error.reason).toBe('non_canonical');
    expect(error.details.offset).toBe(0);
  });

  it('accepts each head size right at its lower bound', () => {
    expect(decodeCanonical(fromHex('1818'))).toBe(24);
    expect(decodeCanonical(fromHex('190100'))).toBe(256);
    expect(decodeCanonical(fromHex('1a00010000'))).toBe(65536);
    expect(decodeCanonical(fromHex('1b0000000100000000'))).toBe(2 ** 32);
  });

  it.each([
    ['7801' + '61', 'text length 1 in one extra byte'],
    ['5801' + 'ff', 'bytes length 1 in one extra byte'],
    ['590001' + 'ff', 'bytes length 1 in two bytes'],
    ['7a00000001' + '61', 'text length 1 in four bytes'],
    ['9801' + '00', 'array length 1 in one extra byte'],
    ['b801' + '0000', 'map length 1 in one extra byte'],
    ['9b0000000000000001' + '00', 'array length 1 in eight bytes'],
  ])('refuses the length head in %s (%s)', (hex) => {
    expect(reason(hex)).toBe('non_canonical');
  });

  it('refuses a non-shortest tag number even when the tag is allowed', () => {
    expect(reason('d80100', { allowTags: [1] })).toBe('non_canonical');
    expect(decodeCanonical(fromHex('c100'), { allowTags: [1] })).toStrictEqual(new CborTag(1, 0));
  });
});

describe('decodeCanonical: integers', () => {
  it('returns numbers up to 2^53 - 1 in magnitude and bigints beyond', () => {
    expect(decodeCanonical(fromHex('1b001fffffffffffff'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(decodeCanonical(fromHex('1b0020000000000000'))).toBe(2n ** 53n);
    expect(decodeCanonical(fromHex('3b001ffffffffffffe'))).toBe(-Number.MAX_SAFE_INTEGER);
    expect(decodeCanonical(fromHex('3b001fffffffffffff'))).toBe(-(2n ** 53n));
    expect(decodeCanonical(fromHex('3bffffffffffffffff'))).toBe(-(2n ** 64n));
  });
});

describe('decodeCanonical: map keys', () => {
  it.each([
    ['a2' + '0200' + '0100', 'unsorted integer keys', 3],
    ['a2' + '186400' + '0a00', '100 before 10', 4],
    ['a2' + '62616100' + '617a00', '"aa" before "z"', 5],
    ['a2' + '616100' + '0100', 'text before an integer', 4],
    ['a2' + '2000' + '181800', '-1 before 24', 3],
    ['81' + 'a2' + '0200' + '0100', 'nested inside an array', 4],
    ['a1' + '01' + 'a2' + '0200' + '0100', 'nested inside a map value', 5],
  ])('refuses %s (%s) at the offending key', (hex, _label, offset) => {
    const error = refusal(hex);
    expect(error.reason).toBe('unsorted_keys');
    expect(error.details.offset).toBe(offset);
  });

  it('accepts keys in bytewise order of their encoding', () => {
    const decoded = decodeCanonical(fromHex('a4' + '0a00' + '186400' + '617a00' + '62616100')) as Map<CborKey, CborValue>;
    expect([...decoded.keys()]).toEqual([10, 100, 'z', 'aa']);
  });

  it.each([
    ['a2' + '0100' + '0101', 'integer'],
    ['a2' + '616100' + '616101', 'text'],
    ['a2' + '1b002000000000000000' + '1b002000000000000001', 'big integer'],
  ])('refuses a duplicate %s key', (hex) => {
    expect(reason(hex)).toBe('duplicate_key');
  });

  it.each([
    ['a1' + '80' + '00', 'array'],
    ['a1' + 'a0' + '00', 'map'],
    ['a1' + '40' + '00', 'byte string'],
    ['a1' + 'f5' + '00', 'boolean'],
    ['a1' + 'f6' + '00', 'null'],
    ['a1' + 'f93c00' + '00', 'float'],
    ['a1' + 'c100' + '00', 'tag'],
  ])('refuses a map key that is a %s', (hex) => {
    expect(reason(hex, { allowFloats: true, allowTags: [1] })).toBe('invalid_key');
  });
});

describe('decodeCanonical: limits', () => {
  const nestedArrays = (levels: number) => fromHex('81'.repeat(levels) + '00');

  it('refuses nesting deeper than 16 by default, and as configured', () => {
    expect(decodeCanonical(nestedArrays(16))).toBeInstanceOf(Array);
    expect(refusal(nestedArrays(17))).toMatchObject({ reason: 'depth_exceeded', details: { offset: 16 } });
    expect(reason(fromHex('a101'.repeat(17) + '00'))).toBe('depth_exceeded');
    expect(reason(nestedArrays(5), { limits: { maxDepth: 4 } })).toBe('depth_exceeded');
    expect(reason('c1c100', { allowTags: [1], limits: { maxDepth: 1 } })).toBe('depth_exceeded');
  });

  it('handles the deepest configurable nesting without exhausting the stack', () => {
    const limits = { maxDepth: maxCborDepth };
    expect(decodeCanonical(nestedArrays(maxCborDepth), { limits })).toBeInstanceOf(Array);
    expect(reason(nestedArrays(maxCborDepth + 1), { limits })).toBe('depth_exceeded');
  });

  it('refuses strings over the limit before reading them', () => {
    const oversize = new Uint8Array(3 + clientDecodeLimits.maxStringBytes + 1);
    oversize.set([0x59, 0x40, 0x01]);
    expect(reason(oversize, { limits: { maxInputBytes: 20_000 } })).toBe('too_large');
    expect(reason('6568656c6c6f', { limits: { maxStringBytes: 4 } })).toBe('too_large');
    expect(decodeCanonical(fromHex('6468656c6c'), { limits: { maxStringBytes: 4 } })).toBe('hell');
    expect(reason('5b' + 'ffffffffffffffff')).toBe('too_large');
  });

  it('refuses input, containers and item counts over their limits', () => {
    expect(reason(new Uint8Array(clientDecodeLimits.maxInputBytes + 1))).toBe('too_large');
    expect(reason('990401' + '00'.repeat(1025))).toBe('too_large');
    expect(decodeCanonical(fromHex('990400' + '00'.repeat(1024)))).toHaveLength(1024);
    expect(reason('8a' + '00'.repeat(10), { limits: { maxTotalItems: 10 } })).toBe('too_large');
    expect(decodeCanonical(fromHex('89' + '00'.repeat(9)), { limits: { maxTotalItems: 10 } })).toHaveLength(9);
    expect(reason('9b' + '7fffffffffffffff')).toBe('too_large');
  });

  it('reports a length the remaining input cannot hold as truncated without iterating', () => {
    expect(reason('9a00010000', { limits: bulkDecodeLimits })).toBe('truncated');
    expect(reason('b98000', { limits: bulkDecodeLimits })).toBe('truncated');
    expect(reason('5a00100000', { limits: bulkDecodeLimits })).toBe('truncated');
  });

  it('accepts a large document under the bulk profile that the client profile refuses', () => {
    const document = encodeCanonical(Array.from({ length: 2000 }, (_, index) => new Uint8Array(40).fill(index & 0xff)));
    expect(reason(document)).toBe('too_large');
    expect(decodeCanonical(document, { limits: bulkDecodeLimits })).toHaveLength(2000);
  });

  it('throws RangeError for invalid limits: a programming error, not a bad input', () => {
    expect(() => decodeCanonical(fromHex('00'), { limits: { maxDepth: 257 } })).toThrow(RangeError);
    expect(() => decodeCanonical(fromHex('00'), { limits: { maxStringBytes: -1 } })).toThrow(RangeError);
    expect(() => decodeCanonical(fromHex('00'), { limits: { maxTotalItems: 1.5 } })).toThrow(RangeError);
  });
});

describe('decodeCanonical: truncation and trailing bytes', () => {
  const sample = new Map<CborKey, CborValue>([
    [0, 2n ** 60n],
    [1, 'héllo wörld, a text longer than twenty-three bytes'],
    [2, new Uint8Array(300).fill(1)],
    [3, [-1, -1000, -(2 ** 40), true, false, null, new Map([['k', [1, 2, 3]]])]],
  ]);
  const encoded = encodeCanonical(sample);

  it('round-trips the sample', () => {
    expect(decodeCanonical(encoded)).toStrictEqual(sample);
  });

  it('refuses every proper prefix of a valid item as truncated', () => {
    for (let length = 0; length < encoded.length; length++) {
      expect(reason(encoded.subarray(0, length))).toBe('truncated');
    }
  });

  it('refuses bytes after the top-level item', () => {
    expect(refusal('0000')).toMatchObject({ reason: 'trailing_bytes', details: { offset: 1 } });
    expect(reason('a0ff')).toBe('trailing_bytes');
    const padded = new Uint8Array(encoded.length + 1);
    padded.set(encoded);
    expect(refusal(padded).details.offset).toBe(encoded.length);
  });
});

describe('decodeCanonical: malformed and disallowed items', () => {
  it.each(['1c', '3d', '5e', '7c', '9d', 'be', 'dc', 'fc', 'fd', 'fe'])('refuses reserved additional information in %s', (hex) => {
    expect(reason(hex + '00000000000000000000')).toBe('malformed');
  });

  it.each(['1f', '3f', 'df'])('refuses additional information 31 on %s (no indefinite form exists)', (hex) => {
    expect(reason(hex + '00')).toBe('malformed');
  });

  it('refuses a break byte outside an indefinite-length item', () => {
    expect(refusal('ff')).toMatchObject({ reason: 'malformed', details: { offset: 0 } });
    expect(refusal('8201ff')).toMatchObject({ reason: 'malformed', details: { offset: 2 } });
  });

  it('refuses two-byte simple values below 32 as malformed and the rest as not allowed', () => {
    expect(reason('f800')).toBe('malformed');
    expect(reason('f818')).toBe('malformed');
    expect(reason('f81f')).toBe('malformed');
    expect(reason('f820')).toBe('type_not_allowed');
    expect(reason('e0')).toBe('type_not_allowed');
  });

  it('refuses tags outside the allow list, including huge tag numbers', () => {
    expect(reason('c0' + '60')).toBe('tag_not_allowed');
    expect(reason('d9d9f7' + '00')).toBe('tag_not_allowed');
    expect(reason('dbffffffffffffffff' + '00', { allowTags: [1] })).toBe('tag_not_allowed');
  });

  it('checks bignums for preferred serialization when they are allowed', () => {
    const bignums = { allowBignums: true };
    expect(reason('c248' + '0100000000000000', bignums)).toBe('non_canonical');
    expect(reason('c24a' + '00' + '010000000000000000', bignums)).toBe('non_canonical');
    expect(reason('c240', bignums)).toBe('non_canonical');
    expect(reason('c201', bignums)).toBe('type_not_allowed');
    expect(reason('c25f40ff', bignums)).toBe('indefinite_length');
    expect(reason('c249' + '01', bignums)).toBe('truncated');
  });

  it('refuses non-canonical floats when floats are allowed', () => {
    const floats = { allowFloats: true };
    expect(reason('f97e01', floats)).toBe('non_canonical');
    expect(reason('f9fe00', floats)).toBe('non_canonical');
    expect(reason('fa3f800000', floats)).toBe('non_canonical');
    expect(reason('fa33800000', floats)).toBe('non_canonical');
    expect(reason('fb3ff0000000000000', floats)).toBe('non_canonical');
    expect(reason('fb3fb99999a0000000', floats)).toBe('non_canonical');
    expect(decodeCanonical(fromHex('fb3fb999999999999a'), floats)).toBe(0.1);
  });
});

describe('CborDecodeError', () => {
  it('is a TollgateError whose code is the stable reason, with the offset in details', () => {
    const error = refusal('a2' + '0200' + '0100');
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ name: 'CborDecodeError', code: 'unsorted_keys', reason: 'unsorted_keys', details: { reason: 'unsorted_keys', offset: 3 } });
    expect(error.message).toContain('byte 3');
  });
});

describe('decodeCanonical: text and input types', () => {
  it.each([
    ['61ff', 'a 0xff byte'],
    ['62c328', 'a bad continuation byte'],
    ['63eda080', 'an encoded surrogate'],
    ['62c0af', 'an overlong form'],
    ['61c3', 'a sequence cut by the string end'],
    ['7828' + '61'.repeat(39) + 'ff', 'a bad byte in a long string'],
  ])('refuses invalid UTF-8: %s (%s)', (hex) => {
    expect(refusal(hex)).toMatchObject({ reason: 'invalid_utf8', details: { offset: 0 } });
  });

  it('keeps a leading byte-order mark so re-encoding stays byte-exact', () => {
    const input = fromHex('64efbbbf61');
    const text = decodeCanonical(input);
    expect(text).toBe('\ufeffa');
    expect(encodeCanonical(text)).toEqual(input);
  });

  it('accepts a Node Buffer and returns plain Uint8Array byte strings', () => {
    const decoded = decodeCanonical(Buffer.from('8142cafe', 'hex')) as Uint8Array[];
    expect(Object.getPrototypeOf(decoded[0])).toBe(Uint8Array.prototype);
    expect(decoded[0]).toEqual(new Uint8Array([0xca, 0xfe]));
  });

  it('decodes a subarray view at a non-zero offset', () => {
    const backing = fromHex('ff' + '820102' + 'ff');
    expect(decodeCanonical(backing.subarray(1, 4))).toEqual([1, 2]);
  });

  it('refuses anything but a Uint8Array as a typed error', () => {
    for (const input of ['00', [0], new ArrayBuffer(1), null, new Uint16Array(1)]) {
      expect(() => decodeCanonical(input as unknown as Uint8Array)).toThrow(
        expect.objectContaining({ name: 'CborDecodeError', reason: 'invalid_input' }),
      );
    }
    expect(reason(new Uint8Array(0))).toBe('truncated');
  });

  it('refuses undefined unless allowed', () => {
    expect(reason('81f7')).toBe('type_not_allowed');
    expect(decodeCanonical(fromHex('81f7'), { allowUndefined: true })).toEqual([undefined]);
  });
});
