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

/** The HKDF-SHA-256 salt of every subkey of `LICENSE_MASTER_KEY`. */
export const licenseSubkeySalt = 'tollgate/license';

/**
 * Derives one purpose-specific 32-byte subkey from the license master key: HKDF-SHA-256 with salt
 * `tollgate/license` and the purpose's label as `info`. The master key itself never keys anything: every
 * use (sealing epoch keys, keyed hashes, sealed journal answers, asset keys) takes its own subkey, so a
 * leak of one says nothing about the others, and one master key can never be used under two algorithms.
 * A label names its format version (`…/v1`); changing a label orphans whatever its subkey sealed or
 * hashed.
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @param label - The purpose, e.g. `licenseSubkeyLabels.epochKeySeal`.
 * @returns 32 bytes.
 * @throws TypeError when the master key is not 32 bytes or the label is empty.
 * @example
 * ```ts
 * import { deriveLicenseSubkey, licenseSubkeyLabels } from '@tollgate/core/license';
 * const sealKey = deriveLicenseSubkey(masterKey, licenseSubkeyLabels.epochKeySeal);
 * ```
 */
export function deriveLicenseSubkey(masterKey: Uint8Array, label: string): Uint8Array {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) throw new TypeError('The license master key must be exactly 32 bytes.');
  if (typeof label !== 'string' || label.length === 0) throw new TypeError('A subkey label names its purpose.');
  return hkdf(sha256, masterKey, utf8Encode(licenseSubkeySalt), utf8Encode(label), 32);
}

/** HKDF-SHA-256 info labels of the subkeys (salt `tollgate/license`). Stable: changing one orphans stored hashes. */
export const licenseAdminKeyLabels = {
  tokenHash: 'tollgate/license/admin-token-hash/v1',
  licenseKeyHash: 'tollgate/license/license-key-hash/v1',
  answerSeal: 'tollgate/license/idempotency-answer-seal/v1',
  requestFingerprint: 'tollgate/license/idempotency-fingerprint/v1',
} as const;

/**
 * Every registered purpose of the license master key (the Admin labels plus the trust chain's). A new
 * use of `LICENSE_MASTER_KEY` adds its label here, so two purposes can never share a subkey by accident.
 */
export const licenseSubkeyLabels = {
  ...licenseAdminKeyLabels,
  /** XChaCha20-Poly1305 key of sealed epoch private keys (format version 1, epoch-key-seal.ts). */
  epochKeySeal: 'tollgate/license/epoch-key-seal/v1',
  /** Root of the HMAC keys that sign suspicion-alert webhooks (one per product, `suspicionAlertKey`). */
  alertSigning: 'tollgate/license/alert-webhook/v1',
  /** XChaCha20-Poly1305 key of asset keys at rest (asset-key-seal.ts, format version 1). */
  assetKeySeal: 'tollgate/license/asset-key-seal/v1',
  /** HMAC key of telemetry pseudonyms (raw T1 rows are keyed by them; telemetry-pseudonym.ts). */
  telemetryPseudonym: 'tollgate/license/telemetry-pseudonym/v1',
  /** XChaCha20-Poly1305 key of sealed integrity signer private keys (integrity/signer-keys.ts). */
  integritySignerSeal: 'tollgate/license/integrity-signer-seal/v1',
  /** HMAC key of the analytics detail-event pseudonyms (device and license), analytics-keys.ts. */
  analyticsPseudonym: 'tollgate/license/analytics-pseudonym/v1',
  /** XChaCha20-Poly1305 key of sealed analytics-subscription signing secrets (subscription-secret.ts). */
  analyticsSubscriptionSeal: 'tollgate/license/analytics-subscription-seal/v1',
  /** HMAC key of billing checkout tokens (`tollgate_checkout`, POST /v1/admin/billing/checkout-tokens). */
  billingCheckoutToken: 'tollgate/license/billing-checkout-token/v1',
} as const;

/**
 * Derives the Admin API subkeys from the license master key with HKDF-SHA-256.
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @returns The subkeys.
 * @throws TypeError when the master key is not 32 bytes.
 * @example
 * ```ts
 * import { deriveLicenseAdminKeys } from '@tollgate/core/license';
 * const keys = deriveLicenseAdminKeys(masterKey);
 * ```
 */
export function deriveLicenseAdminKeys(masterKey: Uint8Array): LicenseAdminKeys {
  const derive = (label: string) => deriveLicenseSubkey(masterKey, label);
  return Object.freeze({
    tokenHash: derive(licenseAdminKeyLabels.tokenHash),
    licenseKeyHash: derive(licenseAdminKeyLabels.licenseKeyHash),
    answerSeal: derive(licenseAdminKeyLabels.answerSeal),
    requestFingerprint: derive(licenseAdminKeyLabels.requestFingerprint),
  });
}
