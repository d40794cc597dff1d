import * as v from 'valibot';
import type { CborValue } from '../../cbor';
import { utf8Encode } from '../../crypto/utf8';
import { cborRecord, field, type CborRecordSpec, type RecordField } from '../cbor-record';
import { entitlementNamePattern } from '../payloads/entitlements';
import { decodeRecord } from '../record-codec';
import { compareBytes, bytesSchema, textSchema } from '../schemas';

/** Sizes of the asset-key wire fields, in bytes. */
export const assetKeyLengths = Object.freeze({
  /** An asset key (KEK) of one (release, feature). */
  key: 32,
  /** The key's fingerprint: the first 16 bytes of a labelled SHA-256 of the key. */
  fingerprint: 16,
  releaseId: 16,
  /** X25519 public keys (the device KEM key, the ephemeral key of a wrap). */
  kemPublicKey: 32,
  /** XChaCha20-Poly1305 nonce. */
  nonce: 24,
  /** A wrapped key: the 32-byte key encrypted plus the 16-byte Poly1305 tag. */
  ciphertext: 48,
});

/** Most wrapped keys one artifact carries (one per entitled feature; entitlements list at most 256). */
export const maxWrappedAssetKeys = 256;

/**
 * One feature's key, wrapped to the device.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | feature | text, the feature id (visible ASCII, 1–128) |
 * | 1 | fingerprint | bstr(16), fingerprint of the unwrapped key (the Admin list shows it as hex) |
 * | 2 | nonce | bstr(24), XChaCha20-Poly1305 nonce |
 * | 3 | ciphertext | bstr(48), the key encrypted with its tag |
 */
export interface WrappedAssetKey {
  feature: string;
  fingerprint: Uint8Array;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

/** Layout of {@link WrappedAssetKey}. */
export const wrappedAssetKeySpec: CborRecordSpec<WrappedAssetKey> = cborRecord('WrappedAssetKey', {
  feature: field(0, v.pipe(textSchema(1, 128), v.regex(entitlementNamePattern, 'feature names are visible ASCII (0x21–0x7E)'))),
  fingerprint: field(1, bytesSchema(assetKeyLengths.fingerprint)),
  nonce: field(2, bytesSchema(assetKeyLengths.nonce)),
  ciphertext: field(3, bytesSchema(assetKeyLengths.ciphertext)),
});

/**
 * The asset keys an artifact carries (machine credential key 15, validation ticket key 15): the keys of
 * the device's entitled features for the device's release, each wrapped to the device's X25519 KEM key
 * under one ephemeral key (docs/protocol.md "Asset keys").
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | releaseId | bstr(16), the release the keys belong to |
 * | 1 | ephemeralPublicKey | bstr(32), X25519 ephemeral public key of this artifact's wraps |
 * | 2 | keys | array of WrappedAssetKey, 1–256, strictly ascending by feature (UTF-8 bytes) |
 */
export interface WrappedAssetKeys {
  releaseId: Uint8Array;
  ephemeralPublicKey: Uint8Array;
  keys: WrappedAssetKey[];
}

const keyListSchema = v.pipe(
  v.array(wrappedAssetKeySpec.schema),
  v.minLength(1, 'an asset-key block carries at least one key'),
  v.maxLength(maxWrappedAssetKeys),
  v.check(
    (list) => list.every((entry, index) => index === 0 || compareBytes(utf8Encode((list[index - 1] as WrappedAssetKey).feature), utf8Encode(entry.feature)) < 0),
    'wrapped keys must be strictly ascending by feature (UTF-8 bytes)',
  ),
);

const keyListField: RecordField<WrappedAssetKey[], false> = {
  key: 2,
  schema: keyListSchema,
  optional: false,
  toCbor: (list) => list.map((entry) => wrappedAssetKeySpec.toCbor(entry)) as CborValue,
};

/** Layout of {@link WrappedAssetKeys}. */
export const wrappedAssetKeysSpec: CborRecordSpec<WrappedAssetKeys> = cborRecord('WrappedAssetKeys', {
  releaseId: field(0, bytesSchema(assetKeyLengths.releaseId)),
  ephemeralPublicKey: field(1, bytesSchema(assetKeyLengths.kemPublicKey)),
  keys: keyListField,
});

/**
 * Decodes an encoded {@link WrappedAssetKeys} (the bytes of key 15, as the vectors list them).
 *
 * @param bytes - Canonical CBOR.
 * @returns The block.
 * @throws ArtifactError `bad_encoding` or `invalid_payload`.
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { decodeWrappedAssetKeys } from '@tollgate/core/license';
 * const block = decodeWrappedAssetKeys(hexDecode(vector.block.encoded));
 * ```
 */
export function decodeWrappedAssetKeys(bytes: Uint8Array): WrappedAssetKeys {
  return decodeRecord(wrappedAssetKeysSpec, bytes);
}
