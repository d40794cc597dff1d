import { CryptoError } from './crypto-error';
import { hexEncode } from './hex';

/**
 * A source of cryptographically secure random bytes. Services take one as a dependency (defaulting to
 * {@link randomBytes}) so that tests can make identifiers and keys deterministic without patching globals.
 * Contract: returns a fresh `Uint8Array` of exactly `length` bytes that the caller may keep and mutate.
 *
 * @example
 * ```ts
 * import { randomId, type RandomSource } from '@tollgate/core/crypto';
 * const fixed: RandomSource = (length) => new Uint8Array(length).fill(7);
 * randomId(fixed); // '07070707070707070707070707070707'
 * ```
 */
export type RandomSource = (length: number) => Uint8Array;

/** Web Crypto refuses to fill more than 65,536 bytes per call. */
const MAX_BYTES_PER_DRAW = 65_536;

/**
 * Draws `length` bytes from the platform CSPRNG (`crypto.getRandomValues`, available in Node 20,
 * browsers and workers).
 *
 * @param length - How many bytes, a non-negative safe integer.
 * @returns Fresh random bytes.
 * @throws {@link CryptoError} `invalid_argument` when `length` is negative, fractional or not a number.
 *
 * @example
 * ```ts
 * import { randomBytes } from '@tollgate/core/crypto';
 * const serverSecret = randomBytes(32);
 * ```
 */
export function randomBytes(length: number): Uint8Array {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new CryptoError('invalid_argument', 'Random length must be a non-negative integer.', {
      details: { argument: 'length' },
    });
  }
  const bytes = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += MAX_BYTES_PER_DRAW) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(offset + MAX_BYTES_PER_DRAW, length)));
  }
  return bytes;
}

/** Draws from `source` and checks it kept its contract, so a broken injected source fails loudly. */
function draw(source: RandomSource, length: number): Uint8Array {
  const bytes = source(length);
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new CryptoError('invalid_argument', `The random source returned something other than ${length} bytes.`, {
      details: { argument: 'source' },
    });
  }
  return bytes;
}

/**
 * A fresh 128-bit identifier as 32 lowercase hex digits: collision-free in practice and unguessable.
 *
 * @param source - Where the 16 bytes come from; the platform CSPRNG unless a test injects one.
 * @returns 32 lowercase hex digits.
 *
 * @example
 * ```ts
 * import { randomId, isHexId } from '@tollgate/core/crypto';
 * const id = randomId(); // e.g. '3f1c…' (32 chars)
 * isHexId(id, 16); // true
 * ```
 */
export function randomId(source: RandomSource = randomBytes): string {
  return hexEncode(draw(source, 16));
}

/**
 * A fresh 64-bit signing-epoch identifier as 16 lowercase hex digits. Epochs are few and are also told
 * apart by their certificates, so 64 bits keep the `kid` of every signed artifact short.
 *
 * @param source - Where the 8 bytes come from; the platform CSPRNG unless a test injects one.
 * @returns 16 lowercase hex digits.
 *
 * @example
 * ```ts
 * import { randomEpochId } from '@tollgate/core/crypto';
 * const kid = randomEpochId(); // e.g. '9a0b…' (16 chars)
 * ```
 */
export function randomEpochId(source: RandomSource = randomBytes): string {
  return hexEncode(draw(source, 8));
}

/**
 * True when `value` is exactly `bytes` bytes of lowercase hex, the form {@link randomId} and
 * {@link randomEpochId} produce. Uppercase is refused so that one identifier has one spelling (ids are
 * compared and indexed as strings).
 *
 * @param value - Anything (typically untrusted input).
 * @param bytes - The expected byte length: 16 for {@link randomId}, 8 for {@link randomEpochId}.
 * @returns Whether `value` is a string of `2 * bytes` characters from `0-9a-f`.
 *
 * @example
 * ```ts
 * import { isHexId } from '@tollgate/core/crypto';
 * isHexId('00112233445566778899aabbccddeeff', 16); // true
 * isHexId('00112233445566778899AABBCCDDEEFF', 16); // false
 * ```
 */
export function isHexId(value: unknown, bytes: number): value is string {
  if (typeof value !== 'string' || !Number.isSafeInteger(bytes) || bytes <= 0) return false;
  if (value.length !== 2 * bytes) return false;
  for (let index = 0; index < value.length; index++) {
    const charCode = value.charCodeAt(index);
    const isDigit = charCode >= 0x30 && charCode <= 0x39;
    const isLowerHexLetter = charCode >= 0x61 && charCode <= 0x66;
    if (!isDigit && !isLowerHexLetter) return false;
  }
  return true;
}
