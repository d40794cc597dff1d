import { assertBytes, CryptoError } from './crypto-error';

/**
 * Compares two byte strings in time that depends only on their lengths, never on where they first
 * differ: every byte pair is XORed into one accumulator and the loop has no early exit. Use it for MACs,
 * keyed hashes and tokens, where an early-exit `===` would let an attacker learn a valid value byte by
 * byte. Arrays of different lengths return `false` without their contents being read (lengths of MACs
 * and digests are public). JavaScript gives no hard constant-time guarantee; this removes the
 * data-dependent branch, which is the leak that matters in practice.
 *
 * @param a - First value.
 * @param b - Second value.
 * @returns Whether both have the same length and the same bytes.
 * @throws {@link CryptoError} `invalid_argument` when either argument is not a `Uint8Array` (a bug, not a
 *   mismatch).
 *
 * @example
 * ```ts
 * import { constantTimeEqual, hmacSha256 } from '@tollgate/core/crypto';
 * const valid = constantTimeEqual(hmacSha256(secret, body), presentedTag);
 * ```
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  assertBytes(a, 'a');
  assertBytes(b, 'b');
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

/**
 * {@link constantTimeEqual} for strings, compared UTF-16 code unit by code unit: meant for hex digests
 * (as returned by `keyedHash`) and other ASCII tokens. Strings of different lengths return `false`
 * without their contents being read.
 *
 * @param a - First string.
 * @param b - Second string.
 * @returns Whether both strings are identical.
 * @throws {@link CryptoError} `invalid_argument` when either argument is not a string.
 *
 * @example
 * ```ts
 * import { constantTimeEqualString, keyedHash, keyedHashLabels } from '@tollgate/core/crypto';
 * const ok = constantTimeEqualString(keyedHash(serverKey, token, keyedHashLabels.apiKey), storedHash);
 * ```
 */
export function constantTimeEqualString(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') {
    throw new CryptoError('invalid_argument', 'constantTimeEqualString compares two strings.', {
      details: { argument: typeof a !== 'string' ? 'a' : 'b' },
    });
  }
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
