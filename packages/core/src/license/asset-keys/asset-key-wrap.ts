import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeCanonical } from '../../cbor';
import { CryptoError } from '../../crypto/crypto-error';
import { randomBytes, type RandomSource } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import { assetKeyFingerprint } from './asset-key-fingerprint';
import { assetKeyLengths, type WrappedAssetKey, type WrappedAssetKeys } from './asset-key-wire';

/** The HKDF `info` and the first element of the associated data of every wrap. */
export const assetKeyWrapLabel = 'tollgate/license/v1/asset-key-wrap';

/** The artifact kinds that carry wrapped asset keys. */
export type AssetKeyCarrierKind = 'machine-credential' | 'validation-ticket';

/**
 * What a wrap is bound to: the artifact that carries it and the device it is for. Everything here comes
 * from the signed artifact (and its product), so the device rebuilds it from what it verified.
 */
export interface AssetKeyWrapContext {
  readonly kind: AssetKeyCarrierKind;
  readonly productId: string;
  readonly licenseId: Uint8Array;
  readonly machineId: Uint8Array;
  /** The request nonce the artifact echoes (unique per artifact). */
  readonly nonceEcho: Uint8Array;
  /** The artifact's time: `issuedAt` of a credential, `serverTime` of a ticket. */
  readonly issuedAt: number;
  /** The artifact's revocation epoch. */
  readonly revocationEpoch: number;
}

/** The payload fields {@link assetKeyWrapContext} reads (a MachineCredential or a ValidationTicket). */
export type AssetKeyCarrier =
  | { readonly licenseId: Uint8Array; readonly machineId: Uint8Array; readonly nonceEcho: Uint8Array; readonly issuedAt: number; readonly revocationEpoch: number }
  | { readonly licenseId: Uint8Array; readonly machineId: Uint8Array; readonly nonceEcho: Uint8Array; readonly serverTime: number; readonly revocationEpoch: number };

/**
 * The wrap context of a verified credential or ticket.
 *
 * @param kind - `machine-credential` or `validation-ticket`.
 * @param productId - The product the artifact verified for.
 * @param payload - The verified payload.
 * @returns The context.
 * @example
 * ```ts
 * import { assetKeyWrapContext } from '@tollgate/core/license';
 * const context = assetKeyWrapContext('validation-ticket', 'acme-editor', ticket);
 * ```
 */
export function assetKeyWrapContext(kind: AssetKeyCarrierKind, productId: string, payload: AssetKeyCarrier): AssetKeyWrapContext {
  const issuedAt = 'issuedAt' in payload ? payload.issuedAt : payload.serverTime;
  return { kind, productId, licenseId: payload.licenseId, machineId: payload.machineId, nonceEcho: payload.nonceEcho, issuedAt, revocationEpoch: payload.revocationEpoch };
}

/**
 * The associated data of one wrapped key: the canonical CBOR array `[label, kind, product_id,
 * license_id, machine_id, nonce_echo, issued_at, revocation_epoch, release_id, ephemeral_public_key,
 * feature, fingerprint]`. A wrap moved to another device, artifact, release or feature fails to open.
 *
 * @param context - The artifact.
 * @param block - The release and ephemeral key of the artifact's wraps.
 * @param entry - The feature and the key's fingerprint.
 * @returns The bytes.
 * @example
 * ```ts
 * import { assetKeyWrapAad } from '@tollgate/core/license';
 * const aad = assetKeyWrapAad(context, block, block.keys[0]);
 * ```
 */
export function assetKeyWrapAad(
  context: AssetKeyWrapContext,
  block: Pick<WrappedAssetKeys, 'releaseId' | 'ephemeralPublicKey'>,
  entry: Pick<WrappedAssetKey, 'feature' | 'fingerprint'>,
): Uint8Array {
  return encodeCanonical([
    assetKeyWrapLabel,
    context.kind,
    context.productId,
    context.licenseId,
    context.machineId,
    context.nonceEcho,
    context.issuedAt,
    context.revocationEpoch,
    block.releaseId,
    block.ephemeralPublicKey,
    entry.feature,
    entry.fingerprint,
  ]);
}

function checkLength(value: unknown, length: number, what: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array) || value.length !== length) throw new CryptoError('invalid_key', `${what} is ${length} bytes.`, { details: { expectedBytes: length } });
}

/** HKDF-SHA-256(shared secret, salt = ephemeral public ‖ device public, info = label): the wrap key. */
function wrapKey(sharedSecret: Uint8Array, ephemeralPublicKey: Uint8Array, devicePublicKey: Uint8Array): Uint8Array {
  const salt = new Uint8Array(64);
  salt.set(ephemeralPublicKey, 0);
  salt.set(devicePublicKey, 32);
  return hkdf(sha256, sharedSecret, salt, utf8Encode(assetKeyWrapLabel), 32);
}

/**
 * Wraps asset keys to a device's X25519 KEM key for one artifact: one ephemeral X25519 key per artifact,
 * the wrap key HKDF-SHA-256 of the shared secret (salt: ephemeral ‖ device public key), and each key
 * sealed with XChaCha20-Poly1305 under a fresh nonce with {@link assetKeyWrapAad} as associated data.
 *
 * @param input - The device's KEM public key, the artifact context, the release id, and the keys by feature.
 * @param random - Source of the ephemeral key and nonces (the platform CSPRNG; vectors inject a fixed one).
 * @returns The block, keys ascending by feature.
 * @throws {@link CryptoError} `invalid_key` for a malformed or low-order device key.
 * @example
 * ```ts
 * import { wrapAssetKeys } from '@tollgate/core/license';
 * const block = wrapAssetKeys({ deviceKemKey, context, releaseId, keys: new Map([['export.pdf', key]]) });
 * ```
 */
export function wrapAssetKeys(
  input: { deviceKemKey: Uint8Array; context: AssetKeyWrapContext; releaseId: Uint8Array; keys: ReadonlyMap<string, Uint8Array> },
  random: RandomSource = randomBytes,
): WrappedAssetKeys {
  checkLength(input.deviceKemKey, assetKeyLengths.kemPublicKey, 'A device KEM key');
  checkLength(input.releaseId, assetKeyLengths.releaseId, 'A release id');
  const ephemeralSecret = random(32);
  let shared: Uint8Array;
  let ephemeralPublicKey: Uint8Array;
  try {
    ephemeralPublicKey = x25519.getPublicKey(ephemeralSecret);
    shared = x25519.getSharedSecret(ephemeralSecret, input.deviceKemKey);
  } catch (error) {
    throw new CryptoError('invalid_key', 'The device KEM key is not a usable X25519 public key.', { cause: error });
  } finally {
    ephemeralSecret.fill(0);
  }
  const key = wrapKey(shared, ephemeralPublicKey, input.deviceKemKey);
  shared.fill(0);
  const block = { releaseId: input.releaseId, ephemeralPublicKey };
  const features = [...input.keys.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keys = features.map((feature): WrappedAssetKey => {
    const assetKey = input.keys.get(feature) as Uint8Array;
    checkLength(assetKey, assetKeyLengths.key, 'An asset key');
    const fingerprint = assetKeyFingerprint(assetKey);
    const nonce = random(assetKeyLengths.nonce);
    const ciphertext = xchacha20poly1305(key, nonce, assetKeyWrapAad(input.context, block, { feature, fingerprint })).encrypt(assetKey);
    return { feature, fingerprint, nonce, ciphertext };
  });
  key.fill(0);
  return { ...block, keys };
}

/**
 * Unwraps one feature's asset key from a verified credential or ticket with the device's X25519 KEM
 * private key. Fails for another device's key, a changed byte, or a wrap moved into another artifact,
 * release or feature (the associated data no longer matches).
 *
 * @param input - The block from the artifact (key 15), its context, the feature, the KEM private key.
 * @returns The 32-byte asset key.
 * @throws {@link CryptoError} `invalid_argument` when the block carries no key for the feature;
 *   `invalid_key` when the wrap does not open.
 * @example
 * ```ts
 * import { assetKeyWrapContext, unwrapAssetKey } from '@tollgate/core/license';
 * const key = unwrapAssetKey({ block: ticket.assetKeys!, context: assetKeyWrapContext('validation-ticket', productId, ticket), feature: 'export.pdf', kemPrivateKey });
 * ```
 */
export function unwrapAssetKey(input: { block: WrappedAssetKeys; context: AssetKeyWrapContext; feature: string; kemPrivateKey: Uint8Array }): Uint8Array {
  checkLength(input.kemPrivateKey, 32, 'A device KEM private key');
  const entry = input.block.keys.find((candidate) => candidate.feature === input.feature);
  if (entry === undefined) throw new CryptoError('invalid_argument', `The artifact carries no asset key for feature ${input.feature}.`, { details: { argument: 'feature' } });
  let key: Uint8Array | undefined;
  try {
    const devicePublicKey = x25519.getPublicKey(input.kemPrivateKey);
    const shared = x25519.getSharedSecret(input.kemPrivateKey, input.block.ephemeralPublicKey);
    key = wrapKey(shared, input.block.ephemeralPublicKey, devicePublicKey);
    shared.fill(0);
    const assetKey = xchacha20poly1305(key, entry.nonce, assetKeyWrapAad(input.context, input.block, entry)).decrypt(entry.ciphertext);
    return assetKey;
  } catch (error) {
    throw new CryptoError('invalid_key', `The asset key of feature ${input.feature} does not unwrap: another device's key, altered data, or a wrap moved from another artifact.`, { cause: error });
  } finally {
    key?.fill(0);
  }
}
