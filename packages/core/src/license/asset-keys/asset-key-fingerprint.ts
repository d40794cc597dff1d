import { sha256 } from '@noble/hashes/sha2.js';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';

/** The label hashed before the key: a fingerprint is never the hash of the bare key used elsewhere. */
export const assetKeyFingerprintLabel = 'tollgate/license/v1/asset-kek-fingerprint';

/**
 * The fingerprint of an asset key: the first 16 bytes of SHA-256(label ‖ 0x00 ‖ key). It names the key
 * (the Admin list, sealed assets, wrapped keys) without revealing it: a key is 32 random bytes.
 *
 * @param key - The 32-byte asset key.
 * @returns 16 bytes.
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * import { assetKeyFingerprint } from '@tollgate/core/license';
 * hexEncode(assetKeyFingerprint(key)); // 32 hex digits
 * ```
 */
export function assetKeyFingerprint(key: Uint8Array): Uint8Array {
  const label = utf8Encode(assetKeyFingerprintLabel);
  const input = new Uint8Array(label.length + 1 + key.length);
  input.set(label, 0);
  input.set(key, label.length + 1);
  return sha256(input).subarray(0, 16);
}

/**
 * {@link assetKeyFingerprint} as 32 lower-case hex digits.
 *
 * @param key - The 32-byte asset key.
 * @returns The hex fingerprint.
 * @example
 * ```ts
 * import { assetKeyFingerprintHex } from '@tollgate/core/license';
 * const shown = assetKeyFingerprintHex(key);
 * ```
 */
export function assetKeyFingerprintHex(key: Uint8Array): string {
  return hexEncode(assetKeyFingerprint(key));
}
