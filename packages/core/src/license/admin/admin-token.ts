import { base64UrlEncode } from '../../crypto/base64';
import { keyedHash, keyedHashLabels } from '../../crypto/keyed-hash';
import { randomBytes, type RandomSource } from '../../crypto/random';

/** Characters of an Admin token after its prefix: 32 random bytes as unpadded base64url. */
export const adminTokenSecretLength = 43;

/** Total length of an Admin token (license spec, "Authentication" 1). */
export const adminTokenLength = 48;

/** The default `ADMIN_TOKEN_PREFIX`: 5 characters, so prefix + 43 = 48. */
export const defaultAdminTokenPrefix = 'tgla_';

const secretPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an Admin token prefix: printable ASCII without spaces, exactly `48 - 43 = 5` characters so every
 * token is 48 characters long.
 *
 * @param prefix - The configured prefix.
 * @returns The prefix.
 * @throws TypeError when it is not usable.
 * @example
 * ```ts
 * import { assertAdminTokenPrefix } from '@tollgate/core/license';
 * assertAdminTokenPrefix('tgla_');
 * ```
 */
export function assertAdminTokenPrefix(prefix: string): string {
  if (prefix.length !== adminTokenLength - adminTokenSecretLength || !/^[\x21-\x7e]+$/.test(prefix)) {
    throw new TypeError(`The Admin token prefix must be ${adminTokenLength - adminTokenSecretLength} printable ASCII characters without spaces.`);
  }
  return prefix;
}

/**
 * Mints a fresh Admin token: the prefix and 43 base64url characters of 256 random bits.
 *
 * @param prefix - `ADMIN_TOKEN_PREFIX`.
 * @param random - The randomness source (the CSPRNG unless a test injects one).
 * @returns The token, shown to the operator once and never stored.
 * @example
 * ```ts
 * import { mintAdminToken } from '@tollgate/core/license';
 * const token = mintAdminToken('tgla_'); // 48 characters
 * ```
 */
export function mintAdminToken(prefix: string, random: RandomSource = randomBytes): string {
  return `${assertAdminTokenPrefix(prefix)}${base64UrlEncode(random(32))}`;
}

/**
 * Whether `token` has the shape of an Admin token under `prefix` (a cheap check before any lookup).
 *
 * @param token - What the client sent after `Bearer `.
 * @param prefix - `ADMIN_TOKEN_PREFIX`.
 * @returns True for the prefix followed by 43 base64url characters.
 * @example
 * ```ts
 * import { isWellFormedAdminToken } from '@tollgate/core/license';
 * isWellFormedAdminToken('tgla_' + 'A'.repeat(43), 'tgla_'); // true
 * ```
 */
export function isWellFormedAdminToken(token: string, prefix: string): boolean {
  return token.length === adminTokenLength && token.startsWith(prefix) && secretPattern.test(token.slice(prefix.length));
}

/**
 * The keyed hash under which a token is stored and looked up (HMAC-SHA-256 under the token-hash subkey).
 *
 * @param key - `deriveLicenseAdminKeys(masterKey).tokenHash`.
 * @param token - The token.
 * @returns 64 hex digits.
 * @example
 * ```ts
 * import { adminTokenHash, deriveLicenseAdminKeys } from '@tollgate/core/license';
 * const hash = adminTokenHash(deriveLicenseAdminKeys(masterKey).tokenHash, token);
 * ```
 */
export function adminTokenHash(key: Uint8Array, token: string): string {
  return keyedHash(key, token, keyedHashLabels.adminToken);
}
