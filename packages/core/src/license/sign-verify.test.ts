import { describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import { verifyEd25519 } from '@tollgate/core/crypto';
import {
  artifactKinds,
  ArtifactError,
  checkEpochWindow,
  decodeArtifactPayload,
  decodeSign1,
  encodeArtifactPayload,
  encodeSign1,
  inspectArtifact,
  isArtifactError,
  licenseClockSkewSeconds,
  signArtifact,
  verifyArtifact,
  type ArtifactKind,
  type EpochKey,
} from '@tollgate/core/license';
import { verifyEd25519Node } from '@tollgate/core/node';
import { longerHeadVariants } from '../../test/license/non-canonical';
import { samplePayloads, vectorEpochs, vectorNow, vectorProductId } from '../../test/vectors/license-fixtures';

const { global, acme } = vectorEpochs;
const keys = { epochs: new Map<string, EpochKey>([global, acme].map((epoch) => [epoch.epochIdHex, epoch])) };
type EpochSignedKind = Exclude<ArtifactKind, 'epoch-certificate'>;
const productOf = (kind: EpochSignedKind) => (artifactKinds[kind].scope === 'global' ? undefined : vectorProductId);

async function signedSamples() {
  const payloads = await samplePayloads();
  payloads['offline-response'] = { ...payloads['offline-response'], credential: new Uint8Array([0x80]), certificates: [new Uint8Array([0x80])] };
  const kinds = Object.keys(payloads) as EpochSignedKind[];
  return Promise.all(
    kinds.map(async (kind) => {
      const productId = productOf(kind);
      const envelope = await signArtifact(kind, payloads[kind] as never, { signer: global.signer, ...(productId === undefined ? {} : { productId }) });
      return { kind, productId, payload: payloads[kind], envelope };
    }),
  );
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isArtifactError(error)) return error.reason;
    throw error;
  }
  return undefined;
}

describe('signArtifact / verifyArtifact', () => {
  it('round-trips every epoch-signed kind to an identical payload, with noble and Node verifiers alike', async () => {
    for (const { kind, productId, payload, envelope } of await signedSamples()) {
      for (const verify of [verifyEd25519, verifyEd25519Node]) {
        const verified = verifyArtifact(envelope, kind, { keys, ...(productId === undefined ? {} : { productId }), now: vectorNow, verify });
        expect(verified.kind).toBe(kind);
        expect(verified.productId).toBe(productId);
        expect(verified.epoch.epochIdHex).toBe(global.epochIdHex);
        expect(encodeArtifactPayload(kind, verified.payload as never)).toEqual(encodeArtifactPayload(kind, payload as never));
      }
    }
  });

  it('omits absent optionals instead of encoding null', async () => {
    const payloads = await samplePayloads();
    const { expiresAt: _a, entitlements: _b, releaseStatus: _c, refreshNow: _d, telemetryWindow: _e, ...minimal } = payloads['validation-ticket'];
    const envelope = await signArtifact('validation-ticket', minimal, { signer: acme.signer, productId: vectorProductId });
    const payload = decodeSign1(envelope).payload;
    expect([...(decodeCanonical(payload) as Map<number, unknown>).keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
    expect(verifyArtifact(envelope, 'validation-ticket', { keys, productId: vectorProductId, now: vectorNow }).payload).toEqual(minimal);
  });

  it('refuses to sign a payload that breaks its layout, naming the field', async () => {
    const payloads = await samplePayloads();
    const bad = { ...payloads['kill-order'], nonceEcho: new Uint8Array(31) };
    const error = await signArtifact('kill-order', bad, { signer: acme.signer, productId: vectorProductId }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as ArtifactError).reason).toBe('invalid_payload');
    expect((error as ArtifactError).message).toMatch(/nonceEcho \(key 3\)/);
    const unknownField = { ...payloads['kill-order'], extra: 1 } as never;
    await expect(signArtifact('kill-order', unknownField, { signer: acme.signer, productId: vectorProductId })).rejects.toMatchObject({ reason: 'invalid_payload' });
    const unsorted = { ...payloads['revocation-batch'], licenseIds: [...payloads['revocation-batch'].licenseIds].reverse() };
    await expect(signArtifact('revocation-batch', unsorted, { signer: global.signer })).rejects.toMatchObject({ reason: 'invalid_payload' });
  });

  it('refuses a product for global kinds, a missing or malformed product for product-bound kinds, and bad signers', async () => {
    const payloads = await samplePayloads();
    await expect(signArtifact('revocation-batch', payloads['revocation-batch'], { signer: global.signer, productId: vectorProductId })).rejects.toThrow(TypeError);
    await expect(signArtifact('kill-order', payloads['kill-order'], { signer: global.signer })).rejects.toThrow(TypeError);
    await expect(signArtifact('kill-order', payloads['kill-order'], { signer: global.signer, productId: 'Acme Editor' })).rejects.toThrow(TypeError);
    const badKid = { ...global.signer, kid: 'epoch-1' };
    await expect(signArtifact('kill-order', payloads['kill-order'], { signer: badKid, productId: vectorProductId })).rejects.toThrow(/16 lower-case hex/);
    const shortSignature = { ...global.signer, sign: async () => new Uint8Array(10) };
    await expect(signArtifact('kill-order', payloads['kill-order'], { signer: shortSignature, productId: vectorProductId })).rejects.toThrow(/64-byte/);
  });

  it('requires the expected product for product-bound kinds and an integer time', async () => {
    const [sample] = await signedSamples();
    if (sample === undefined) throw new Error('no sample');
    expect(() => verifyArtifact(sample.envelope, sample.kind, { keys, now: vectorNow })).toThrow(TypeError);
    expect(() => verifyArtifact(sample.envelope, sample.kind, { keys, productId: vectorProductId, now: vectorNow + 0.5 })).toThrow(TypeError);
    expect(() => verifyArtifact(sample.envelope, 'epoch-certificate' as never, { keys, now: vectorNow })).toThrow(TypeError);
  });

  it('names the epoch window it refuses, widened by the clock skew allowance at the exact boundaries', async () => {
    expect(licenseClockSkewSeconds).toBe(300);
    const payloads = await samplePayloads();
    const envelope = await signArtifact('kill-order', payloads['kill-order'], { signer: acme.signer, productId: vectorProductId });
    const at = (now: number) => reasonOf(() => verifyArtifact(envelope, 'kill-order', { keys, productId: vectorProductId, now }));
    // A verifier whose clock runs up to 300 s behind (or ahead of) the server still accepts the epoch.
    expect(at(acme.notBefore - licenseClockSkewSeconds - 1)).toBe('epoch_not_yet_valid');
    expect(at(acme.notBefore - licenseClockSkewSeconds)).toBeUndefined();
    expect(at(acme.notAfter + licenseClockSkewSeconds - 1)).toBeUndefined();
    expect(at(acme.notAfter + licenseClockSkewSeconds)).toBe('expired_epoch');
    // Without tolerance, checkEpochWindow keeps the exact window.
    expect(reasonOf(() => checkEpochWindow(acme, acme.notBefore - 1))).toBe('epoch_not_yet_valid');
    expect(reasonOf(() => checkEpochWindow(acme, acme.notAfter))).toBe('expired_epoch');
  });

  it('accepts a revocation batch dated up to 300 s after the verifier clock, and checks its epoch exactly at issuedAt', async () => {
    const payloads = await samplePayloads();
    const batchAt = async (issuedAt: number) =>
      signArtifact('revocation-batch', { ...payloads['revocation-batch'], issuedAt }, { signer: global.signer });
    const verifyAt = (envelope: Uint8Array, now: number) => reasonOf(() => verifyArtifact(envelope, 'revocation-batch', { keys, now }));
    const early = await batchAt(vectorNow + licenseClockSkewSeconds);
    expect(verifyAt(early, vectorNow)).toBeUndefined();
    expect(verifyAt(early, vectorNow - 1)).toBe('invalid_payload');
    expect(verifyAt(await batchAt(global.notAfter), global.notAfter)).toBe('expired_epoch');
    expect(verifyAt(await batchAt(global.notAfter - 1), global.notAfter + 10 * licenseClockSkewSeconds)).toBeUndefined();
  });

  it('rejects every non-canonical re-encoding of a valid artifact, never accepting one', async () => {
    for (const { kind, productId, envelope } of await signedSamples()) {
      const parts = decodeSign1(envelope);
      const variants = [
        ...longerHeadVariants(envelope),
        ...longerHeadVariants(parts.protectedBytes).map((protectedBytes) => encodeSign1(protectedBytes, parts.payload, parts.signature)),
        ...longerHeadVariants(parts.payload).map((payload) => encodeSign1(parts.protectedBytes, payload, parts.signature)),
      ];
      expect(variants.length).toBeGreaterThan(20);
      for (const variant of variants) {
        const reason = reasonOf(() => verifyArtifact(variant, kind, { keys, ...(productId === undefined ? {} : { productId }), now: vectorNow }));
        // Outer heads and protected-header internals fail the strict decoder; payload internals change
        // the signed bytes and fail the signature first.
        expect(['bad_encoding', 'bad_signature'], `${kind} ${hexEncode(variant).slice(0, 40)}`).toContain(reason);
      }
      for (const variant of longerHeadVariants(parts.payload)) {
        expect(reasonOf(() => decodeArtifactPayload(kind, variant))).toBe('bad_encoding');
      }
    }
  });

  it('inspects an envelope without verifying it', async () => {
    const [sample] = await signedSamples();
    if (sample === undefined) throw new Error('no sample');
    const inspected = inspectArtifact(sample.envelope);
    expect(inspected.kind).toBe(sample.kind);
    expect(inspected.kidHex).toBe(global.epochIdHex);
    expect(inspected.header.productId).toBe(sample.productId);
    expect(reasonOf(() => inspectArtifact(new Uint8Array([0x80])))).toBe('bad_encoding');
  });
});

