import { base64UrlEncode } from '../../crypto/base64';
import { hmacSha256 } from '../../crypto/hash';
import { keyedHash, keyedHashLabels } from '../../crypto/keyed-hash';
import { randomBytes, randomEpochId, type RandomSource } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';

/** Prefix of every gateway API key, so secret scanners and humans recognise one. */
export const apiKeyPrefix = 'tg_live_';

/** An API key: the prefix and 32 random bytes in base64url (43 characters). */
export const apiKeyPattern = /^tg_live_[A-Za-z0-9_-]{43}$/;

/**
 * A fresh API key: `tg_live_` followed by 256 random bits in base64url.
 *
 * @param random - Source of the 32 bytes (the platform CSPRNG by default).
 * @returns The key; show it once, store only {@link hashApiKey} of it.
 * @example
 * ```ts
 * import { generateApiKey } from '@tollgate/core/gateway';
 * generateApiKey(); // 'tg_live_…' (51 characters)
 * ```
 */
export function generateApiKey(random: RandomSource = randomBytes): string {
  return `${apiKeyPrefix}${base64UrlEncode(random(32))}`;
}

/**
 * The stored form of an API key: `keyedHash(apiKeyHashKey, apiKey, 'api-key')`. Lookups compare this
 * hash in SQL, so a stolen database cannot be used to authenticate and the key is never stored.
 *
 * @param apiKeyHashKey - The gateway's API-key hashing subkey (`GatewayKeys.apiKeyHash`).
 * @param apiKey - The key as presented.
 * @returns 64 lowercase hex digits.
 * @example
 * ```ts
 * import { hashApiKey } from '@tollgate/core/gateway';
 * const secretHash = hashApiKey(keys.apiKeyHash, presentedKey);
 * ```
 */
export function hashApiKey(apiKeyHashKey: Uint8Array, apiKey: string): string {
  return keyedHash(apiKeyHashKey, apiKey, keyedHashLabels.apiKey);
}

/**
 * A fresh credential id (16 hex digits): names an API key or a notify key in profiles and, for notify
 * keys, in webhook signatures. Ids are not secret.
 *
 * @param random - Source of the 8 bytes.
 * @returns 16 lowercase hex digits.
 * @example
 * ```ts
 * import { newCredentialId } from '@tollgate/core/gateway';
 * newCredentialId(); // e.g. '9a0b1c2d3e4f5061'
 * ```
 */
export function newCredentialId(random: RandomSource = randomBytes): string {
  return randomEpochId(random);
}

const notifyKeyDomain = 'tollgate/notify-key/v1';

/**
 * The notify HMAC key of a merchant's notify credential, derived rather than stored:
 * `base64url(HMAC-SHA-256(notifyRoot, "tollgate/notify-key/v1" ‖ 0x00 ‖ merchantId ‖ 0x00 ‖ keyId))`.
 * Only key ids and their status live in the database, so a database dump reveals no notify key; the
 * gateway re-derives the key whenever it signs a notification.
 *
 * @param notifyRoot - The gateway's notify root subkey (`GatewayKeys.notifyRoot`).
 * @param merchantId - The merchant.
 * @param keyId - The notify credential id.
 * @returns 43 base64url characters (256 bits).
 * @throws TypeError when an id contains NUL.
 * @example
 * ```ts
 * import { deriveNotifyHmacKey } from '@tollgate/core/gateway';
 * const notifyHmacKey = deriveNotifyHmacKey(keys.notifyRoot, merchantId, notifyHmacKeyId);
 * ```
 */
export function deriveNotifyHmacKey(notifyRoot: Uint8Array, merchantId: string, keyId: string): string {
  // With no 0x00 inside the ids, the separators make the message encode the triple injectively.
  if (merchantId.includes('\0') || keyId.includes('\0')) throw new TypeError('Credential ids never contain NUL.');
  const parts = [utf8Encode(notifyKeyDomain), utf8Encode(merchantId), utf8Encode(keyId)];
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0) + parts.length - 1);
  let offset = 0;
  parts.forEach((part, index) => {
    if (index > 0) message[offset++] = 0x00;
    message.set(part, offset);
    offset += part.length;
  });
  return base64UrlEncode(hmacSha256(notifyRoot, message));
}
