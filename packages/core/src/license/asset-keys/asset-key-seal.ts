import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { CryptoError } from '../../crypto/crypto-error';
import { randomBytes, type RandomSource } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import { deriveLicenseSubkey, licenseSubkeyLabels } from '../admin/admin-keys';

/**
 * HKDF-SHA-256 label of the master-key subkey that seals asset keys at rest (salt `tollgate/license`, as
 * every license subkey). Changing it orphans every stored asset key.
 *
 * @example
 * ```ts
 * import { assetKeySealSubkeyLabel, deriveLicenseSubkey } from '@tollgate/core/license';
 * const sealKey = deriveLicenseSubkey(masterKey, assetKeySealSubkeyLabel);
 * ```
 */
export const assetKeySealSubkeyLabel: string = licenseSubkeyLabels.assetKeySeal;

/** The label bound into every sealed asset key as associated data. */
export const assetKeySealLabel = 'tollgate/license/v1/asset-key-at-rest';

/** Format byte of a sealed asset key: version 1 is XChaCha20-Poly1305 under {@link assetKeySealSubkeyLabel}. */
export const assetKeySealVersion = 1;

/** Length of a sealed asset key: version (1) ‖ nonce (24) ‖ ciphertext (32) ‖ tag (16). */
export const sealedAssetKeyLength = 73;

/** `version ‖ label ‖ 0x00 ‖ release_id ‖ 0x00 ‖ feature_id`: a sealed key copied to another row fails to open. */
function associatedData(releaseId: string, featureId: string): Uint8Array {
  return utf8Encode(`\u0001${assetKeySealLabel}\u0000${releaseId}\u0000${featureId}`);
}

/**
 * Derives the sealing subkey once (the store keeps it for its lifetime instead of the master key).
 *
 * @param masterKey - `LICENSE_MASTER_KEY`, 32 bytes.
 * @returns The 32-byte subkey.
 * @example
 * ```ts
 * import { deriveAssetKeySealKey } from '@tollgate/core/license';
 * const sealKey = deriveAssetKeySealKey(masterKey);
 * ```
 */
export function deriveAssetKeySealKey(masterKey: Uint8Array): Uint8Array {
  return deriveLicenseSubkey(masterKey, assetKeySealSubkeyLabel);
}

/**
 * Seals an asset key for storage: `0x01 ‖ nonce ‖ XChaCha20-Poly1305(sealKey, nonce, aad).encrypt(key)`,
 * the associated data naming the version, the purpose, the release and the feature.
 *
 * @param sealKey - {@link deriveAssetKeySealKey} of the master key.
 * @param target - The release id (32 hex) and feature id of the row.
 * @param key - The 32-byte asset key.
 * @param random - Nonce source.
 * @returns 73 bytes.
 * @example
 * ```ts
 * import { deriveAssetKeySealKey, sealAssetKey } from '@tollgate/core/license';
 * const sealed = sealAssetKey(deriveAssetKeySealKey(masterKey), { releaseId, featureId }, key);
 * ```
 */
export function sealAssetKey(sealKey: Uint8Array, target: { releaseId: string; featureId: string }, key: Uint8Array, random: RandomSource = randomBytes): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32) throw new CryptoError('invalid_key', 'An asset key is 32 bytes.', { details: { expectedBytes: 32 } });
  const nonce = random(24);
  const ciphertext = xchacha20poly1305(sealKey, nonce, associatedData(target.releaseId, target.featureId)).encrypt(key);
  const sealed = new Uint8Array(sealedAssetKeyLength);
  sealed[0] = assetKeySealVersion;
  sealed.set(nonce, 1);
  sealed.set(ciphertext, 25);
  return sealed;
}

/**
 * Opens a key sealed by {@link sealAssetKey}.
 *
 * @param sealKey - The same subkey.
 * @param target - The row's release and feature.
 * @param sealed - The stored bytes.
 * @returns The 32-byte asset key.
 * @throws {@link CryptoError} `invalid_key` for another master key, altered bytes, another row, or an unknown version.
 * @example
 * ```ts
 * import { openAssetKey } from '@tollgate/core/license';
 * const key = openAssetKey(sealKey, { releaseId, featureId }, row.sealed_key);
 * ```
 */
export function openAssetKey(sealKey: Uint8Array, target: { releaseId: string; featureId: string }, sealed: Uint8Array): Uint8Array {
  if (!(sealed instanceof Uint8Array) || sealed.length !== sealedAssetKeyLength || sealed[0] !== assetKeySealVersion) {
    throw new CryptoError('invalid_key', `A sealed asset key is ${sealedAssetKeyLength} bytes starting with version ${assetKeySealVersion}.`);
  }
  try {
    return xchacha20poly1305(sealKey, sealed.subarray(1, 25), associatedData(target.releaseId, target.featureId)).decrypt(sealed.subarray(25));
  } catch (error) {
    throw new CryptoError('invalid_key', 'The sealed asset key does not open: wrong LICENSE_MASTER_KEY, altered data, or another row.', { cause: error });
  }
}
