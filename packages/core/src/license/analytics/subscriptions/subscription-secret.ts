import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { CryptoError } from '../../../crypto/crypto-error';
import { hexEncode } from '../../../crypto/hex';
import { randomBytes, type RandomSource } from '../../../crypto/random';
import { utf8Encode } from '../../../crypto/utf8';
import { deriveLicenseSubkey } from '../../admin/admin-keys';

/**
 * The HKDF label of the subkey that seals subscription signing secrets (registered with the other
 * purposes of `LICENSE_MASTER_KEY`).
 */
export const subscriptionSecretSealLabel = 'tollgate/license/analytics-subscription-seal/v1';

/** The format byte of a sealed secret: XChaCha20-Poly1305 under the `…/analytics-subscription-seal/v1` subkey. */
const sealVersion = 1;
const secretBytes = 32;
const nonceBytes = 24;
const tagBytes = 16;

/** A subscription's signing key as the creator receives it, once. */
export interface SubscriptionSigningKey {
  /** `sk_` + 16 random hex digits: names the key in `Tollgate-Signature` (`<keyId>=<hex>`). */
  readonly keyId: string;
  /** 64 hex characters; the UTF-8 bytes of this text are the HMAC-SHA-256 key (as for every Tollgate webhook). */
  readonly secret: string;
}

function associatedData(subscriptionId: string, keyId: string): Uint8Array {
  return utf8Encode(`${subscriptionSecretSealLabel}\u0000${subscriptionId}\u0000${keyId}`);
}

function sealKey(masterKey: Uint8Array): Uint8Array {
  return deriveLicenseSubkey(masterKey, subscriptionSecretSealLabel);
}

/**
 * Creates a new signing key for a subscription and seals it for storage: the server must keep the
 * secret to sign every delivery, so it is encrypted (XChaCha20-Poly1305 under a subkey of the master
 * key) with the subscription id and key id bound as associated data, so a sealed secret copied onto
 * another subscription's row does not open.
 *
 * @param masterKey - `LICENSE_MASTER_KEY` (32 bytes).
 * @param subscriptionId - The subscription the key signs for.
 * @param random - Randomness (the platform CSPRNG by default).
 * @returns The key (show it once) and the sealed bytes to store: `0x01 ‖ nonce (24) ‖ ciphertext (32) ‖ tag (16)`.
 * @example
 * ```ts
 * import { createSubscriptionSigningKey } from '@tollgate/core/license';
 * const { key, sealed } = createSubscriptionSigningKey(masterKey, subscriptionId);
 * ```
 */
export function createSubscriptionSigningKey(masterKey: Uint8Array, subscriptionId: string, random: RandomSource = randomBytes): { key: SubscriptionSigningKey; sealed: Uint8Array } {
  const keyId = `sk_${hexEncode(random(8))}`;
  const secret = random(secretBytes);
  const nonce = random(nonceBytes);
  const box = xchacha20poly1305(sealKey(masterKey), nonce, associatedData(subscriptionId, keyId)).encrypt(secret);
  const sealed = new Uint8Array(1 + nonceBytes + box.length);
  sealed[0] = sealVersion;
  sealed.set(nonce, 1);
  sealed.set(box, 1 + nonceBytes);
  return { key: { keyId, secret: hexEncode(secret) }, sealed };
}

/**
 * Opens a sealed signing secret to sign a delivery.
 *
 * @param masterKey - `LICENSE_MASTER_KEY`.
 * @param subscriptionId - The subscription whose row held `sealed`.
 * @param keyId - The key id stored with it.
 * @param sealed - What {@link createSubscriptionSigningKey} returned.
 * @returns The key.
 * @throws {@link CryptoError} `invalid_key` when the bytes were altered, moved or sealed under another master key.
 * @example
 * ```ts
 * import { openSubscriptionSigningKey } from '@tollgate/core/license';
 * const key = openSubscriptionSigningKey(masterKey, row.subscription_id, row.signing_key_id, row.sealed_secret);
 * ```
 */
export function openSubscriptionSigningKey(masterKey: Uint8Array, subscriptionId: string, keyId: string, sealed: Uint8Array): SubscriptionSigningKey {
  if (sealed.length !== 1 + nonceBytes + secretBytes + tagBytes || sealed[0] !== sealVersion) {
    throw new CryptoError('invalid_key', 'The sealed subscription secret has an unknown format.');
  }
  let secret: Uint8Array;
  try {
    secret = xchacha20poly1305(sealKey(masterKey), sealed.subarray(1, 1 + nonceBytes), associatedData(subscriptionId, keyId)).decrypt(sealed.subarray(1 + nonceBytes));
  } catch (error) {
    throw new CryptoError('invalid_key', 'The sealed subscription secret does not open under this master key.', { cause: error });
  }
  return { keyId, secret: hexEncode(secret) };
}
