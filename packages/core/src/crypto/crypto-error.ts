import { TollgateError, type TollgateErrorOptions } from '../errors/base';

/**
 * Why a crypto-floor function refused its input:
 * - `invalid_encoding`: hex, base64 or UTF-8 text that does not decode canonically;
 * - `invalid_key`: key material of the wrong length or strength;
 * - `invalid_argument`: any other argument outside the function's contract (a negative length, an empty
 *   `kid`, a malformed keyed-hash label, a value that is not a `Uint8Array`).
 */
export type CryptoErrorCode = 'invalid_encoding' | 'invalid_key' | 'invalid_argument';

/**
 * The typed refusal of the crypto ground floor. Callers at the HTTP boundary translate it into their own
 * envelope (for example the gateway's `invalid_request`). Its `details` never contain the refused input,
 * because that input may be a secret (a token, a key); they name the encoding and the reason instead.
 *
 * @example
 * ```ts
 * import { base64Decode, CryptoError } from '@tollgate/core/crypto';
 * try {
 *   base64Decode('a===');
 * } catch (error) {
 *   if (error instanceof CryptoError) console.log(error.code, error.details); // invalid_encoding { encoding: 'base64', reason: 'bad_padding' }
 * }
 * ```
 */
export class CryptoError extends TollgateError {
  override readonly name = 'CryptoError';
  declare readonly code: CryptoErrorCode;

  /**
   * @param code - The refusal kind.
   * @param message - A human explanation that never quotes the refused value.
   * @param options - Caller-safe `details` and an optional `cause`.
   */
  constructor(code: CryptoErrorCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
  }
}

/** Throws `invalid_argument` unless `value` is a `Uint8Array` (a Node `Buffer` qualifies). */
export function assertBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new CryptoError('invalid_argument', `${name} must be a Uint8Array.`, { details: { argument: name } });
  }
}
