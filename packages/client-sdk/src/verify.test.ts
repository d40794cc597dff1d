import { describe, expect, it } from 'vitest';
import { createNobleEd25519Signer, hexEncode } from '@tollgate/core';
import { encodeKeyset, signArtifact, signEpochCertificate } from '@tollgate/core/license';
import { decodePins, verifyArtifact, verifyKeyset, type VerifyArtifactOptions } from '@tollgate/client-sdk';
import { epochCertificateFor, samplePayloads, vectorBytes, vectorEpochs, vectorNow, vectorProductId, vectorRoots } from '../../core/test/vectors/license-fixtures';

async function keysetBytes() {
  return encodeKeyset({ protoVersion: 1, certificates: await Promise.all([vectorEpochs.global, vectorEpochs.acme].map((epoch) => epochCertificateFor(epoch))), revocationEpoch: 2 });
}

describe('client verification', () => {
  it('accepts pins as bytes or lower-case hex, and refuses anything else', () => {
    const hex = hexEncode(vectorRoots.current.publicKey);
    expect(decodePins([hex, vectorRoots.next.publicKey])).toEqual([vectorRoots.current.publicKey, vectorRoots.next.publicKey]);
    expect(() => decodePins([hex.toUpperCase()])).toThrow(TypeError);
    expect(() => decodePins([hex.slice(2)])).toThrow(TypeError);
  });

  it('verifies a ticket with a keyset verified against hex pins', async () => {
    const keys = verifyKeyset(await keysetBytes(), [hexEncode(vectorRoots.current.publicKey)], vectorNow);
    const payloads = await samplePayloads();
    const ticket = await signArtifact('validation-ticket', payloads['validation-ticket'], { signer: vectorEpochs.acme.signer, productId: vectorProductId });
    const verified = verifyArtifact(ticket, 'validation-ticket', keys, { productId: vectorProductId, now: vectorNow, revokedEpochIds: [] });
    expect(verified.payload.nonceEcho).toEqual(payloads['validation-ticket'].nonceEcho);
    expect(() => verifyArtifact(ticket, 'kill-order', keys, { productId: vectorProductId, now: vectorNow, revokedEpochIds: new Set() })).toThrow(expect.objectContaining({ reason: 'wrong_kind' }));
    expect(() => verifyArtifact(ticket, 'validation-ticket', keys, { productId: vectorProductId, now: vectorNow, revokedEpochIds: [vectorEpochs.acme.epochIdHex] })).toThrow(
      expect.objectContaining({ reason: 'revoked_epoch' }),
    );
  });

  it('refuses to verify without the revocation feed: revokedEpochIds has no default', async () => {
    const keys = verifyKeyset(await keysetBytes(), [hexEncode(vectorRoots.current.publicKey)], vectorNow);
    const ticket = await signArtifact('validation-ticket', (await samplePayloads())['validation-ticket'], { signer: vectorEpochs.acme.signer, productId: vectorProductId });
    const withoutFeed = { productId: vectorProductId, now: vectorNow } as unknown as VerifyArtifactOptions;
    expect(() => verifyArtifact(ticket, 'validation-ticket', keys, withoutFeed)).toThrow(/revokedEpochIds/);
    expect(() => (verifyArtifact as (...args: unknown[]) => unknown)(ticket, 'validation-ticket', keys)).toThrow(TypeError);
  });

  it('uses the system clock when no time is given', async () => {
    const wallClock = Math.floor(Date.now() / 1000);
    const epochAround = (name: string, notBefore: number, notAfter: number) => {
      const seed = vectorBytes(name);
      const epochId = vectorBytes(`${name}/id`, 8);
      const signer = createNobleEd25519Signer({ privateKey: seed, kid: hexEncode(epochId) });
      return { signer, request: { protoVersion: 1 as const, epochId, publicKey: signer.publicKey, notBefore, notAfter } };
    };
    const current = epochAround('wall-clock-current', wallClock - 3600, wallClock + 3600);
    const ended = epochAround('wall-clock-ended', wallClock - 7200, wallClock - 3600);
    const certificates = await Promise.all([current, ended].map(({ request }) => signEpochCertificate(request, vectorRoots.current.signer)));
    const keys = verifyKeyset(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 0 }), [vectorRoots.current.publicKey], wallClock - 7000);
    const payloads = await samplePayloads();
    const fromCurrent = await signArtifact('kill-order', payloads['kill-order'], { signer: current.signer, productId: vectorProductId });
    const fromEnded = await signArtifact('kill-order', payloads['kill-order'], { signer: ended.signer, productId: vectorProductId });
    expect(verifyArtifact(fromCurrent, 'kill-order', keys, { productId: vectorProductId, revokedEpochIds: [] }).payload.reason).toBe(1);
    expect(() => verifyArtifact(fromEnded, 'kill-order', keys, { productId: vectorProductId, revokedEpochIds: [] })).toThrow(expect.objectContaining({ reason: 'expired_epoch' }));
  });
});
