import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hmacSha256 } from '../../crypto/hash';
import { hexDecode, hexEncode } from '../../crypto/hex';
import { randomId, type RandomSource } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';

/** HKDF-SHA-256 info label of the variant-id key (salt `tollgate/license`). Stable: changing it changes every seeded variant id. */
export const releaseVariantKeyLabel = 'tollgate/license/release-variant-id/v1';

/**
 * Derives the key that turns a variant seed into a variant id from `LICENSE_MASTER_KEY` (HKDF-SHA-256,
 * the same salt as the Admin subkeys, its own label), so a leak of it says nothing about other keys.
 *
 * @param masterKey - The 32-byte license master key.
 * @returns The 32-byte key.
 * @throws TypeError when the master key is not 32 bytes.
 * @example
 * ```ts
 * import { deriveReleaseVariantKey } from '@tollgate/core/license';
 * const variantKey = deriveReleaseVariantKey(masterKey);
 * ```
 */
export function deriveReleaseVariantKey(masterKey: Uint8Array): Uint8Array {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== 32) throw new TypeError('The license master key must be exactly 32 bytes.');
  return hkdf(sha256, masterKey, utf8Encode('tollgate/license'), utf8Encode(releaseVariantKeyLabel), 32);
}

/**
 * The `variant_id` of a new release. With a variant seed: the first 16 bytes of
 * `HMAC-SHA-256(variantKey, product_id ‖ 0x00 ‖ seed)`, so every build of one seed in one product shares
 * a variant (a reused seed is reported as `variant_reused`) while the seed itself is never stored and
 * cannot be guessed from the id without the server key. Without a seed: 16 random bytes, a variant of
 * its own. Either way the id is computed before any write, so concurrent registrations never collide.
 *
 * @param variantKey - From {@link deriveReleaseVariantKey}.
 * @param productId - The release's product (32 hex digits).
 * @param variantSeedHex - The 64-hex-digit seed, if the build has one.
 * @param random - Randomness for unseeded variants (the platform CSPRNG by default).
 * @returns 32 lowercase hex digits.
 * @example
 * ```ts
 * import { releaseVariantId, deriveReleaseVariantKey } from '@tollgate/core/license';
 * const variantId = releaseVariantId(deriveReleaseVariantKey(masterKey), productId, seedHex);
 * ```
 */
export function releaseVariantId(variantKey: Uint8Array, productId: string, variantSeedHex: string | undefined, random?: RandomSource): string {
  if (variantSeedHex === undefined) return randomId(random);
  const product = utf8Encode(productId);
  const seed = hexDecode(variantSeedHex);
  const message = new Uint8Array(product.length + 1 + seed.length);
  message.set(product, 0);
  message.set(seed, product.length + 1);
  return hexEncode(hmacSha256(variantKey, message).subarray(0, 16));
}
