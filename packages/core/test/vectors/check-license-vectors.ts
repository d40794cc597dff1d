/**
 * The shared check of `license-v1.json`, run by core, the license server and the client SDK with their
 * own verification functions: (a) the file is exactly what the deterministic builder produces, (b) every
 * positive vector's encodings and signatures match and verify, (c) every negative vector fails with its
 * named reason.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hexDecode, hexEncode, type Signer } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import { verifyEd25519 } from '@tollgate/core/crypto';
import {
  ArtifactError,
  decodeArtifactPayload,
  decodeLicenseMessage,
  decodeSign1,
  encodeArtifactPayload,
  encodeLicenseMessage,
  sigStructure,
  signArtifact,
  signDeviceRequest,
  type ArtifactKind,
  type ArtifactPayloads,
  type DeviceRequestKind,
  type EpochKey,
  type LicenseMessageKind,
} from '@tollgate/core/license';
import { renderLicenseVectors } from './build-license-vectors';
import { cborDiagnostic } from './cbor-diagnostic';
import type { LicenseVectorFile, VectorEpoch } from './vector-format';

/** Path of the vector file. */
export const licenseVectorPath = fileURLToPath(new URL('./license-v1.json', import.meta.url));

/** The vector file, parsed. */
export function loadLicenseVectors(): LicenseVectorFile {
  return JSON.parse(readFileSync(licenseVectorPath, 'utf8')) as LicenseVectorFile;
}

/** The verification functions an implementation exposes to the vector check. */
export interface LicenseVectorImplementation {
  /** Signer factory (noble in core and the client, Node-native on the server). */
  createSigner(seed: Uint8Array, kid: string): Signer;
  verifyKeyset(bytes: Uint8Array, pinnedRoots: Uint8Array[], now: number): { epochIds: string[]; expiredEpochIds: string[]; revocationEpoch: number };
  verifyArtifact(bytes: Uint8Array, kind: Exclude<ArtifactKind, 'epoch-certificate'>, context: { epochs: EpochKey[]; productId: string | undefined; now: number; revokedEpochIds: string[] }): unknown;
  verifyEpochCertificate(bytes: Uint8Array, pinnedRoots: Uint8Array[], now: number): { epochIdHex: string };
  verifyDeviceRequest(kind: DeviceRequestKind, bytes: Uint8Array, devicePublicKey: Uint8Array): unknown;
}

function epochKey(entry: VectorEpoch): EpochKey {
  return {
    epochId: hexDecode(entry.epoch_id),
    epochIdHex: entry.epoch_id,
    publicKey: hexDecode(entry.public_key),
    notBefore: entry.not_before,
    notAfter: entry.not_after,
    ...(entry.product_scope === null ? {} : { productScope: entry.product_scope }),
  };
}

function expectReason(run: () => unknown, reason: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected ${reason}`).toBeInstanceOf(ArtifactError);
  expect((caught as ArtifactError).reason).toBe(reason);
}

/**
 * Registers the vector checks for one implementation.
 *
 * @param name - The implementation's name in test titles.
 * @param implementation - Its verification functions.
 */
export function describeLicenseVectors(name: string, implementation: LicenseVectorImplementation): void {
  const vectors = loadLicenseVectors();
  const rootKey = (root: string) => hexDecode((vectors.roots[root] as { public_key: string }).public_key);
  const epoch = (epochName: string) => vectors.epochs[epochName] as VectorEpoch;

  describe(`license-v1.json [${name}]`, () => {
    it('is byte-identical to what the deterministic builder produces', async () => {
      expect(await renderLicenseVectors()).toBe(readFileSync(licenseVectorPath, 'utf8'));
    });

    it('covers every artifact kind, device request kind and message kind', () => {
      expect(new Set(vectors.artifacts.map((vector) => vector.kind))).toEqual(
        new Set(['epoch-certificate', 'machine-credential', 'validation-ticket', 'kill-order', 'revocation-batch', 'offline-response']),
      );
      expect(vectors.device_requests.map((vector) => vector.kind).sort()).toEqual(['activation-request', 'deactivate-request', 'heartbeat-request', 'offline-request', 'validate-request']);
      expect(vectors.messages).toHaveLength(8);
    });

    for (const vector of vectors.artifacts) {
      it(`artifact ${vector.name}: encoding, Sig_structure, signature and verification match`, async () => {
        const envelope = hexDecode(vector.envelope);
        const parts = decodeSign1(envelope);
        expect(hexEncode(parts.protectedBytes)).toBe(vector.protected);
        expect(hexEncode(parts.payload)).toBe(vector.payload);
        expect(hexEncode(parts.signature)).toBe(vector.signature);
        expect(cborDiagnostic(decodeCanonical(parts.payload))).toBe(vector.payload_diagnostic);
        const message = sigStructure(parts.protectedBytes, hexDecode(vector.external_aad), parts.payload);
        expect(hexEncode(message)).toBe(vector.sig_structure);
        const isRoot = vector.kind === 'epoch-certificate';
        const signerEntry = isRoot ? vectors.roots[vector.signer] : vectors.epochs[vector.signer];
        if (signerEntry === undefined) throw new Error(`unknown signer ${vector.signer}`);
        expect(verifyEd25519(hexDecode(signerEntry.public_key), message, parts.signature)).toBe(true);

        const kid = isRoot ? (vectors.roots[vector.signer] as { key_id: string }).key_id : epoch(vector.signer).epoch_id;
        const signer = implementation.createSigner(hexDecode(signerEntry.seed), kid);
        if (isRoot) {
          const certificate = decodeArtifactPayload('epoch-certificate', parts.payload);
          // Checked at its own notBefore: the vector set includes an expired and a future epoch.
          expect(implementation.verifyEpochCertificate(envelope, [rootKey(vector.signer)], certificate.notBefore).epochIdHex).toBe(hexEncode(certificate.epochId));
          const resigned = await signArtifact('epoch-certificate', certificate, { signer });
          expect(hexEncode(resigned)).toBe(vector.envelope);
          return;
        }
        const kind = vector.kind as Exclude<ArtifactKind, 'epoch-certificate'>;
        const payload = implementation.verifyArtifact(envelope, kind, { epochs: [epochKey(epoch(vector.signer))], productId: vector.product_id ?? undefined, now: vectors.now, revokedEpochIds: [] });
        expect(hexEncode(encodeArtifactPayload(kind, payload as ArtifactPayloads[typeof kind]))).toBe(vector.payload);
        const resigned = await signArtifact(kind, payload as ArtifactPayloads[typeof kind], { signer, ...(vector.product_id === null ? {} : { productId: vector.product_id }) });
        expect(hexEncode(resigned)).toBe(vector.envelope);
      });
    }

    for (const vector of vectors.device_requests) {
      it(`device request ${vector.name}: proof message and proof match and verify`, async () => {
        const device = vectors.devices[vector.device] as { seed: string; public_key: string };
        const encoded = hexDecode(vector.encoded);
        const request = implementation.verifyDeviceRequest(vector.kind as DeviceRequestKind, encoded, hexDecode(device.public_key)) as { proof: Uint8Array };
        expect(hexEncode(request.proof)).toBe(vector.proof);
        expect(hexEncode(sigStructure(hexDecode(vector.protected), hexDecode(vector.external_aad), hexDecode(vector.signed_payload)))).toBe(vector.proof_message);
        expect(verifyEd25519(hexDecode(device.public_key), hexDecode(vector.proof_message), request.proof)).toBe(true);
        const { proof: _proof, ...unsigned } = request;
        const resigned = await signDeviceRequest(vector.kind as DeviceRequestKind, unsigned as never, implementation.createSigner(hexDecode(device.seed), vector.device));
        expect(hexEncode(resigned)).toBe(vector.encoded);
        expect(cborDiagnostic(decodeCanonical(encoded))).toBe(vector.request_diagnostic);
      });
    }

    for (const vector of vectors.messages) {
      it(`message ${vector.name}: decodes and re-encodes byte-identically`, () => {
        const kind = vector.kind as LicenseMessageKind;
        const message = decodeLicenseMessage(kind, hexDecode(vector.encoded));
        expect(hexEncode(encodeLicenseMessage(kind, message as never))).toBe(vector.encoded);
        expect(cborDiagnostic(decodeCanonical(hexDecode(vector.encoded)))).toBe(vector.diagnostic);
      });
    }

    for (const vector of vectors.keysets) {
      it(`keyset ${vector.name}`, () => {
        const run = () => implementation.verifyKeyset(hexDecode(vector.encoded), vector.pinned_roots.map(rootKey), vector.now);
        if ('error' in vector.expected) {
          expectReason(run, vector.expected.error);
          return;
        }
        const result = run();
        expect(result.epochIds).toEqual(vector.expected.epochs);
        expect(result.expiredEpochIds).toEqual(vector.expected.expired);
        expect(result.revocationEpoch).toBe(vector.expected.revocation_epoch);
      });
    }

    for (const vector of vectors.negative) {
      it(`negative ${vector.check} ${vector.name} fails with ${vector.expected_error}`, () => {
        const input = hexDecode(vector.input);
        if (vector.check === 'artifact') {
          expectReason(
            () =>
              implementation.verifyArtifact(input, vector.kind as Exclude<ArtifactKind, 'epoch-certificate'>, {
                epochs: vector.keys.map((name) => epochKey(epoch(name))),
                productId: vector.product_id ?? undefined,
                now: vector.now,
                revokedEpochIds: vector.revoked_epochs.map((name) => epoch(name).epoch_id),
              }),
            vector.expected_error,
          );
        } else if (vector.check === 'certificate') {
          expectReason(() => implementation.verifyEpochCertificate(input, vector.pinned_roots.map(rootKey), vector.now), vector.expected_error);
        } else {
          const device = vectors.devices[vector.device as string] as { public_key: string };
          expectReason(() => implementation.verifyDeviceRequest(vector.kind as DeviceRequestKind, input, hexDecode(device.public_key)), vector.expected_error);
        }
      });
    }
  });
}

