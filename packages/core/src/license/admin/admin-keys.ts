import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8Encode } from '../../crypto/utf8';

/**
 * Subkeys the license service derives from `LICENSE_MASTER_KEY` for the Admin API. Each has one job, so
 * a leak of one says nothing about the others or about the sealed epoch keys.
 */
export interface LicenseAdminKeys {
  /** Key of `keyedHash(…, token, 'admin-token')`: Admin tokens are stored only as this hash. */
  readonly tokenHash: Uint8Array;
  /** Key of `keyedHash(…, licenseKey, 'license-key')`: license keys are stored only as this hash. */
  readonly licenseKeyHash: Uint8Array;
  /** XChaCha20-Poly1305 key sealing the idempotency journal's stored answers (they may hold license keys). */
  readonly answerSeal: Uint8Array;
  /**
   * HMAC key of the journal's request fingerprints: a request body can hold a secret (an account
   * password), and a plain hash of it would let anyone with a database dump guess it at hash speed.
   */
  readonly requestFingerprint: Uint8Array;
}

/** HKDF-SHA-256 info labels of the subkeys (salt `tollgate/license`). Stable: changing one orphans stored hashes. */
export const licenseAdminKeyLabels = {
  tokenHash: 'tollgate/license/admin-token-hash/v1',
  licenseKeyHash: 'tollgate/license/license-key-hash/v1',
  answerSeal: 'tollgate/license/idempotency-answer-seal/v1',
  requestFingerprint: 'tollgate/license/idempotency-fingerprint/v1',
} as const;

/**
 * Derives the Admin API subkeys from the license master key with HKDF-SHA-256.
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @returns The subkeys.
 * @throws TypeError when the master key is not 32 bytes.
 * @example
 * ```ts
 * import { deriveLicenseAdminKeys } from '@tollgate/core';
 * const keys = deriveLicenseAdminKeys(masterKey);
 * ```
 */
export function deriveLicenseAdminKeys(masterKey: Uint8Array): LicenseAdminKeys {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) throw new TypeError('The license master key must be exactly 32 bytes.');
  const salt = utf8Encode('tollgate/license');
  const derive = (label: string) => hkdf(sha256, masterKey, salt, utf8Encode(label), 32);
  return Object.freeze({
    tokenHash: derive(licenseAdminKeyLabels.tokenHash),
    licenseKeyHash: derive(licenseAdminKeyLabels.licenseKeyHash),
    answerSeal: derive(licenseAdminKeyLabels.answerSeal),
    requestFingerprint: derive(licenseAdminKeyLabels.requestFingerprint),
  });
}
