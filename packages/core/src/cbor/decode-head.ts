import { CborDecodeError, type CborDecodeReason } from './errors';
import type { DecodeLimits } from './limits';

// Head and string reading for the strict decoder (decode.ts): every check that concerns a single head or a
// string payload lives here, the structure (containers, keys, tags, floats) lives there.

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const twoTo32 = 2 ** 32;

/** Mutable cursor and settings of one `decodeCanonical` call. */
export interface DecoderState {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly limits: DecodeLimits;
  readonly allowFloats: boolean;
  readonly allowUndefined: boolean;
  readonly allowBignums: boolean;
  readonly allowedTags: ReadonlySet<number>;
  position: number;
  items: number;
  /** Argument of the head just read; exact below 2^53 (see `bigArgument` above that). */
  argument: number;
  /** Argument of the head just read when it is 2^53 or more, otherwise null. */
  bigArgument: bigint | null;
}

/** Throws the decoder's typed error; the message names the byte offset. */
export function fail(reason: CborDecodeReason, message: string, offset: number): never {
  throw new CborDecodeError(reason, `${message} (at byte ${offset}).`, { offset });
}

/** Refuses as `truncated` unless `count` more bytes remain. */
export function need(state: DecoderState, count: number, itemStart: number): void {
  if (state.bytes.length - state.position < count) fail('truncated', 'Input ends inside an item', itemStart);
}

/** Reads a head of major types 0–6, checking that its argument uses the shortest form. */
export function readHead(state: DecoderState, start: number): void {
  const { bytes, view } = state;
  const major = (bytes[start] as number) >>> 5;
  const info = (bytes[start] as number) & 0x1f;
  state.position = start + 1;
  state.bigArgument = null;
  if (info < 24) {
    state.argument = info;
    return;
  }
  if (info === 31) {
    if (major >= 2 && major <= 5) fail('indefinite_length', 'Indefinite-length items are not canonical', start);
    fail('malformed', `Additional information 31 is not valid for major type ${major}`, start);
  }
  if (info > 27) fail('malformed', `Additional information ${info} is reserved`, start);
  const size = 1 << (info - 24);
  need(state, size, start);
  const at = state.position;
  let minimum: number;
  if (info === 24) {
    state.argument = bytes[at] as number;
    minimum = 24;
  } else if (info === 25) {
    state.argument = view.getUint16(at);
    minimum = 0x100;
  } else if (info === 26) {
    state.argument = view.getUint32(at);
    minimum = 0x10000;
  } else {
    const high = view.getUint32(at);
    const low = view.getUint32(at + 4);
    minimum = twoTo32;
    state.argument = high * twoTo32 + low;
    if (high >= 0x200000) state.bigArgument = (BigInt(high) << 32n) | BigInt(low);
  }
  if (state.argument < minimum) fail('non_canonical', 'Integer or length is not in its shortest form', start);
  state.position = at + size;
}

/** Checks a string length against the limits and the input, moves past the content, returns the length. */
export function readStringLength(state: DecoderState, start: number): number {
  const length = state.argument;
  if (state.bigArgument !== null || length > state.limits.maxStringBytes) {
    fail('too_large', `String is longer than ${state.limits.maxStringBytes} bytes`, start);
  }
  need(state, length, start);
  state.position += length;
  return length;
}

/**
 * Decodes the `length` bytes just passed as strict UTF-8. The decoder is fatal (no U+FFFD substitution)
 * and keeps a leading BOM, so the string re-encodes to exactly these bytes.
 */
export function decodeText(state: DecoderState, length: number, start: number): string {
  try {
    return utf8Decoder.decode(state.bytes.subarray(state.position - length, state.position));
  } catch {
    return fail('invalid_utf8', 'Text string is not valid UTF-8', start);
  }
}
