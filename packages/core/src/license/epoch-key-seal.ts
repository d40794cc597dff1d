import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { CryptoError, randomBytes, utf8Encode, type RandomSource } from '../crypto';
import { licenseWireLengths } from './protocol';

/**
 * The label bound (as associated data) into every sealed epoch private key.
 *
 * @example
 * ```ts
 * import { epochKeySealLabel } from '@tollgate/core';
 * epochKeySealLabel; // 'tollgate/license/v1/epoch-key-at-rest'
 * ```
 */
export const epochKeySealLabel = 'tollgate/license/v1/epoch-key-at-rest';

const nonceBytes = 24;
const tagBytes = 16;
const keyBytes = 32;

/**
 * Length of a sealed epoch key: 24-byte nonce ‖ 32-byte ciphertext ‖ 16-byte tag.
 *
 * @example
 * ```ts
 * import { sealedEpochKeyLength } from '@tollgate/core';
 * sealedEpochKeyLength; // 72
 * ```
 */
export const sealedEpochKeyLength = nonceBytes + keyBytes + tagBytes;

function associatedData(epochId: Uint8Array): Uint8Array {
  const label = utf8Encode(epochKeySealLabel);
  const aad = new Uint8Array(label.length + 1 + epochId.length);
  aad.set(label, 0);
  aad.set(epochId, label.length + 1);
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
 * Encrypts an epoch private key for storage with XChaCha20-Poly1305 under the master key. The epoch id
 * and a fixed label are the associated data, so a sealed key copied onto another epoch's row (or used
 * for another purpose) fails to open. Output: `nonce (24) ‖ ciphertext (32) ‖ tag (16)`, a random nonce
 * each time.
 *
 * @param masterKey - 32 bytes from `LICENSE_MASTER_KEY`.
 * @param epochId - The 8-byte epoch id.
 * @param privateKey - The 32-byte Ed25519 seed.
 * @param random - Nonce source (the platform CSPRNG by default).
 * @returns 72 bytes.
 * @throws {@link CryptoError} `invalid_key` / `invalid_argument`.
 *
 * @example
 * ```ts
 * import { sealEpochPrivateKey, generateEd25519KeyPair } from '@tollgate/core';
 * const sealed = sealEpochPrivateKey(masterKey, epochId, generateEd25519KeyPair().privateKey);
 * ```
 */
export function sealEpochPrivateKey(masterKey: Uint8Array, epochId: Uint8Array, privateKey: Uint8Array, random: RandomSource = randomBytes): Uint8Array {
  checkInputs(masterKey, epochId);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== keyBytes) {
    throw new CryptoError('invalid_key', 'An epoch private key is a 32-byte seed.', { details: { expectedBytes: keyBytes } });
  }
  const nonce = random(nonceBytes);
  const ciphertext = xchacha20poly1305(masterKey, nonce, associatedData(epochId)).encrypt(privateKey);
  const sealed = new Uint8Array(nonceBytes + ciphertext.length);
  sealed.set(nonce, 0);
  sealed.set(ciphertext, nonceBytes);
  return sealed;
}

/**
 * Opens a key sealed by {@link sealEpochPrivateKey}.
 *
 * @param masterKey - The same master key.
 * @param epochId - The epoch id it was sealed for.
 * @param sealed - The 72 stored bytes.
 * @returns The 32-byte seed.
 * @throws {@link CryptoError} `invalid_key` when the master key is wrong or the bytes were altered.
 *
 * @example
 * ```ts
 * import { openEpochPrivateKey } from '@tollgate/core';
 * const seed = openEpochPrivateKey(masterKey, epochId, row.sealed_private_key);
 * ```
 */
export function openEpochPrivateKey(masterKey: Uint8Array, epochId: Uint8Array, sealed: Uint8Array): Uint8Array {
  checkInputs(masterKey, epochId);
  if (!(sealed instanceof Uint8Array) || sealed.length !== sealedEpochKeyLength) {
    throw new CryptoError('invalid_key', 'A sealed epoch key is 72 bytes.', { details: { expectedBytes: sealedEpochKeyLength } });
  }
  try {
    return xchacha20poly1305(masterKey, sealed.subarray(0, nonceBytes), associatedData(epochId)).decrypt(sealed.subarray(nonceBytes));
  } catch (error) {
    throw new CryptoError('invalid_key', 'The sealed epoch key does not open: wrong LICENSE_MASTER_KEY or altered data.', { cause: error });
  }
}
