/**
 * Builds `packages/core/test/vectors/license-asset-keys-v1.json` deterministically (fixed seeds, ids,
 * nonces and times): known answers for wrapping asset keys to a device's X25519 KEM key and for sealed
 * assets (docs/protocol.md "Asset keys"). `node scripts/generate-license-vectors.mjs` writes it with the
 * other license vectors, `--check` compares. Internal: not exported from the package index.
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeCanonical } from '../../cbor';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { assetKeyFingerprint } from './asset-key-fingerprint';
import { wrappedAssetKeysSpec } from './asset-key-wire';
import { assetKeyWrapAad, wrapAssetKeys, type AssetKeyWrapContext } from './asset-key-wrap';
import { sealAsset } from './sealed-asset';

const seed = (name: string) => sha256(utf8Encode(`tollgate/license/v1/test-vectors/${name}`));

/** A random source that hands out the named seeds in order (each cut to the length asked). */
function scripted(names: string[]) {
  let index = 0;
  return (length: number) => {
    const name = names[index++];
    if (name === undefined) throw new Error('the vector builder asked for more randomness than scripted');
    return seed(name).slice(0, length);
  };
}

/**
 * The vector file's text (JSON, two-space indented, trailing newline).
 *
 * @returns The text.
 * @example
 * ```ts
 * const text = renderAssetKeyVectors();
 * ```
 */
export function renderAssetKeyVectors(): string {
  const kemSecret = seed('device-kem');
  const kemPublic = x25519.getPublicKey(kemSecret);
  const otherSecret = seed('other-device-kem');
  const context: AssetKeyWrapContext = {
    kind: 'validation-ticket',
    productId: 'acme-editor',
    licenseId: new Uint8Array(16).fill(0x11),
    machineId: new Uint8Array(16).fill(0x22),
    nonceEcho: new Uint8Array(32).fill(0x33),
    issuedAt: 1_767_225_600,
    revocationEpoch: 7,
  };
  const releaseId = new Uint8Array(16).fill(0x44);
  const features = ['export.pdf', 'export.svg'];
  const keys = new Map(features.map((feature) => [feature, seed(`asset-key/${feature}`)]));
  const block = wrapAssetKeys({ deviceKemKey: kemPublic, context, releaseId, keys }, scripted(['asset-wrap-ephemeral', ...features.map((feature) => `asset-wrap-nonce/${feature}`)]));
  const asset = utf8Encode('Tollgate sealed asset test vector');
  const pdfKey = keys.get('export.pdf') as Uint8Array;
  const sealed = sealAsset({ key: pdfKey, productId: context.productId, releaseId, feature: 'export.pdf', asset }, scripted(['sealed-asset-nonce']));
  const tampered = (bytes: Uint8Array, at: number) => {
    const copy = bytes.slice();
    copy[at] = (copy[at] as number) ^ 0x01;
    return copy;
  };
  const first = block.keys[0] as (typeof block.keys)[number];
  const vectors = {
    about: [
      'Known answers for asset keys of the Tollgate license protocol v1 (docs/protocol.md "Asset keys" and "Sealed assets"). Bytes are lower-case hex. Seeds are SHA-256("tollgate/license/v1/test-vectors/" + name). Public test material: never use it in production.',
      'wrap: shared = X25519(device_kem_secret, ephemeral_public); wrap_key = HKDF-SHA-256(ikm = shared, salt = ephemeral_public || device_kem_public, info = "tollgate/license/v1/asset-key-wrap", 32); each key = XChaCha20-Poly1305(wrap_key, nonce, aad).decrypt(ciphertext), aad = canonical CBOR [label, kind, product_id, license_id, machine_id, nonce_echo, issued_at, revocation_epoch, release_id, ephemeral_public, feature, fingerprint].',
      'block.encoded is the value of key 15 of the carrying ticket or credential. fingerprint = SHA-256("tollgate/license/v1/asset-kek-fingerprint" || 0x00 || key)[0..16].',
      'negative: each case must fail to unwrap (or to open) with the given inputs.',
    ],
    device: { kem_secret: hexEncode(kemSecret), kem_public: hexEncode(kemPublic) },
    context: {
      kind: context.kind,
      product_id: context.productId,
      license_id: hexEncode(context.licenseId),
      machine_id: hexEncode(context.machineId),
      nonce_echo: hexEncode(context.nonceEcho),
      issued_at: context.issuedAt,
      revocation_epoch: context.revocationEpoch,
    },
    release_id: hexEncode(releaseId),
    ephemeral_secret: hexEncode(seed('asset-wrap-ephemeral')),
    block: {
      encoded: hexEncode(encodeCanonical(wrappedAssetKeysSpec.toCbor(block))),
      ephemeral_public: hexEncode(block.ephemeralPublicKey),
      keys: block.keys.map((entry) => ({
        feature: entry.feature,
        key: hexEncode(keys.get(entry.feature) as Uint8Array),
        fingerprint: hexEncode(entry.fingerprint),
        nonce: hexEncode(entry.nonce),
        aad: hexEncode(assetKeyWrapAad(context, block, entry)),
        ciphertext: hexEncode(entry.ciphertext),
      })),
    },
    sealed_asset: { feature: 'export.pdf', key: hexEncode(pdfKey), fingerprint: hexEncode(assetKeyFingerprint(pdfKey)), plaintext: hexEncode(asset), sealed: hexEncode(sealed) },
    negative: [
      { name: 'another device', kem_secret: hexEncode(otherSecret), feature: first.feature, expected_error: 'invalid_key' },
      { name: 'ciphertext bit flipped', feature: first.feature, ciphertext: hexEncode(tampered(first.ciphertext, 0)), expected_error: 'invalid_key' },
      { name: 'moved into a credential', feature: first.feature, context_kind: 'machine-credential', expected_error: 'invalid_key' },
      { name: 'moved to another feature', feature: 'export.svg', ciphertext_of: first.feature, expected_error: 'invalid_key' },
      { name: 'sealed asset bit flipped', sealed: hexEncode(tampered(sealed, sealed.length - 1)), expected_error: 'invalid_key' },
    ],
  };
  return `${JSON.stringify(vectors, null, 2)}\n`;
}
