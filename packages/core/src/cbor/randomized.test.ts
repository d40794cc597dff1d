import { Decoder } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import {
  CborDecodeError,
  CborFloat,
  decodeCanonical,
  encodeCanonical,
  type CborDecodeReason,
  type CborKey,
  type CborValue,
  type CborValueWithUndefined,
  type DecodeLimits,
  type DecodeOptions,
  type EncodeOptions,
} from './index';

/** mulberry32: a tiny seeded PRNG, so every run explores the same cases and failures reproduce. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

type Random = () => number;
const below = (random: Random, limit: number) => Math.floor(random() * limit);
const pick = <T>(random: Random, items: readonly T[]): T => items[below(random, items.length)] as T;

/** The form the decoder returns for an integer: a number when safe, else a bigint. */
const normalizeInteger = (value: bigint): number | bigint =>
  value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;

function randomInteger(random: Random): number | bigint {
  const bits = pick(random, [4, 8, 16, 32, 53, 64]);
  let magnitude = 0n;
  for (let bit = 0; bit < bits; bit += 16) magnitude = (magnitude << 16n) | BigInt(below(random, 0x10000));
  magnitude &= (1n << BigInt(bits)) - 1n;
  return normalizeInteger(random() < 0.5 ? magnitude : -1n - magnitude);
}

const textPieces = ['a', 'Z', '0', ' ', '\u0000', 'é', 'ü', '水', '😀', '\ufeff', '\u07ff', '\uffff'];

function randomFloat(random: Random): number | CborFloat {
  const view = new DataView(new ArrayBuffer(8));
  const width = pick(random, [2, 4, 8]);
  for (let index = 0; index < width; index++) view.setUint8(index, below(random, 256));
  let value = width === 2 ? Number(view.getUint16(0)) / 1024 - 32 : width === 4 ? view.getFloat32(0) : view.getFloat64(0);
  if (Number.isNaN(value)) value = NaN;
  const integral = Number.isInteger(value) && !Object.is(value, -0) && Math.abs(value) < 2 ** 64;
  return integral ? new CborFloat(value) : value;
}

function randomValue(random: Random, depth: number, floats: boolean): CborValue {
  const kinds = ['int', 'int', 'text', 'bytes', 'bool', 'null', ...(floats ? ['float'] : []), ...(depth < 6 ? ['array', 'map', 'map'] : [])];
  switch (pick(random, kinds)) {
    case 'int':
      return randomInteger(random);
    case 'text':
      return Array.from({ length: below(random, 30) }, () => pick(random, textPieces)).join('');
    case 'bytes':
      return Uint8Array.from({ length: below(random, 40) }, () => below(random, 256));
    case 'bool':
      return random() < 0.5;
    case 'null':
      return null;
    case 'float':
      return randomFloat(random);
    case 'array':
      return Array.from({ length: below(random, 5) }, () => randomValue(random, depth + 1, floats));
    default: {
      const map = new Map<CborKey, CborValue>();
      for (let count = below(random, 6); count > 0; count--) {
        const key = random() < 0.6 ? randomInteger(random) : Array.from({ length: below(random, 4) }, () => pick(random, textPieces)).join('');
        map.set(key, randomValue(random, depth + 1, floats));
      }
      return map;
    }
  }
}

/** A deep copy whose maps list their entries in a shuffled insertion order. */
function shuffled(random: Random, value: CborValue): CborValue {
  if (Array.isArray(value)) return value.map((item) => shuffled(random, item));
  if (!(value instanceof Map)) return value;
  const entries = [...value].map(([key, item]): [CborKey, CborValue] => [key, shuffled(random, item)]);
  for (let index = entries.length - 1; index > 0; index--) {
    const other = below(random, index + 1);
    [entries[index], entries[other]] = [entries[other] as [CborKey, CborValue], entries[index] as [CborKey, CborValue]];
  }
  return new Map(entries);
}

/** cbor-x output in our value model: its 8-byte integers (always bigints) that are safe become numbers, Buffers become Uint8Arrays. */
function fromCborX(value: unknown): unknown {
  if (typeof value === 'bigint') return normalizeInteger(value);
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(fromCborX);
  if (value instanceof Map) return new Map([...value].map(([key, item]) => [fromCborX(key), fromCborX(item)]));
  return value;
}

const toHex = (data: Uint8Array) => Array.from(data, (byte) => byte.toString(16).padStart(2, '0')).join('');

describe('property: random canonical values', () => {
  const independentDecoder = new Decoder({ mapsAsObjects: false, useRecords: false });

  it('encode → decode is the identity, encoding ignores insertion order, and cbor-x reads the same value', () => {
    const random = seededRandom(0x7011_6a7e);
    for (let round = 0; round < 600; round++) {
      const value = randomValue(random, 0, false);
      const encoded = encodeCanonical(value);
      expect(decodeCanonical(encoded)).toStrictEqual(value);
      expect(toHex(encodeCanonical(shuffled(random, value)))).toBe(toHex(encoded));
      expect(fromCborX(independentDecoder.decode(encoded))).toStrictEqual(value);
    }
  });

  it('round-trips random values with floats when floats are allowed', () => {
    const random = seededRandom(0xf10a7);
    const floats = { allowFloats: true } as const;
    for (let round = 0; round < 400; round++) {
      const value = randomValue(random, 0, true);
      const encoded = encodeCanonical(value, floats);
      expect(decodeCanonical(encoded, floats)).toStrictEqual(value);
      expect(toHex(encodeCanonical(shuffled(random, value), floats))).toBe(toHex(encoded));
    }
  });
});

describe('fuzz: random and mutated bytes', () => {
  const interestingBytes = [0x00, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1f, 0x20, 0x38, 0x3b, 0x40, 0x58, 0x5f, 0x60, 0x61, 0x78, 0x7f, 0x80, 0x81, 0x98, 0x9f, 0xa0, 0xa1, 0xa2, 0xb8, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xd8, 0xe0, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xff, 0xc3, 0xed, 0xef];
  const smallLimits: DecodeLimits = { maxInputBytes: 256, maxDepth: 3, maxStringBytes: 8, maxContainerLength: 4, maxTotalItems: 20 };
  const profiles: { decode: DecodeOptions; encode: EncodeOptions }[] = [
    { decode: {}, encode: {} },
    {
      decode: { allowFloats: true, allowUndefined: true, allowBignums: true, allowTags: [0, 1, 18, 24] },
      encode: { allowFloats: true, allowUndefined: true, allowBignums: true, allowTags: [0, 1, 18, 24] },
    },
    { decode: { limits: smallLimits, allowTags: [2] }, encode: { maxDepth: 3, allowTags: [2] } },
  ];
  const reasons: CborDecodeReason[] = [
    'invalid_input', 'truncated', 'trailing_bytes', 'malformed', 'non_canonical', 'indefinite_length', 'unsorted_keys', 'duplicate_key',
    'invalid_key', 'type_not_allowed', 'float_not_allowed', 'tag_not_allowed', 'depth_exceeded', 'too_large', 'invalid_utf8',
  ];

  function mutate(random: Random, input: Uint8Array): Uint8Array {
    const bytes = [...input];
    for (let edits = 1 + below(random, 3); edits > 0; edits--) {
      const at = below(random, bytes.length + 1);
      const byte = random() < 0.5 ? below(random, 256) : pick(random, interestingBytes);
      switch (below(random, 6)) {
        case 0: if (at < bytes.length) bytes[at] = byte; break;
        case 1: bytes.splice(at, 0, byte); break;
        case 2: bytes.splice(at, 1); break;
        case 3: bytes.length = at; break;
        case 4: bytes.splice(at, 0, ...bytes.slice(at, at + 1 + below(random, 8))); break;
        default: if (at < bytes.length) bytes[at] = (bytes[at] as number) ^ (1 << below(random, 8));
      }
    }
    return Uint8Array.from(bytes);
  }

  it('every outcome is a canonical value or a CborDecodeError, over 6,000 inputs', () => {
    const random = seededRandom(0xf022);
    const outcomes = { accepted: 0, refused: 0 };
    for (let round = 0; round < 6000; round++) {
      const profile = profiles[round % profiles.length] as (typeof profiles)[number];
      let input: Uint8Array;
      if (round % 3 === 0) {
        input = Uint8Array.from({ length: below(random, 48) }, () => (random() < 0.5 ? below(random, 256) : pick(random, interestingBytes)));
      } else {
        input = mutate(random, encodeCanonical(randomValue(random, 0, round % 3 === 1), { allowFloats: true }));
      }
      let decoded: CborValueWithUndefined;
      try {
        decoded = decodeCanonical(input, profile.decode);
      } catch (error) {
        if (!(error instanceof CborDecodeError)) throw new Error(`non-typed failure on ${toHex(input)}`, { cause: error });
        expect(reasons).toContain(error.reason);
        expect(error.details.offset).toBeGreaterThanOrEqual(0);
        expect(error.details.offset).toBeLessThanOrEqual(input.length);
        outcomes.refused++;
        continue;
      }
      // Whatever the strict decoder accepts is exactly the canonical encoding of what it returned.
      expect(toHex(encodeCanonical(decoded, { ...profile.encode, allowUndefined: true }))).toBe(toHex(input));
      outcomes.accepted++;
    }
    expect(outcomes.accepted + outcomes.refused).toBe(6000);
    expect(outcomes.accepted).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(1000);
  });
});
