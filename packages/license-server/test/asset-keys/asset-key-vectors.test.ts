/**
 * The asset-key known-answer vectors: the checked-in file is what the builder generates today
 * (`node scripts/generate-license-vectors.mjs --check` in test form), and its answers check out with
 * the client SDK's unwrap and open, independently of the builder: each wrapped key unwraps to the
 * listed key with the listed device secret, the sealed asset opens, and every negative case fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { CryptoError } from '@tollgate/core/crypto';
import { decodeWrappedAssetKeys, type ValidationTicket } from '@tollgate/core/license';
import { openAsset, unwrapAssetKey } from '@tollgate/client-sdk';
import { renderAssetKeyVectors } from '../../../core/src/license/asset-keys/asset-key-vectors';

const path = new URL('../../../core/test/vectors/license-asset-keys-v1.json', import.meta.url);
const text = readFileSync(path, 'utf8');
const vectors = JSON.parse(text);

/** A ticket payload carrying the vector's block with the vector's context (the fields unwrap reads). */
function ticketWith(block = decodeWrappedAssetKeys(hexDecode(vectors.block.encoded))): ValidationTicket {
  const context = vectors.context;
  return {
    protoVersion: 1,
    licenseId: hexDecode(context.license_id),
    machineId: hexDecode(context.machine_id),
    nonceEcho: hexDecode(context.nonce_echo),
    serverNonce: new Uint8Array(32),
    serverTime: context.issued_at,
    refreshAfter: context.issued_at,
    graceSeconds: 0,
    revocationEpoch: context.revocation_epoch,
    verdict: 0,
    securityFloor: 0,
    assetKeys: block,
  };
}

describe('license-asset-keys-v1.json', () => {
  it('is what the builder generates', () => {
    expect(renderAssetKeyVectors()).toBe(text);
  });

  it('unwraps every listed key with the device secret and opens the sealed asset', () => {
    const artifact = { kind: 'validation-ticket' as const, productId: vectors.context.product_id as string, payload: ticketWith() };
    for (const entry of vectors.block.keys) expect(unwrapAssetKey(artifact, entry.feature, hexDecode(vectors.device.kem_secret))).toEqual(hexDecode(entry.key));
    expect(openAsset(hexDecode(vectors.sealed_asset.sealed), hexDecode(vectors.sealed_asset.key), { feature: vectors.sealed_asset.feature })).toEqual(hexDecode(vectors.sealed_asset.plaintext));
  });

  it('fails every negative case', () => {
    const secret = hexDecode(vectors.device.kem_secret);
    for (const negative of vectors.negative) {
      const attempt = () => {
        if (negative.sealed !== undefined) return openAsset(hexDecode(negative.sealed), hexDecode(vectors.sealed_asset.key));
        const payload = ticketWith();
        const block = payload.assetKeys as NonNullable<ValidationTicket['assetKeys']>;
        const source = block.keys.find((entry) => entry.feature === (negative.ciphertext_of ?? negative.feature));
        const keys = block.keys.map((entry) =>
          entry.feature === negative.feature ? { ...entry, ...(source === undefined ? {} : { nonce: source.nonce, ciphertext: source.ciphertext }), ...(negative.ciphertext === undefined ? {} : { ciphertext: hexDecode(negative.ciphertext) }) } : entry,
        );
        const moved = { ...payload, assetKeys: { ...block, keys } };
        const kind = negative.context_kind ?? 'validation-ticket';
        const artifact = kind === 'machine-credential' ? ({ kind, productId: vectors.context.product_id, payload: { ...moved, issuedAt: moved.serverTime } } as never) : { kind, productId: vectors.context.product_id, payload: moved };
        return unwrapAssetKey(artifact, negative.feature, negative.kem_secret === undefined ? secret : hexDecode(negative.kem_secret));
      };
      expect(attempt, negative.name).toThrow(CryptoError);
      try {
        attempt();
      } catch (error) {
        expect((error as CryptoError).code, negative.name).toBe(negative.expected_error);
      }
    }
  });
});
