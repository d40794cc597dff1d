import { describe, expect, it } from 'vitest';
import { createNobleEd25519Signer, hexEncode, sha256 } from '@tollgate/core';
import {
  createRootSigner,
  decodeEpochCertificateRequest,
  decodeSign1,
  encodeEpochCertificateRequest,
  encodeKeyset,
  encodeSign1,
  licenseClockSkewSeconds,
  rootKeyDigest,
  rootKeyIdHex,
  signArtifact,
  signEpochCertificate,
  verifyArtifact,
  verifyEpochCertificate,
  verifyKeyset,
} from '@tollgate/core/license';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorNow, vectorPins, vectorProductId, vectorRoots } from '../../test/vectors/license-fixtures';

const { global, acme, successor, expired } = vectorEpochs;

async function keysetOf(...epochs: (typeof global)[]): Promise<Uint8Array> {
  return encodeKeyset({ protoVersion: 1, certificates: await Promise.all(epochs.map((epoch) => epochCertificateFor(epoch))), revocationEpoch: 9 });
}

describe('root keys and epoch certificates', () => {
  it('derives the root key id and digest from SHA-256 of the public key', () => {
    const digest = sha256(vectorRoots.current.publicKey);
    expect(rootKeyDigest(vectorRoots.current.publicKey)).toEqual(digest);
    expect(rootKeyIdHex(vectorRoots.current.publicKey)).toBe(hexEncode(digest.subarray(0, 8)));
    expect(createRootSigner(vectorRoots.current.seed).kid).toBe(rootKeyIdHex(vectorRoots.current.publicKey));
    expect(() => rootKeyDigest(new Uint8Array(31))).toThrow(TypeError);
  });

  it('signs a request given as bytes exactly like the typed request, adding the root digest', async () => {
    const request = { protoVersion: 1 as const, epochId: acme.epochId, publicKey: acme.publicKey, notBefore: acme.notBefore, notAfter: acme.notAfter, productScope: vectorProductId };
    const bytes = encodeEpochCertificateRequest(request);
    expect(decodeEpochCertificateRequest(bytes)).toEqual(request);
    const certificate = await signEpochCertificate(bytes, vectorRoots.current.signer);
    expect(certificate).toEqual(await signEpochCertificate(request, vectorRoots.current.signer));
    const epoch = verifyEpochCertificate(certificate, { pinnedRoots: vectorPins });
    expect(epoch).toMatchObject({ epochIdHex: acme.epochIdHex, notBefore: acme.notBefore, notAfter: acme.notAfter, productScope: vectorProductId });
    expect(epoch.rootKeyDigest).toEqual(vectorRoots.current.digest);
  });

  it('refuses a request whose window is empty and a root signer whose kid is not its key id', async () => {
    expect(() => encodeEpochCertificateRequest({ protoVersion: 1, epochId: global.epochId, publicKey: global.publicKey, notBefore: 10, notAfter: 10 })).toThrow(/notAfter must be later/);
    const wrongKid = createNobleEd25519Signer({ privateKey: vectorRoots.current.seed, kid: '0000000000000000' });
    const request = { protoVersion: 1 as const, epochId: global.epochId, publicKey: global.publicKey, notBefore: 1, notAfter: 2 };
    await expect(signEpochCertificate(request, wrongKid)).rejects.toThrow(TypeError);
  });

  it('accepts a not-yet-valid successor but refuses an expired certificate when given a time', async () => {
    expect(verifyEpochCertificate(await epochCertificateFor(successor), { pinnedRoots: vectorPins, at: vectorNow }).epochIdHex).toBe(successor.epochIdHex);
    await expect(epochCertificateFor(expired).then((certificate) => verifyEpochCertificate(certificate, { pinnedRoots: vectorPins, at: vectorNow }))).rejects.toMatchObject({
      reason: 'expired_epoch',
    });
  });
});

describe('verifyKeyset', () => {
  it('keeps current and future epochs, lists expired ones separately, and carries the revocation epoch', async () => {
    const keyset = verifyKeyset(await keysetOf(global, expired, successor), vectorPins, vectorNow);
    expect([...keyset.epochs.keys()]).toEqual([global.epochIdHex, successor.epochIdHex]);
    expect([...keyset.expiredEpochs.keys()]).toEqual([expired.epochIdHex]);
    expect(keyset.revocationEpoch).toBe(9);
    expect(keyset.verifiedAt).toBe(vectorNow);
  });

  it('verifies artifacts with the epochs it returns, and rotates without a new fetch once the successor opens', async () => {
    const keyset = verifyKeyset(await keysetOf(global, successor), vectorPins, vectorNow);
    const payloads = await samplePayloads();
    const fromSuccessor = await signArtifact('kill-order', payloads['kill-order'], { signer: successor.signer, productId: vectorProductId });
    expect(() => verifyArtifact(fromSuccessor, 'kill-order', { keys: keyset, productId: vectorProductId, now: vectorNow })).toThrow(/not valid before/);
    expect(verifyArtifact(fromSuccessor, 'kill-order', { keys: keyset, productId: vectorProductId, now: successor.notBefore }).payload.reason).toBe(1);
  });

  it('verifies an old revocation batch with an expired epoch, but nothing else', async () => {
    const keyset = verifyKeyset(await keysetOf(global, expired), vectorPins, vectorNow);
    const payloads = await samplePayloads();
    const batch = await signArtifact('revocation-batch', { ...payloads['revocation-batch'], issuedAt: expired.notAfter - 1 }, { signer: expired.signer });
    expect(verifyArtifact(batch, 'revocation-batch', { keys: keyset, now: vectorNow }).payload.issuedAt).toBe(expired.notAfter - 1);
    const order = await signArtifact('kill-order', payloads['kill-order'], { signer: expired.signer, productId: vectorProductId });
    // A known epoch whose window is over: `expired_epoch` (protocol §4), not `unknown_key` (which sends a
    // client looking for a newer keyset), and not revived by a verification time inside its old window.
    expect(() => verifyArtifact(order, 'kill-order', { keys: keyset, productId: vectorProductId, now: vectorNow })).toThrow(expect.objectContaining({ reason: 'expired_epoch' }));
    expect(() => verifyArtifact(order, 'kill-order', { keys: keyset, productId: vectorProductId, now: expired.notAfter - 1 })).toThrow(expect.objectContaining({ reason: 'expired_epoch' }));
    // The order of checks stays protocol §4's: a revoked expired epoch is `revoked_epoch`, a scope mismatch `wrong_domain`.
    const revokedEpochIds = new Set([expired.epochIdHex]);
    expect(() => verifyArtifact(order, 'kill-order', { keys: keyset, productId: vectorProductId, now: vectorNow, revokedEpochIds })).toThrow(expect.objectContaining({ reason: 'revoked_epoch' }));
  });

  it('skips certificates from roots the client does not pin, keeping the pinned ones', async () => {
    // After a root rotation: the client pins only the next root, the server still lists the current root's epochs.
    const keyset = verifyKeyset(await keysetOf(global, expired, successor), [vectorRoots.next.publicKey], vectorNow);
    expect([...keyset.epochs.keys()]).toEqual([successor.epochIdHex]);
    expect(keyset.expiredEpochs.size).toBe(0);
    expect(keyset.unpinnedCertificates).toBe(2);
    const payloads = await samplePayloads();
    const fromSkipped = await signArtifact('kill-order', payloads['kill-order'], { signer: global.signer, productId: vectorProductId });
    expect(() => verifyArtifact(fromSkipped, 'kill-order', { keys: keyset, productId: vectorProductId, now: vectorNow })).toThrow(expect.objectContaining({ reason: 'unknown_key' }));
  });

  it('refuses a keyset none of whose certificates names a pinned root, but accepts an empty one', async () => {
    await expect(keysetOf(global, expired).then((bytes) => verifyKeyset(bytes, [vectorRoots.next.publicKey], vectorNow))).rejects.toMatchObject({ reason: 'unpinned_root' });
    expect(verifyKeyset(await keysetOf(), [vectorRoots.next.publicKey], vectorNow).epochs.size).toBe(0);
  });

  it('still refuses the whole keyset for a certificate that names a pinned root but does not verify, or a duplicate', async () => {
    const certificates = await Promise.all([global, successor].map((epoch) => epochCertificateFor(epoch)));
    // Names the current (pinned) root but carries another key's signature: tampering, not a rotation.
    const parts = decodeSign1(certificates[0] as Uint8Array);
    const wrongSignature = encodeSign1(parts.protectedBytes, parts.payload, await vectorRoots.unpinned.signer.sign(parts.payload));
    const refused = (list: Uint8Array[]) => {
      try {
        verifyKeyset(encodeKeyset({ protoVersion: 1, certificates: list, revocationEpoch: 0 }), vectorPins, vectorNow);
      } catch (error) {
        return (error as { reason?: string }).reason;
      }
      return undefined;
    };
    expect(refused([wrongSignature, certificates[1] as Uint8Array])).toBe('bad_signature');
    expect(refused([certificates[0] as Uint8Array, certificates[0] as Uint8Array])).toBe('invalid_payload');
    expect(refused(certificates)).toBeUndefined();
  });

  it('keeps an epoch among the current ones until 300 s after it ends (clock skew), then lists it as expired', async () => {
    const bytes = await keysetOf(global);
    expect([...verifyKeyset(bytes, vectorPins, global.notAfter + licenseClockSkewSeconds - 1).epochs.keys()]).toEqual([global.epochIdHex]);
    expect([...verifyKeyset(bytes, vectorPins, global.notAfter + licenseClockSkewSeconds).expiredEpochs.keys()]).toEqual([global.epochIdHex]);
  });

  it('refuses empty or malformed pins and a non-integer time', async () => {
    const bytes = await keysetOf(global);
    expect(() => verifyKeyset(bytes, [], vectorNow)).toThrow(TypeError);
    expect(() => verifyKeyset(bytes, [new Uint8Array(31)], vectorNow)).toThrow(TypeError);
    expect(() => verifyKeyset(bytes, vectorPins, Number.NaN)).toThrow(TypeError);
  });
});

