import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { assertBytes } from './crypto-error';

/**
 * SHA-256 (FIPS 180-4) of `bytes`. Encode text first with `utf8Encode`, so it is always explicit which
 * bytes were hashed.
 *
 * @param bytes - The message.
 * @returns The 32-byte digest.
 *
 * @example
 * ```ts
 * import { sha256, hexEncode } from '@tollgate/core';
 * import { utf8Encode } from '@tollgate/core/crypto';
 * hexEncode(sha256(utf8Encode('abc'))); // 'ba7816bf…f20015ad'
 * ```
 */
export function sha256(bytes: Uint8Array): Uint8Array {
  assertBytes(bytes, 'bytes');
  return nobleSha256(bytes);
}

/**
 * HMAC-SHA-256 (RFC 2104) of `bytes` under `key`. Keys longer than the 64-byte block are hashed first, as
 * the RFC says. For hashes of stored secrets use `keyedHash`, which adds domain separation.
 *
 * @param key - The MAC key (any length; use at least 32 random bytes).
 * @param bytes - The message.
 * @returns The 32-byte tag. Compare tags with `constantTimeEqual`, never with `===`.
 *
 * @example
 * ```ts
 * import { hmacSha256, utf8Encode } from '@tollgate/core/crypto';
 * const tag = hmacSha256(webhookSecret, utf8Encode(rawBody));
 * ```
 */
export function hmacSha256(key: Uint8Array, bytes: Uint8Array): Uint8Array {
  assertBytes(key, 'key');
  assertBytes(bytes, 'bytes');
  return hmac(nobleSha256, key, bytes);
}
