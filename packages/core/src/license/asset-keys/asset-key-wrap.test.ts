import { x25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical } from '../../cbor';
import { CryptoError } from '../../crypto/crypto-error';
import { randomBytes } from '../../crypto/random';
import { parseRecord } from '../record-codec';
import { assetKeyFingerprint } from './asset-key-fingerprint';
import { deriveAssetKeySealKey, openAssetKey, sealAssetKey } from './asset-key-seal';
import { wrappedAssetKeysSpec } from './asset-key-wire';
import { unwrapAssetKey, wrapAssetKeys, type AssetKeyWrapContext } from './asset-key-wrap';
import { openSealedAsset, readSealedAssetHeader, sealAsset } from './sealed-asset';

const device = x25519.keygen();
const other = x25519.keygen();
const context: AssetKeyWrapContext = {
  kind: 'validation-ticket',
  productId: 'acme-editor',
  licenseId: randomBytes(16),
  machineId: randomBytes(16),
  nonceEcho: randomBytes(32),
  issuedAt: 1_800_000_000,
  revocationEpoch: 3,
};
const releaseId = randomBytes(16);
const pdfKey = randomBytes(32);
const svgKey = randomBytes(32);
const block = wrapAssetKeys({ deviceKemKey: device.publicKey, context, releaseId, keys: new Map([['export.svg', svgKey], ['export.pdf', pdfKey]]) });

describe('asset key wraps', () => {
  it('unwraps each feature with the device key, and the block survives its wire form', () => {
    const wire = parseRecord(wrappedAssetKeysSpec, decodeCanonical(encodeCanonical(wrappedAssetKeysSpec.toCbor(block))));
    expect(wire.keys.map((entry) => entry.feature)).toEqual(['export.pdf', 'export.svg']);
    expect(unwrapAssetKey({ block: wire, context, feature: 'export.pdf', kemPrivateKey: device.secretKey })).toEqual(pdfKey);
    expect(unwrapAssetKey({ block: wire, context, feature: 'export.svg', kemPrivateKey: device.secretKey })).toEqual(svgKey);
    expect(wire.keys[0]?.fingerprint).toEqual(assetKeyFingerprint(pdfKey));
  });

  it('fails for another device, a changed byte, another artifact, and a wrap moved to another feature', () => {
    const open = (overrides: Partial<Parameters<typeof unwrapAssetKey>[0]>) => () => unwrapAssetKey({ block, context, feature: 'export.pdf', kemPrivateKey: device.secretKey, ...overrides });
    expect(open({ kemPrivateKey: other.secretKey })).toThrow(CryptoError);
    const tampered = structuredClone(block);
    const ciphertext = (tampered.keys[0] as { ciphertext: Uint8Array }).ciphertext;
    ciphertext[5] = (ciphertext[5] as number) ^ 1;
    expect(open({ block: tampered })).toThrow(/does not unwrap/);
    expect(open({ context: { ...context, kind: 'machine-credential' } })).toThrow(CryptoError);
    expect(open({ context: { ...context, machineId: randomBytes(16) } })).toThrow(CryptoError);
    expect(open({ context: { ...context, issuedAt: context.issuedAt + 1 } })).toThrow(CryptoError);
    expect(open({ block: { ...block, releaseId: randomBytes(16) } })).toThrow(CryptoError);
    const swapped = { ...block, keys: [{ ...(block.keys[1] as (typeof block.keys)[number]), feature: 'export.pdf' }] };
    expect(open({ block: swapped })).toThrow(CryptoError);
    expect(open({ feature: 'nope' })).toThrow(/no asset key/);
  });

  it('refuses a low-order device key', () => {
    expect(() => wrapAssetKeys({ deviceKemKey: new Uint8Array(32), context, releaseId, keys: new Map([['a', pdfKey]]) })).toThrow(CryptoError);
  });
});

describe('asset keys at rest', () => {
  it('opens only under the same subkey and row', () => {
    const sealKey = deriveAssetKeySealKey(randomBytes(32));
    const sealed = sealAssetKey(sealKey, { releaseId: 'ab'.repeat(16), featureId: 'export.pdf' }, pdfKey);
    expect(openAssetKey(sealKey, { releaseId: 'ab'.repeat(16), featureId: 'export.pdf' }, sealed)).toEqual(pdfKey);
    expect(() => openAssetKey(sealKey, { releaseId: 'ab'.repeat(16), featureId: 'export.svg' }, sealed)).toThrow(CryptoError);
    expect(() => openAssetKey(deriveAssetKeySealKey(randomBytes(32)), { releaseId: 'ab'.repeat(16), featureId: 'export.pdf' }, sealed)).toThrow(CryptoError);
  });
});

describe('sealed assets', () => {
  const asset = randomBytes(1000);
  const sealed = sealAsset({ key: pdfKey, productId: 'acme-editor', releaseId, feature: 'export.pdf', asset });

  it('opens with its key and names its feature', () => {
    expect(readSealedAssetHeader(sealed).header.feature).toBe('export.pdf');
    expect(openSealedAsset(sealed, pdfKey).asset).toEqual(asset);
  });

  it('refuses another key, a changed byte anywhere, and garbage', () => {
    expect(() => openSealedAsset(sealed, svgKey)).toThrow(/another key/);
    for (const at of [0, 8, 40, sealed.length - 1]) {
      const copy = sealed.slice();
      copy[at] = (copy[at] as number) ^ 1;
      expect(() => openSealedAsset(copy, pdfKey), `byte ${at}`).toThrow(CryptoError);
    }
    expect(() => readSealedAssetHeader(randomBytes(10))).toThrow(/Not a sealed asset/);
  });
});
