import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import * as v from 'valibot';
import { encodeCanonical } from '../../cbor';
import { CryptoError } from '../../crypto/crypto-error';
import { constantTimeEqual } from '../../crypto/constant-time';
import { randomBytes, type RandomSource } from '../../crypto/random';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { entitlementNamePattern } from '../payloads/entitlements';
import { decodeRecord } from '../record-codec';
import { bytesSchema, productIdSchema, textSchema } from '../schemas';
import { assetKeyFingerprint } from './asset-key-fingerprint';
import { assetKeyLengths } from './asset-key-wire';

/** The 5 bytes every sealed asset starts with: `TGSA` and format version 1. */
export const sealedAssetMagic = Uint8Array.of(0x54, 0x47, 0x53, 0x41, 0x01);

/**
 * The header of a sealed asset: which key opens it.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | productId | text |
 * | 1 | releaseId | bstr(16) |
 * | 2 | feature | text |
 * | 3 | fingerprint | bstr(16), fingerprint of the asset key |
 * | 4 | nonce | bstr(24) |
 */
export interface SealedAssetHeader {
  productId: string;
  releaseId: Uint8Array;
  feature: string;
  fingerprint: Uint8Array;
  nonce: Uint8Array;
}

/** Layout of {@link SealedAssetHeader}. */
export const sealedAssetHeaderSpec: CborRecordSpec<SealedAssetHeader> = cborRecord('SealedAssetHeader', {
  productId: field(0, productIdSchema),
  releaseId: field(1, bytesSchema(assetKeyLengths.releaseId)),
  feature: field(2, v.pipe(textSchema(1, 128), v.regex(entitlementNamePattern, 'feature names are visible ASCII (0x21–0x7E)'))),
  fingerprint: field(3, bytesSchema(assetKeyLengths.fingerprint)),
  nonce: field(4, bytesSchema(assetKeyLengths.nonce)),
});

const prefixBytes = sealedAssetMagic.length + 2;
const maxHeaderBytes = 1024;

/**
 * Seals an asset (a model file, a level pack, a plugin) with the asset key of one (release, feature),
 * for a vendor's build pipeline: `magic (5) ‖ header length (u16, big-endian) ‖ header (canonical CBOR) ‖
 * XChaCha20-Poly1305(key, header.nonce, aad = everything before it).encrypt(asset)`. Only a device
 * entitled to the feature on that release receives the key (wrapped in its credential and tickets).
 *
 * @param input - The asset key and what it belongs to, and the asset bytes.
 * @param random - Nonce source.
 * @returns The sealed bytes (asset length + 16-byte tag + a header of about 100 bytes).
 * @example
 * ```ts
 * import { sealAsset, hexDecode } from '@tollgate/core';
 * const sealed = sealAsset({ key, productId: 'acme-editor', releaseId: hexDecode(releaseIdHex), feature: 'export.pdf', asset });
 * ```
 */
export function sealAsset(input: { key: Uint8Array; productId: string; releaseId: Uint8Array; feature: string; asset: Uint8Array }, random: RandomSource = randomBytes): Uint8Array {
  if (!(input.key instanceof Uint8Array) || input.key.length !== assetKeyLengths.key) throw new CryptoError('invalid_key', 'An asset key is 32 bytes.');
  const header: SealedAssetHeader = {
    productId: input.productId,
    releaseId: input.releaseId,
    feature: input.feature,
    fingerprint: assetKeyFingerprint(input.key),
    nonce: random(assetKeyLengths.nonce),
  };
  const headerBytes = encodeCanonical(sealedAssetHeaderSpec.toCbor(header));
  decodeRecord(sealedAssetHeaderSpec, headerBytes); // refuses a header our reader would refuse
  const prefix = new Uint8Array(prefixBytes + headerBytes.length);
  prefix.set(sealedAssetMagic, 0);
  prefix[sealedAssetMagic.length] = headerBytes.length >> 8;
  prefix[sealedAssetMagic.length + 1] = headerBytes.length & 0xff;
  prefix.set(headerBytes, prefixBytes);
  const ciphertext = xchacha20poly1305(input.key, header.nonce, prefix).encrypt(input.asset);
  const sealed = new Uint8Array(prefix.length + ciphertext.length);
  sealed.set(prefix, 0);
  sealed.set(ciphertext, prefix.length);
  return sealed;
}

/**
 * Reads a sealed asset's header without decrypting: which feature's key (and which release's) opens it.
 *
 * @param sealed - The sealed bytes.
 * @returns The header and the length of the authenticated prefix.
 * @throws {@link CryptoError} `invalid_argument` when the bytes are not a sealed asset.
 * @example
 * ```ts
 * import { readSealedAssetHeader } from '@tollgate/core/license';
 * const { header } = readSealedAssetHeader(bytes);
 * ```
 */
export function readSealedAssetHeader(sealed: Uint8Array): { header: SealedAssetHeader; prefixLength: number } {
  const malformed = (why: string, cause?: unknown) => new CryptoError('invalid_argument', `Not a sealed asset: ${why}.`, { details: { argument: 'sealed' }, cause });
  if (!(sealed instanceof Uint8Array) || sealed.length < prefixBytes) throw malformed('too short');
  if (!constantTimeEqual(sealed.subarray(0, sealedAssetMagic.length), sealedAssetMagic)) throw malformed('unknown magic or version');
  const headerLength = ((sealed[sealedAssetMagic.length] as number) << 8) | (sealed[sealedAssetMagic.length + 1] as number);
  if (headerLength > maxHeaderBytes || sealed.length < prefixBytes + headerLength + 16) throw malformed('truncated header or body');
  try {
    return { header: decodeRecord(sealedAssetHeaderSpec, sealed.subarray(prefixBytes, prefixBytes + headerLength)), prefixLength: prefixBytes + headerLength };
  } catch (error) {
    throw malformed('malformed header', error);
  }
}

/**
 * Opens a sealed asset with its asset key. The key's fingerprint must be the header's (a key of another
 * feature or release, or a rotated key, is named as such), and the header is authenticated with the body.
 *
 * @param sealed - The sealed bytes.
 * @param key - The 32-byte asset key (from `unwrapAssetKey`).
 * @returns The header and the asset.
 * @throws {@link CryptoError} `invalid_argument` for bytes that are no sealed asset; `invalid_key` for
 *   another key or altered bytes.
 * @example
 * ```ts
 * import { openSealedAsset } from '@tollgate/core/license';
 * const { asset } = openSealedAsset(bytes, key);
 * ```
 */
export function openSealedAsset(sealed: Uint8Array, key: Uint8Array): { header: SealedAssetHeader; asset: Uint8Array } {
  const { header, prefixLength } = readSealedAssetHeader(sealed);
  if (!(key instanceof Uint8Array) || key.length !== assetKeyLengths.key || !constantTimeEqual(assetKeyFingerprint(key), header.fingerprint)) {
    throw new CryptoError('invalid_key', `This key does not open the asset: it was sealed for feature ${header.feature} with another key.`);
  }
  try {
    return { header, asset: xchacha20poly1305(key, header.nonce, sealed.subarray(0, prefixLength)).decrypt(sealed.subarray(prefixLength)) };
  } catch (error) {
    throw new CryptoError('invalid_key', 'The sealed asset does not open: its bytes were altered.', { cause: error });
  }
}
