import { decodeText, fail, need, readHead, readStringLength, type DecoderState } from './decode-head';
import { CborDecodeError } from './errors';
import { canonicalNaNBits, fromFloat16Bits, toFloat16Bits } from './float16';
import { compareKeyRanges } from './key-order';
import { resolveDecodeLimits, type DecodeLimits } from './limits';
import { CborFloat, CborTag, type CborKey, type CborValue, type CborValueWithUndefined } from './values';

/** Options of {@link decodeCanonical}. The default accepts uint, nint, bytes, text, array, map, bool, null. */
export interface DecodeOptions {
  /** Limits merged over {@link clientDecodeLimits}; pass {@link bulkDecodeLimits} for large documents. */
  readonly limits?: Partial<DecodeLimits>;
  /**
   * Accept floats in their shortest exact form (NaN only as `f97e00`). Integral floats come back as
   * {@link CborFloat} so that re-encoding is byte-exact; other floats as plain numbers.
   */
  readonly allowFloats?: boolean;
  /** Accept CBOR undefined (`f7`) and return it as JS `undefined`. */
  readonly allowUndefined?: boolean;
  /** Tag numbers to accept; their content is returned, uninterpreted, in a {@link CborTag}. */
  readonly allowTags?: readonly number[];
  /**
   * Accept bignums (tags 2 and 3) for integers beyond 64 bits and return them as `bigint`. A bignum whose
   * value fits 64 bits or whose bytes have a leading zero is `non_canonical`. Takes precedence over
   * `allowTags` for tags 2 and 3.
   */
  readonly allowBignums?: boolean;
}

type Decoded = CborValueWithUndefined;

const twoTo64 = 2 ** 64;
const noTags: ReadonlySet<number> = new Set();

/**
 * Decodes one canonical CBOR item and refuses everything else. Whatever it accepts re-encodes with
 * {@link encodeCanonical} (matching options) to exactly the input bytes.
 *
 * Refused, each with a {@link CborDecodeError} naming the reason and byte offset: non-shortest heads,
 * lengths and floats; indefinite lengths; unsorted or duplicate map keys; map keys that are not integers
 * or text; tags, floats, undefined and simple values unless allowed; invalid UTF-8; truncated input;
 * trailing bytes; anything over the {@link DecodeLimits}. Work is linear in the input size.
 *
 * Integers come back as `number` when |n| ≤ 2^53 − 1, else `bigint`; byte strings as fresh plain
 * `Uint8Array`s (never views of the input, never Node `Buffer`s); maps as `Map`.
 *
 * @param bytes - The encoded item (a Node `Buffer` is accepted).
 * @param options - Opt-ins and limits; see {@link DecodeOptions}. Invalid limits throw `RangeError`.
 * @returns The decoded value.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * const request = decodeCanonical(body) as Map<number, unknown>; // throws CborDecodeError on bad input
 * ```
 */
export function decodeCanonical(bytes: Uint8Array, options?: DecodeOptions & { readonly allowUndefined?: false }): CborValue;
export function decodeCanonical(bytes: Uint8Array, options?: DecodeOptions): CborValueWithUndefined;
export function decodeCanonical(bytes: Uint8Array, options: DecodeOptions = {}): CborValueWithUndefined {
  const limits = resolveDecodeLimits(options.limits);
  if (!(bytes instanceof Uint8Array)) throw new CborDecodeError('invalid_input', 'CBOR input must be a Uint8Array.', { offset: 0 });
  if (bytes.length > limits.maxInputBytes) fail('too_large', `Input is larger than ${limits.maxInputBytes} bytes`, 0);
  // A plain view over the same memory: slices of it are plain Uint8Arrays even when the input is a Buffer.
  const plain = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const state: DecoderState = {
    bytes: plain,
    view: new DataView(plain.buffer, plain.byteOffset, plain.byteLength),
    limits,
    allowFloats: options.allowFloats === true,
    allowUndefined: options.allowUndefined === true,
    allowBignums: options.allowBignums === true,
    allowedTags: options.allowTags === undefined ? noTags : new Set(options.allowTags),
    position: 0,
    items: 0,
    argument: 0,
    bigArgument: null,
  };
  const value = decodeItem(state, 0);
  if (state.position !== plain.length) fail('trailing_bytes', 'Bytes follow the top-level item', state.position);
  return value;
}

function decodeItem(state: DecoderState, depth: number): Decoded {
  const start = state.position;
  if (++state.items > state.limits.maxTotalItems) fail('too_large', `More than ${state.limits.maxTotalItems} items`, start);
  need(state, 1, start);
  const major = (state.bytes[start] as number) >>> 5;
  if (major === 7) return decodeSimpleOrFloat(state, start);
  readHead(state, start);
  switch (major) {
    case 0:
      return state.bigArgument ?? state.argument;
    case 1:
      if (state.bigArgument !== null) return -1n - state.bigArgument;
      return state.argument < Number.MAX_SAFE_INTEGER ? -1 - state.argument : -1n - BigInt(state.argument);
    case 2: {
      const length = readStringLength(state, start);
      return state.bytes.slice(state.position - length, state.position);
    }
    case 3:
      return decodeText(state, readStringLength(state, start), start);
    case 4:
      return decodeArray(state, depth, start);
    case 5:
      return decodeMap(state, depth, start);
    default:
      return decodeTag(state, depth, start);
  }
}

/** Opens a container: checks depth, entry count against the limits, and that the input can hold it. */
function openContainer(state: DecoderState, depth: number, start: number, itemsPerEntry: number): number {
  const { limits } = state;
  if (depth >= limits.maxDepth) fail('depth_exceeded', `Nesting is deeper than ${limits.maxDepth}`, start);
  const length = state.argument;
  if (state.bigArgument !== null || length > limits.maxContainerLength) {
    fail('too_large', `Container has more than ${limits.maxContainerLength} entries`, start);
  }
  // Every item takes at least one byte, so a length the remaining input cannot hold is a truncation.
  need(state, length * itemsPerEntry, start);
  return length;
}

function decodeArray(state: DecoderState, depth: number, start: number): Decoded[] {
  const length = openContainer(state, depth, start, 1);
  const array: Decoded[] = [];
  for (let index = 0; index < length; index++) array.push(decodeItem(state, depth + 1));
  return array;
}

function decodeMap(state: DecoderState, depth: number, start: number): Map<CborKey, Decoded> {
  const length = openContainer(state, depth, start, 2);
  const { bytes } = state;
  const map = new Map<CborKey, Decoded>();
  let previousStart = -1;
  let previousEnd = -1;
  for (let index = 0; index < length; index++) {
    const keyStart = state.position;
    need(state, 1, keyStart);
    const keyMajor = (bytes[keyStart] as number) >>> 5;
    if (keyMajor !== 0 && keyMajor !== 1 && keyMajor !== 3) fail('invalid_key', 'Map keys must be integers or text strings', keyStart);
    const key = decodeItem(state, depth + 1) as CborKey;
    const keyEnd = state.position;
    if (previousStart >= 0) {
      const order = compareKeyRanges(bytes, previousStart, previousEnd, keyStart, keyEnd);
      if (order === 0) fail('duplicate_key', 'Map key appears twice', keyStart);
      if (order > 0) fail('unsorted_keys', 'Map keys are not in bytewise order of their encoding', keyStart);
    }
    previousStart = keyStart;
    previousEnd = keyEnd;
    map.set(key, decodeItem(state, depth + 1));
  }
  return map;
}

function decodeTag(state: DecoderState, depth: number, start: number): Decoded {
  const tag = state.bigArgument === null ? state.argument : -1;
  if (state.allowBignums && (tag === 2 || tag === 3)) return decodeBignum(state, tag, start);
  if (tag < 0 || !Number.isSafeInteger(tag) || !state.allowedTags.has(tag)) fail('tag_not_allowed', `Tag ${state.bigArgument ?? tag} is not allowed`, start);
  if (depth >= state.limits.maxDepth) fail('depth_exceeded', `Nesting is deeper than ${state.limits.maxDepth}`, start);
  return new CborTag<Decoded>(tag, decodeItem(state, depth + 1));
}

function decodeBignum(state: DecoderState, tag: number, start: number): bigint {
  const contentStart = state.position;
  if (++state.items > state.limits.maxTotalItems) fail('too_large', `More than ${state.limits.maxTotalItems} items`, contentStart);
  need(state, 1, contentStart);
  if ((state.bytes[contentStart] as number) >>> 5 !== 2) fail('type_not_allowed', 'A bignum must hold a byte string', contentStart);
  readHead(state, contentStart);
  const length = readStringLength(state, contentStart);
  const content = state.bytes.subarray(state.position - length, state.position);
  // Preferred serialization: no leading zero bytes, and only for values that do not fit 64 bits.
  if (length <= 8 || content[0] === 0) fail('non_canonical', 'Bignum fits a plain integer or has leading zeros', start);
  let hex = '0x';
  for (const byte of content) hex += byte.toString(16).padStart(2, '0');
  const magnitude = BigInt(hex);
  return tag === 2 ? magnitude : -1n - magnitude;
}

function decodeSimpleOrFloat(state: DecoderState, start: number): Decoded {
  const { view } = state;
  const info = (state.bytes[start] as number) & 0x1f;
  state.position = start + 1;
  if (info === 20) return false;
  if (info === 21) return true;
  if (info === 22) return null;
  if (info === 23) {
    if (!state.allowUndefined) fail('type_not_allowed', 'undefined is not allowed', start);
    return undefined;
  }
  if (info < 20) fail('type_not_allowed', `Simple value ${info} is not allowed`, start);
  if (info === 24) {
    need(state, 1, start);
    const simple = state.bytes[start + 1] as number;
    if (simple < 32) fail('malformed', `Simple value ${simple} must use the one-byte form`, start);
    fail('type_not_allowed', `Simple value ${simple} is not allowed`, start);
  }
  if (info === 31) fail('malformed', 'Break byte outside an indefinite-length item', start);
  if (info > 27) fail('malformed', `Additional information ${info} is reserved`, start);
  if (!state.allowFloats) fail('float_not_allowed', 'Floats are not allowed', start);
  const size = 1 << (info - 24);
  need(state, size, start);
  state.position += size;
  let value: number;
  if (info === 25) {
    const bits = view.getUint16(start + 1);
    value = fromFloat16Bits(bits);
    if (Number.isNaN(value) && bits !== canonicalNaNBits) fail('non_canonical', 'NaN must be encoded as f97e00', start);
  } else {
    value = info === 26 ? view.getFloat32(start + 1) : view.getFloat64(start + 1);
    const fitsShorter = info === 26 ? toFloat16Bits(value) !== undefined : Math.fround(value) === value;
    if (Number.isNaN(value) || fitsShorter) fail('non_canonical', 'Float is not in its shortest exact form', start);
  }
  // A plain number with an integral value would re-encode as an integer, so keep the float kind explicit.
  const wouldBeInteger = Number.isInteger(value) && !Object.is(value, -0) && value >= -twoTo64 && value < twoTo64;
  return wouldBeInteger ? new CborFloat(value) : value;
}
