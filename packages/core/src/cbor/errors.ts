import { TollgateError } from '../errors/base';

/**
 * Why `decodeCanonical` (or a field reader) refused its input. Stable: callers and tests match on it.
 *
 * - `invalid_input`: the input is not a `Uint8Array`;
 * - `truncated`: the input ends inside an item; `trailing_bytes`: bytes follow the top-level item;
 * - `malformed`: not well-formed CBOR (reserved additional info 28–30, a break byte outside an
 *   indefinite-length item, a two-byte simple value below 32);
 * - `non_canonical`: a head, length or float that is longer than its shortest form, a NaN other than
 *   `f97e00`, or a bignum that fits a plain integer;
 * - `indefinite_length`: an indefinite-length string, array or map;
 * - `unsorted_keys` / `duplicate_key`: map keys not in strictly increasing bytewise order of their encoding;
 * - `invalid_key`: a map key that is neither an integer nor a text string;
 * - `type_not_allowed` / `float_not_allowed` / `tag_not_allowed`: an item outside the allowed set;
 * - `depth_exceeded` / `too_large`: a limit from {@link DecodeLimits} was crossed;
 * - `invalid_utf8`: a text string that is not valid UTF-8;
 * - `missing_key` / `wrong_type`: raised by the field readers (`readCborField`, `expectCborMap`).
 */
export type CborDecodeReason =
  | 'invalid_input'
  | 'truncated'
  | 'trailing_bytes'
  | 'malformed'
  | 'non_canonical'
  | 'indefinite_length'
  | 'unsorted_keys'
  | 'duplicate_key'
  | 'invalid_key'
  | 'type_not_allowed'
  | 'float_not_allowed'
  | 'tag_not_allowed'
  | 'depth_exceeded'
  | 'too_large'
  | 'invalid_utf8'
  | 'missing_key'
  | 'wrong_type';

/**
 * Why `encodeCanonical` refused a value. Stable: callers and tests match on it.
 *
 * - `type_not_allowed`: a value outside {@link CborValue} (plain object, function, `undefined` without
 *   `allowUndefined`, a typed array other than `Uint8Array`, …);
 * - `float_not_allowed`: a non-integral number or a {@link CborFloat} without `allowFloats`;
 * - `non_finite`: NaN or ±Infinity without `allowFloats`;
 * - `integer_out_of_range`: an integer outside the 64-bit CBOR range without `allowBignums`;
 * - `duplicate_key`: two map keys with the same encoding (for example `1` and `1n`);
 * - `invalid_key`: a map key that is not an integer or a text string;
 * - `tag_not_allowed`: a {@link CborTag} whose number is not in `allowTags` (or not a valid tag number);
 * - `depth_exceeded`: nesting deeper than `maxDepth` (this also stops reference cycles);
 * - `invalid_utf8`: a string with a lone surrogate, which has no UTF-8 form.
 */
export type CborEncodeReason =
  | 'type_not_allowed'
  | 'float_not_allowed'
  | 'non_finite'
  | 'integer_out_of_range'
  | 'duplicate_key'
  | 'invalid_key'
  | 'tag_not_allowed'
  | 'depth_exceeded'
  | 'invalid_utf8';

/**
 * The only error `decodeCanonical` throws for a bad input. `code` and `reason` hold the same stable
 * {@link CborDecodeReason}; `details.offset` is the byte offset of the offending item (or of the end of
 * input for `truncated`). The HTTP layer maps it to a malformed-body refusal, the license layer to 1000.
 *
 * @example
 * ```ts
 * import { decodeCanonical, CborDecodeError } from '@tollgate/core/cbor';
 * try {
 *   decodeCanonical(new Uint8Array([0x18, 0x01]));
 * } catch (error) {
 *   if (error instanceof CborDecodeError) console.log(error.reason, error.details.offset); // non_canonical 0
 * }
 * ```
 */
export class CborDecodeError extends TollgateError {
  override readonly name = 'CborDecodeError';
  declare readonly code: CborDecodeReason;
  /** The stable refusal reason (same value as `code`). */
  readonly reason: CborDecodeReason;

  /**
   * @param reason - Why the input was refused.
   * @param message - A human explanation.
   * @param details - Caller-safe facts: at least `offset` for decoder errors, `key` for field readers.
   */
  constructor(reason: CborDecodeReason, message: string, details: Record<string, unknown> = {}) {
    super(reason, message, { details: { reason, ...details } });
    this.reason = reason;
  }
}

/**
 * The only error `encodeCanonical` throws. `code` and `reason` hold the same stable
 * {@link CborEncodeReason}; `details.path` locates the refused value (`$`, `$[2]`, `${5}` for the value
 * under map key 5).
 *
 * @example
 * ```ts
 * import { encodeCanonical, CborEncodeError } from '@tollgate/core/cbor';
 * try {
 *   encodeCanonical([1.5]);
 * } catch (error) {
 *   if (error instanceof CborEncodeError) console.log(error.reason, error.details.path); // float_not_allowed $[0]
 * }
 * ```
 */
export class CborEncodeError extends TollgateError {
  override readonly name = 'CborEncodeError';
  declare readonly code: CborEncodeReason;
  /** The stable refusal reason (same value as `code`). */
  readonly reason: CborEncodeReason;

  /**
   * @param reason - Why the value was refused.
   * @param message - A human explanation.
   * @param details - Caller-safe facts, at least `path`.
   */
  constructor(reason: CborEncodeReason, message: string, details: Record<string, unknown> = {}) {
    super(reason, message, { details: { reason, ...details } });
    this.reason = reason;
  }
}
