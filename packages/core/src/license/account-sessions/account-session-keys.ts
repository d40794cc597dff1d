import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keyedHash } from '../../crypto/keyed-hash';
import { utf8Encode } from '../../crypto/utf8';

/**
 * Subkeys the account sessions derive from `LICENSE_MASTER_KEY`. Each has one job, so a leak of one says
 * nothing about the Admin token hashes, the license-key hashes or the sealed epoch keys.
 */
export interface AccountSessionKeys {
  /** HMAC key under which access and refresh tokens are stored (two labels, one per token kind). */
  readonly tokenHash: Uint8Array;
  /** HMAC key of the login gate's keys (product + email, client address). */
  readonly loginGate: Uint8Array;
}

/** HKDF-SHA-256 info labels of the subkeys (salt `tollgate/license`). Stable: changing one orphans stored hashes. */
export const accountSessionKeyLabels = {
  tokenHash: 'tollgate/license/account-token-hash/v1',
  loginGate: 'tollgate/license/login-gate-hash/v1',
} as const;

/**
 * `keyedHash` labels of what the account sessions store. Distinct labels for the two token kinds mean an
 * access token presented as a refresh token (or the reverse) hashes to something no row holds.
 */
export const accountSessionHashLabels = {
  accessToken: 'account-access-token',
  refreshToken: 'account-refresh-token',
  loginGate: 'login-gate',
} as const;

/**
 * Derives the account-session subkeys from the license master key with HKDF-SHA-256 (the recipe of
 * `deriveLicenseAdminKeys`, other labels).
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @returns The subkeys.
 * @throws TypeError when the master key is not 32 bytes.
 * @example
 * ```ts
 * import { deriveAccountSessionKeys } from '@tollgate/core/license';
 * const keys = deriveAccountSessionKeys(masterKey);
 * ```
 */
export function deriveAccountSessionKeys(masterKey: Uint8Array): AccountSessionKeys {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) throw new TypeError('The license master key must be exactly 32 bytes.');
  const salt = utf8Encode('tollgate/license');
  const derive = (label: string) => hkdf(sha256, masterKey, salt, utf8Encode(label), 32);
  return Object.freeze({ tokenHash: derive(accountSessionKeyLabels.tokenHash), loginGate: derive(accountSessionKeyLabels.loginGate) });
}

/**
 * The stored form of an account token: 64 hex digits of `keyedHash` under the token-hash subkey, with
 * the label of its kind.
 *
 * @param keys - From {@link deriveAccountSessionKeys}.
 * @param kind - Which token it is.
 * @param token - The 32 token bytes.
 * @returns The hash to look up or store.
 * @example
 * ```ts
 * import { accountTokenHash, deriveAccountSessionKeys } from '@tollgate/core/license';
 * const hash = accountTokenHash(deriveAccountSessionKeys(masterKey), 'access', accessToken);
 * ```
 */
export function accountTokenHash(keys: AccountSessionKeys, kind: 'access' | 'refresh', token: Uint8Array): string {
  return keyedHash(keys.tokenHash, token, kind === 'access' ? accountSessionHashLabels.accessToken : accountSessionHashLabels.refreshToken);
}

/**
 * The login gate's key of an account: a keyed hash of the product and the normalised email, computed
 * whether or not such an account exists, so the gate behaves alike for known and unknown addresses (an
 * attacker cannot find accounts by watching which addresses lock) and no unknown address is stored.
 *
 * @param keys - From {@link deriveAccountSessionKeys}.
 * @param productId - The product logged in to.
 * @param normalizedEmail - `normalizeAccountEmail(email)`.
 * @returns 64 hex digits.
 * @example
 * ```ts
 * import { accountGateKey, deriveAccountSessionKeys, normalizeAccountEmail } from '@tollgate/core/license';
 * const key = accountGateKey(deriveAccountSessionKeys(masterKey), productId, normalizeAccountEmail(email));
 * ```
 */
export function accountGateKey(keys: AccountSessionKeys, productId: string, normalizedEmail: string): string {
  // Product ids never contain a NUL, so `product NUL email` names the pair unambiguously.
  return keyedHash(keys.loginGate, `account\u0000${productId}\u0000${normalizedEmail}`, accountSessionHashLabels.loginGate);
}

/**
 * The login gate's key of a client address (see `loginGateAddress` for the /64 grouping of IPv6).
 *
 * @param keys - From {@link deriveAccountSessionKeys}.
 * @param address - The grouped address.
 * @returns 64 hex digits.
 * @example
 * ```ts
 * import { addressGateKey, deriveAccountSessionKeys, loginGateAddress } from '@tollgate/core/license';
 * const key = addressGateKey(deriveAccountSessionKeys(masterKey), loginGateAddress('203.0.113.7') as string);
 * ```
 */
export function addressGateKey(keys: AccountSessionKeys, address: string): string {
  return keyedHash(keys.loginGate, `address\u0000${address}`, accountSessionHashLabels.loginGate);
}
