import { ByteWriter } from './byte-writer';
import { CborEncodeError, type CborEncodeReason } from './errors';
import { toFloat16Bits } from './float16';
import { compareKeyRanges } from './key-order';
import { maxCborDepth } from './limits';
import { CborFloat, CborTag, type CborValue, type CborValueWithUndefined } from './values';

/** Options of {@link encodeCanonical}. Everything outside the default subset is opt-in. */
export interface EncodeOptions {
  /**
   * Encode non-integral numbers, NaN, ±Infinity and {@link CborFloat} as the shortest float (16, 32 or 64
   * bits) that holds the value exactly, NaN as `f97e00`, and -0 as `f98000`. Default `false`: signed
   * payloads carry no floats.
   */
  readonly allowFloats?: boolean;
  /** Encode JS `undefined` as CBOR undefined (`f7`). Default `false`: absent optionals are omitted. */
  readonly allowUndefined?: boolean;
  /** Tag numbers that {@link CborTag} values may carry. Default: none. */
  readonly allowTags?: readonly number[];
  /** Encode bigints outside the 64-bit range as bignums (tags 2 and 3). Default `false`: refuse them. */
  readonly allowBignums?: boolean;
  /** Deepest nesting written (arrays, maps and tags each open a level); default 16, at most 256. */
  readonly maxDepth?: number;
}

interface EncoderState {
  readonly writer: ByteWriter;
  readonly allowFloats: boolean;
  readonly allowUndefined: boolean;
  readonly allowBignums: boolean;
  readonly allowedTags: ReadonlySet<number>;
  readonly maxDepth: number;
  /**
   * One key buffer per nesting depth, reused: a map's keys must stay intact while its values (which may
   * hold deeper maps) are written, and maps at the same depth never overlap in time.
   */
  readonly keyWriters: ByteWriter[];
  /** Where the encoder is: array indexes, map entries and tags, turned into text only when it fails. */
  readonly path: PathSegment[];
}

interface MapEntry {
  readonly key: unknown;
  readonly value: unknown;
  /** Range of the key's encoding in the map's key buffer. */
  start: number;
  end: number;
}

type PathSegment = number | MapEntry | CborTag<unknown>;

const twoTo53 = 2 ** 53;
const twoTo64 = 2 ** 64;
const noTags: ReadonlySet<number> = new Set();
const bigTwoTo64 = 1n << 64n;

/**
 * Encodes a value as deterministic CBOR (RFC 8949 §4.2.1): shortest-form heads, definite lengths, map keys
 * sorted bytewise by their encoding (at every level), integers as integers whatever their JS type, byte
 * strings untagged. The same value always gives the same bytes, whatever the `Map` insertion order, so the
 * output can be signed and hashed. A JS number with an integral value within ±2^64 is always written as an
 * integer (so is -0, unless floats are allowed); wrap a number in {@link CborFloat} to force a float.
 *
 * Refused with a {@link CborEncodeError}: plain objects and anything else outside {@link CborValue}; floats,
 * NaN/±Infinity, `undefined`, tags and integers beyond 64 bits unless the options allow them; duplicate
 * keys after normalisation (`1` and `1n`); strings with lone surrogates; nesting beyond `maxDepth`.
 *
 * @param value - The value to encode.
 * @param options - Opt-ins beyond the default subset; see {@link EncodeOptions}.
 * @returns A fresh plain `Uint8Array`.
 *
 * @example
 * ```ts
 * import { encodeCanonical } from '@tollgate/core/cbor';
 * encodeCanonical(new Map<number, string | number>([[1, 'a'], [0, 2 ** 40]])); // a2 00 1b0000010000000000 01 6161
 * ```
 */
export function encodeCanonical(value: CborValue, options?: EncodeOptions): Uint8Array;
export function encodeCanonical(value: CborValueWithUndefined, options: EncodeOptions & { readonly allowUndefined: true }): Uint8Array;
export function encodeCanonical(value: CborValueWithUndefined, options: EncodeOptions = {}): Uint8Array {
  const maxDepth = options.maxDepth ?? 16;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0 || maxDepth > maxCborDepth) {
    throw new RangeError(`CBOR encode maxDepth must be an integer from 0 to ${maxCborDepth}.`);
  }
  const state: EncoderState = {
    writer: new ByteWriter(),
    allowFloats: options.allowFloats === true,
    allowUndefined: options.allowUndefined === true,
    allowBignums: options.allowBignums === true,
    allowedTags: options.allowTags === undefined ? noTags : new Set(options.allowTags),
    maxDepth,
    keyWriters: [],
    path: [],
  };
  encodeItem(state, value, 0);
  return state.writer.toBytes();
}

function fail(state: EncoderState, reason: CborEncodeReason, message: string): never {
  let path = '$';
  for (const segment of state.path) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (segment instanceof CborTag) path += `(${segment.tag})`;
    else path += `{${typeof segment.key === 'string' ? JSON.stringify(segment.key) : String(segment.key)}}`;
  }
  throw new CborEncodeError(reason, `${message} (at ${path})`, { path });
}

function encodeItem(state: EncoderState, value: unknown, depth: number): void {
  switch (typeof value) {
    case 'number':
      return encodeNumber(state, value);
    case 'bigint':
      return encodeBigInt(state, value);
    case 'string':
      return encodeText(state, state.writer, value);
    case 'boolean':
      return state.writer.writeByte(value ? 0xf5 : 0xf4);
    case 'undefined':
      if (!state.allowUndefined) fail(state, 'type_not_allowed', 'undefined is not encodable; omit absent optionals');
      return state.writer.writeByte(0xf7);
    case 'object':
      return encodeObject(state, value, depth);
    default:
      fail(state, 'type_not_allowed', `A ${typeof value} is not encodable`);
  }
}

function encodeObject(state: EncoderState, value: object | null, depth: number): void {
  const { writer } = state;
  if (value === null) return writer.writeByte(0xf6);
  if (value instanceof Uint8Array) {
    writer.writeHead(2, value.length);
    return writer.writeBytes(value);
  }
  if (value instanceof CborFloat) {
    if (typeof value.value !== 'number') fail(state, 'type_not_allowed', 'CborFloat must hold a number');
    if (!state.allowFloats) fail(state, 'float_not_allowed', 'Floats are not allowed');
    return encodeFloat(writer, value.value);
  }
  if (Array.isArray(value)) {
    enterContainer(state, depth);
    writer.writeHead(4, value.length);
    for (let index = 0; index < value.length; index++) {
      state.path.push(index);
      encodeItem(state, value[index], depth + 1);
      state.path.pop();
    }
    return;
  }
  if (value instanceof Map) {
    enterContainer(state, depth);
    return encodeMap(state, value as Map<unknown, unknown>, depth);
  }
  if (value instanceof CborTag) {
    const tag: unknown = value.tag;
    if (typeof tag !== 'number' || !Number.isSafeInteger(tag) || tag < 0 || !state.allowedTags.has(tag)) {
      fail(state, 'tag_not_allowed', `Tag ${String(tag)} is not allowed`);
    }
    enterContainer(state, depth);
    writer.writeHead(6, tag);
    state.path.push(value);
    encodeItem(state, value.value, depth + 1);
    state.path.pop();
    return;
  }
  const kind = Object.getPrototypeOf(value) === Object.prototype ? 'plain object (use a Map)' : (value.constructor?.name ?? 'object');
  fail(state, 'type_not_allowed', `A ${kind} is not encodable`);
}

/** Arrays, maps and tags each open a nesting level; this also stops reference cycles. */
function enterContainer(state: EncoderState, depth: number): void {
  if (depth >= state.maxDepth) fail(state, 'depth_exceeded', `Nesting is deeper than ${state.maxDepth}`);
}

function encodeMap(state: EncoderState, map: Map<unknown, unknown>, depth: number): void {
  // Keys are encoded first, into the key buffer of this depth, so they can be sorted by their encoded bytes.
  const keys = (state.keyWriters[depth] ??= new ByteWriter(64));
  keys.reset();
  const entries: MapEntry[] = [];
  for (const [key, value] of map) {
    const entry: MapEntry = { key, value, start: keys.length, end: 0 };
    state.path.push(entry);
    encodeKey(state, keys, key);
    state.path.pop();
    entry.end = keys.length;
    entries.push(entry);
  }
  const keyBytes = keys.subarray(0, keys.length);
  const order = (a: MapEntry, b: MapEntry) => compareKeyRanges(keyBytes, a.start, a.end, b.start, b.end);
  entries.sort(order);
  for (let index = 1; index < entries.length; index++) {
    const current = entries[index] as MapEntry;
    if (order(entries[index - 1] as MapEntry, current) === 0) {
      state.path.push(current);
      fail(state, 'duplicate_key', 'Two map keys have the same encoding');
    }
  }
  state.writer.writeHead(5, entries.length);
  for (const entry of entries) {
    state.writer.writeBytes(keyBytes.subarray(entry.start, entry.end));
    state.path.push(entry);
    encodeItem(state, entry.value, depth + 1);
    state.path.pop();
  }
}

function encodeKey(state: EncoderState, writer: ByteWriter, key: unknown): void {
  if (typeof key === 'string') return encodeText(state, writer, key);
  if (typeof key === 'number' && Number.isSafeInteger(key)) return key >= 0 ? writer.writeHead(0, key) : writer.writeHead(1, -1 - key);
  if (typeof key !== 'bigint' && !(typeof key === 'number' && Number.isInteger(key))) {
    fail(state, 'invalid_key', 'Map keys must be integers or text strings');
  }
  const integer = BigInt(key);
  if (integer >= bigTwoTo64 || integer < -bigTwoTo64) fail(state, 'invalid_key', 'Integer map keys must fit in 64 bits');
  writeInteger(writer, integer);
}

function encodeNumber(state: EncoderState, value: number): void {
  // An integral JS number is an integer, except -0 when floats are on: there it must keep its sign.
  const integral = Number.isInteger(value) && !(state.allowFloats && Object.is(value, -0));
  if (integral && value >= -twoTo64 && value < twoTo64) {
    if (value >= 0 && value < twoTo53) return state.writer.writeHead(0, value);
    if (value < 0 && value > -twoTo53) return state.writer.writeHead(1, -1 - value);
    return writeInteger(state.writer, BigInt(value));
  }
  if (!state.allowFloats) {
    if (!Number.isFinite(value)) fail(state, 'non_finite', `${value} is not encodable without allowFloats`);
    if (integral) fail(state, 'integer_out_of_range', 'Integer is outside the 64-bit CBOR range');
    fail(state, 'float_not_allowed', 'Floats are not allowed');
  }
  encodeFloat(state.writer, value);
}

function encodeBigInt(state: EncoderState, value: bigint): void {
  if (value < bigTwoTo64 && value >= -bigTwoTo64) return writeInteger(state.writer, value);
  if (!state.allowBignums) fail(state, 'integer_out_of_range', 'Integer is outside the 64-bit CBOR range');
  // Bignum (RFC 8949 §3.4.3): tag 2 holds n, tag 3 holds -1 - n, as big-endian bytes without leading zeros.
  const negative = value < 0n;
  const magnitude = negative ? -1n - value : value;
  let hex = magnitude.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  state.writer.writeHead(6, negative ? 3 : 2);
  state.writer.writeHead(2, bytes.length);
  state.writer.writeBytes(bytes);
}

/** Writes an integer known to be in [-2^64, 2^64). */
function writeInteger(writer: ByteWriter, value: bigint): void {
  if (value >= 0n) writer.writeBigHead(0, value);
  else writer.writeBigHead(1, -1n - value);
}

function encodeText(state: EncoderState, writer: ByteWriter, text: string): void {
  if (!writer.writeText(text)) fail(state, 'invalid_utf8', 'Text contains a lone surrogate');
}

/** Writes the shortest of binary16/32/64 that holds `value` exactly (RFC 8949 preferred serialization). */
function encodeFloat(writer: ByteWriter, value: number): void {
  const half = toFloat16Bits(value);
  if (half !== undefined) {
    writer.writeByte(0xf9);
    writer.writeUint16(half);
  } else if (Math.fround(value) === value) {
    writer.writeByte(0xfa);
    writer.writeFloat32(value);
  } else {
    writer.writeByte(0xfb);
    writer.writeFloat64(value);
  }
}
