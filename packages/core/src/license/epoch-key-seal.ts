import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { CryptoError, randomBytes, utf8Encode, type RandomSource } from '../crypto';
import { deriveLicenseSubkey, licenseSubkeyLabels } from './admin/admin-keys';
import { licenseWireLengths } from './protocol';

/**
 * The label bound (as associated data) into every sealed epoch private key.
 *
 * @example
 * ```ts
 * import { epochKeySealLabel } from '@tollgate/core/license';
 * epochKeySealLabel; // 'tollgate/license/v1/epoch-key-at-rest'
 * ```
 */
export const epochKeySealLabel = 'tollgate/license/v1/epoch-key-at-rest';

/**
 * The format byte that starts every sealed key {@link sealEpochPrivateKey} writes today: version 1 is
 * XChaCha20-Poly1305 under the HKDF subkey `tollgate/license/epoch-key-seal/v1` of the master key.
 *
 * @example
 * ```ts
 * import { epochKeySealVersion } from '@tollgate/core/license';
 * sealed[0] === epochKeySealVersion; // true for a key sealed by this version
 * ```
 */
export const epochKeySealVersion = 1;

const nonceBytes = 24;
const tagBytes = 16;
const keyBytes = 32;
/** The unversioned form written before version 1: nonce ‖ ciphertext ‖ tag under the raw master key. */
const legacySealedLength = nonceBytes + keyBytes + tagBytes;

/**
 * Length of a sealed epoch key: version (1) ‖ 24-byte nonce ‖ 32-byte ciphertext ‖ 16-byte tag.
 *
 * @example
 * ```ts
 * import { sealedEpochKeyLength } from '@tollgate/core/license';
 * sealedEpochKeyLength; // 73
 * ```
 */
export const sealedEpochKeyLength = 1 + legacySealedLength;

/** `[version] ‖ label ‖ 0x00 ‖ epochId`; the legacy form has no version byte. */
function associatedData(epochId: Uint8Array, version: number | undefined): Uint8Array {
  const label = utf8Encode(epochKeySealLabel);
  const prefix = version === undefined ? 0 : 1;
  const aad = new Uint8Array(prefix + label.length + 1 + epochId.length);
  if (version !== undefined) aad[0] = version;
  aad.set(label, prefix);
  aad.set(epochId, prefix + label.length + 1);
  return aad;
}

function checkInputs(masterKey: Uint8Array, epochId: Uint8Array): void {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== keyBytes) {
    throw new CryptoError('invalid_key', 'The license master key is 32 bytes.', { details: { expectedBytes: keyBytes } });
  }
  if (!(epochId instanceof Uint8Array) || epochId.length !== licenseWireLengths.epochId) {
    throw new CryptoError('invalid_argument', 'An epoch id is 8 bytes.', { details: { argument: 'epochId' } });
  }
}

/**
 * Encrypts an epoch private key for storage with XChaCha20-Poly1305 under the master key's subkey
 * `tollgate/license/epoch-key-seal/v1` (HKDF-SHA-256, `deriveLicenseSubkey`): the master key itself
 * never keys a cipher. The version byte, a fixed label and the epoch id are the associated data, so a
 * sealed key copied onto another epoch's row, used for another purpose or relabelled with another
 * version fails to open. Output: `0x01 ‖ nonce (24) ‖ ciphertext (32) ‖ tag (16)`, a random nonce
 * each time.
 *
 * @param masterKey - 32 bytes from `LICENSE_MASTER_KEY`.
 * @param epochId - The 8-byte epoch id.
 * @param privateKey - The 32-byte Ed25519 seed.
 * @param random - Nonce source (the platform CSPRNG by default).
 * @returns 73 bytes.
 * @throws {@link CryptoError} `invalid_key` / `invalid_argument`.
 *
 * @example
 * ```ts
 * import { generateEd25519KeyPair } from '@tollgate/core/crypto';
 * import { sealEpochPrivateKey } from '@tollgate/core/license';
 * const sealed = sealEpochPrivateKey(masterKey, epochId, generateEd25519KeyPair().privateKey);
 * ```
 */
export function sealEpochPrivateKey(masterKey: Uint8Array, epochId: Uint8Array, privateKey: Uint8Array, random: RandomSource = randomBytes): Uint8Array {
  checkInputs(masterKey, epochId);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== keyBytes) {
    throw new CryptoError('invalid_key', 'An epoch private key is a 32-byte seed.', { details: { expectedBytes: keyBytes } });
  }
  const nonce = random(nonceBytes);
  const sealKey = deriveLicenseSubkey(masterKey, licenseSubkeyLabels.epochKeySeal);
  const ciphertext = xchacha20poly1305(sealKey, nonce, associatedData(epochId, epochKeySealVersion)).encrypt(privateKey);
  sealKey.fill(0);
  const sealed = new Uint8Array(1 + nonceBytes + ciphertext.length);
  sealed[0] = epochKeySealVersion;
  sealed.set(nonce, 1);
  sealed.set(ciphertext, 1 + nonceBytes);
  return sealed;
}

/**
 * Whether a stored sealed key is in the unversioned form written before version 1 (72 bytes, sealed
 * under the raw master key). {@link openEpochPrivateKey} still opens it; the epoch store re-seals it in
 * the current form the first time it opens it.
 *
 * @param sealed - The stored bytes.
 * @returns `true` for the legacy form.
 *
 * @example
 * ```ts
 * import { isLegacySealedEpochKey } from '@tollgate/core/license';
 * if (isLegacySealedEpochKey(row.sealed_private_key)) console.log('re-seal me');
 * ```
 */
export function isLegacySealedEpochKey(sealed: Uint8Array): boolean {
  return sealed instanceof Uint8Array && sealed.length === legacySealedLength;
}

/**
 * Opens a key sealed by {@link sealEpochPrivateKey}: the current form (73 bytes starting with version
 * 1, under the HKDF subkey) or the legacy unversioned form (72 bytes, under the raw master key). The
 * two forms differ in length, so a stored blob is never tried under the wrong key.
 *
 * @param masterKey - The same master key.
 * @param epochId - The epoch id it was sealed for.
 * @param sealed - The stored bytes.
 * @returns The 32-byte seed.
 * @throws {@link CryptoError} `invalid_key` when the master key is wrong, the bytes were altered, or the
 *   format is unknown.
 *
 * @example
 * ```ts
 * import { openEpochPrivateKey } from '@tollgate/core/license';
 * const seed = openEpochPrivateKey(masterKey, epochId, row.sealed_private_key);
 * ```
 */
export function openEpochPrivateKey(masterKey: Uint8Array, epochId: Uint8Array, sealed: Uint8Array): Uint8Array {
  checkInputs(masterKey, epochId);
  const legacy = isLegacySealedEpochKey(sealed);
  if (!legacy && !(sealed instanceof Uint8Array && sealed.length === sealedEpochKeyLength && sealed[0] === epochKeySealVersion)) {
    throw new CryptoError('invalid_key', `A sealed epoch key is ${sealedEpochKeyLength} bytes starting with version ${epochKeySealVersion}.`, {
      details: { expectedBytes: sealedEpochKeyLength },
    });
  }
  const key = legacy ? masterKey : deriveLicenseSubkey(masterKey, licenseSubkeyLabels.epochKeySeal);
  const body = legacy ? sealed : sealed.subarray(1);
  try {
    return xchacha20poly1305(key, body.subarray(0, nonceBytes), associatedData(epochId, legacy ? undefined : epochKeySealVersion)).decrypt(body.subarray(nonceBytes));
  } catch (error) {
    throw new CryptoError('invalid_key', 'The sealed epoch key does not open: wrong LICENSE_MASTER_KEY or altered data.', { cause: error });
  } finally {
    if (!legacy) key.fill(0);
  }
}
