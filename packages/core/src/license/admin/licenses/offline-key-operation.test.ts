import { describe, expect, it } from 'vitest';
import { createNobleEd25519Signer, verifyEd25519 } from '../../../crypto/ed25519';
import { hexEncode } from '../../../crypto/hex';
import { utf8Encode } from '../../../crypto/utf8';
import { decodeProtectedHeader, decodeSign1, sigStructure } from '../../cose-sign1';
import { offlineKeySpec, type OfflineKey } from '../../payloads/offline-key';
import { decodeRecord } from '../../record-codec';
import { signOfflineKey } from './offline-key-operation';

const signer = createNobleEd25519Signer({ privateKey: new Uint8Array(32).fill(3), kid: '0102030405060708' });
const productId = 'cd'.repeat(16);
const key: OfflineKey = {
  protoVersion: 1,
  bundleId: new Uint8Array(16).fill(1),
  licenseId: new Uint8Array(16).fill(2),
  releaseId: new Uint8Array(16).fill(3),
  issuedAt: 1_800_000_000,
  expiresAt: 1_900_000_000,
  maxSeats: 2,
  boundFingerprint: new Uint8Array(32).fill(4),
  tier: 'pro',
  features: ['export.pdf', 'sync'],
  entitlementDigest: new Uint8Array(32).fill(5),
  revocationEpoch: 7,
  versionMin: '1.0.0',
};

describe('signOfflineKey', () => {
  it('signs a product-bound COSE_Sign1 whose domain is the offline-key kind and the product', async () => {
    const envelope = await signOfflineKey(key, { signer, productId });
    const parts = decodeSign1(envelope);
    const header = decodeProtectedHeader(parts.protectedBytes);
    expect(header.contentType).toBe('application/vnd.tollgate.offline-key+cbor');
    expect(hexEncode(header.kid as Uint8Array)).toBe('0102030405060708');
    expect(header.productId).toBe(productId);
    const aad = (product: string) => utf8Encode(`tollgate/license/v1/offline-key\0${product}`);
    expect(verifyEd25519(signer.publicKey, sigStructure(parts.protectedBytes, aad(productId), parts.payload), parts.signature)).toBe(true);
    // Bound to its product and kind: another product's or kind's domain does not verify.
    expect(verifyEd25519(signer.publicKey, sigStructure(parts.protectedBytes, aad('ef'.repeat(16)), parts.payload), parts.signature)).toBe(false);
    const asTicket = utf8Encode(`tollgate/license/v1/validation-ticket\0${productId}`);
    expect(verifyEd25519(signer.publicKey, sigStructure(parts.protectedBytes, asTicket, parts.payload), parts.signature)).toBe(false);
    expect(decodeRecord(offlineKeySpec, parts.payload)).toEqual(key);
  });

  it('refuses a payload that breaks the layout', async () => {
    await expect(signOfflineKey({ ...key, features: ['sync', 'export.pdf'] }, { signer, productId })).rejects.toMatchObject({ reason: 'invalid_payload' });
    await expect(signOfflineKey({ ...key, expiresAt: key.issuedAt }, { signer, productId })).rejects.toMatchObject({ reason: 'invalid_payload' });
  });
});
