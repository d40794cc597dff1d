/**
 * Interop proof: an independent COSE implementation (`@auth0/cose`, a dev dependency that shares no
 * code with ours) verifies every known-answer vector of license-v1.json given only the signer's public
 * key and the documented `external_aad`, refuses tampered copies, and refuses the negative vectors that
 * must fail on the signature. If this breaks, other languages' stock COSE libraries break too.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sign1 } from '@auth0/cose';
import { hexDecode } from '@tollgate/core';
import { base64UrlEncode } from '@tollgate/core/crypto';
import { licenseExternalAad, type ArtifactKind, type DeviceRequestKind } from '@tollgate/core/license';
import { loadLicenseVectors } from './check-license-vectors';

const vectors = loadLicenseVectors();

/** A Node public key object for a raw 32-byte Ed25519 key (what `@auth0/cose` verifies with). */
function ed25519Key(publicKeyHex: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(hexDecode(publicKeyHex)) }, format: 'jwk' });
}

/** Public keys of every named signer in the file (roots, epochs, devices). */
const publicKeys = new Map<string, string>([
  ...Object.entries(vectors.roots).map(([name, root]) => [name, root.public_key] as [string, string]),
  ...Object.entries(vectors.epochs).map(([name, epoch]) => [name, epoch.public_key] as [string, string]),
  ...Object.entries(vectors.devices).map(([name, device]) => [name, device.public_key] as [string, string]),
]);

function keyOf(name: string): KeyObject {
  const hex = publicKeys.get(name);
  if (hex === undefined) throw new Error(`no public key named ${name} in the vectors`);
  return ed25519Key(hex);
}

/** Resolves to 'verified' or to the name of the error `@auth0/cose` threw. */
async function coseOutcome(envelope: Uint8Array, key: KeyObject, externalAAD: Uint8Array): Promise<string> {
  try {
    const message = Sign1.decode(envelope);
    await message.verify(key, { externalAAD, algorithms: [-8] });
    return 'verified';
  } catch (error) {
    return error instanceof Error ? error.name || 'Error' : 'thrown';
  }
}

describe('@auth0/cose verifies the known-answer vectors', () => {
  it('covers every artifact kind', () => {
    const kinds = new Set(vectors.artifacts.map((vector) => vector.kind));
    for (const kind of ['epoch-certificate', 'machine-credential', 'validation-ticket', 'kill-order', 'revocation-batch', 'offline-response']) expect(kinds).toContain(kind);
  });

  for (const vector of vectors.artifacts) {
    it(`${vector.name}: alg -8, verifies with the ${vector.signer} key and the documented external_aad`, async () => {
      const envelope = hexDecode(vector.envelope);
      const message = Sign1.decode(envelope);
      expect(message.alg).toBe(-8);
      expect(message.unprotectedHeaders.size).toBe(0);
      expect(Buffer.from(message.payload).toString('hex')).toBe(vector.payload);
      // The domain bytes, as §4 defines them, not copied from the file: the two must agree.
      const externalAAD = licenseExternalAad(vector.kind as ArtifactKind, vector.product_id ?? undefined);
      expect(Buffer.from(externalAAD).toString('hex')).toBe(vector.external_aad);
      expect(await coseOutcome(envelope, keyOf(vector.signer), externalAAD)).toBe('verified');
    });
  }

  it('refuses every artifact under another domain, another key, or with one payload bit flipped', async () => {
    const someoneElse = keyOf('root-unpinned');
    for (const vector of vectors.artifacts) {
      const envelope = hexDecode(vector.envelope);
      const externalAAD = hexDecode(vector.external_aad);
      const otherDomain = licenseExternalAad(vector.kind === 'kill-order' ? 'validation-ticket' : 'kill-order', 'acme-editor');
      expect(await coseOutcome(envelope, keyOf(vector.signer), otherDomain)).not.toBe('verified');
      expect(await coseOutcome(envelope, someoneElse, externalAAD)).not.toBe('verified');
      const message = Sign1.decode(envelope);
      const payload = Uint8Array.from(message.payload);
      payload[payload.length - 1] = (payload[payload.length - 1] as number) ^ 0x01;
      const tampered = new Sign1(hexDecode(vector.protected), new Map(), payload, message.signature);
      await expect(tampered.verify(keyOf(vector.signer), { externalAAD })).rejects.toThrow();
    }
  });

  for (const vector of vectors.device_requests) {
    it(`device request ${vector.name}: the proof is a COSE_Sign1 signature over the detached request`, async () => {
      const message = new Sign1(hexDecode(vector.protected), new Map(), hexDecode(vector.signed_payload), hexDecode(vector.proof));
      const externalAAD = hexDecode(vector.external_aad);
      expect(message.alg).toBe(-8);
      await expect(message.verify(keyOf(vector.device), { externalAAD, algorithms: [-8] })).resolves.toBeUndefined();
      const replayed = licenseExternalAad((vector.kind === 'heartbeat-request' ? 'deactivate-request' : 'heartbeat-request') as DeviceRequestKind, 'acme-editor');
      await expect(message.verify(keyOf(vector.device), { externalAAD: replayed })).rejects.toThrow();
    });
  }

  it('agrees with the negative vectors that must fail on the signature', async () => {
    const badSignature = vectors.negative.filter((vector) => vector.check === 'artifact' && vector.expected_error === 'bad_signature');
    expect(badSignature.length).toBeGreaterThan(0);
    for (const vector of badSignature) {
      const externalAAD = licenseExternalAad(vector.kind as ArtifactKind, vector.product_id ?? undefined);
      for (const name of vector.keys ?? []) expect(await coseOutcome(hexDecode(vector.input), keyOf(name), externalAAD), vector.name).not.toBe('verified');
    }
  });
});
