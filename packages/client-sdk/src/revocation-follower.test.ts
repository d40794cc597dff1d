import { describe, expect, it } from 'vitest';
import { ManualClock, hexEncode } from '@tollgate/core';
import { encodeKeyset, signArtifact, type RevocationBatch } from '@tollgate/core/license';
import { RevocationFeedError, createRevocationFollower, verifyKeyset } from '@tollgate/client-sdk';
import { epochCertificateFor, vectorBytes, vectorEpochs, vectorNow, vectorPins } from '../../core/test/vectors/license-fixtures';
import { createFakeLicenseServer } from '../test/fake-server';

async function setup(published: number) {
  const clock = new ManualClock(vectorNow * 1000);
  const server = await createFakeLicenseServer({ clock });
  await server.publish(published);
  const keyset = verifyKeyset(await (await server.fetch('https://license.test/v1/keys')).arrayBuffer().then((buffer) => new Uint8Array(buffer)), vectorPins, vectorNow);
  server.seen.length = 0;
  return { server, clock, keyset };
}

function codeOf(error: unknown): string | undefined {
  return error instanceof RevocationFeedError ? error.code : undefined;
}

describe('createRevocationFollower', () => {
  it('applies every batch in order across pages, verifying each, and exposes the state to persist', async () => {
    const { server, clock, keyset } = await setup(70);
    const seen: number[] = [];
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, fetch: server.fetch, clock, onBatch: (batch) => void seen.push(batch.seq) });
    follower.observe(keyset.revocationEpoch);
    const applied = await follower.sync();
    expect(applied.map((batch) => batch.seq)).toEqual(Array.from({ length: 70 }, (_, n) => n + 1));
    expect(seen).toEqual(applied.map((batch) => batch.seq));
    expect(server.seen.map((request) => new URL(request.url).search)).toEqual(['?since=0', '?since=64', '?since=70']);
    expect(follower.state()).toEqual({ revocationEpoch: 70, revokedEpochIds: [vectorEpochs.expired.epochIdHex], lastIssuedAt: vectorNow, syncedAt: vectorNow });
  });

  it('resumes from a saved state and refuses to go backwards', async () => {
    const { server, clock, keyset } = await setup(5);
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, fetch: server.fetch, clock, state: { revocationEpoch: 3, revokedEpochIds: ['00ff00ff00ff00ff'] } });
    expect((await follower.sync()).map((batch) => batch.seq)).toEqual([4, 5]);
    expect(follower.state().revokedEpochIds).toEqual(['00ff00ff00ff00ff']);
    expect(() => follower.observe(4)).toThrow(expect.objectContaining({ code: 'rollback' }));
    expect(() => follower.observe(4)).toThrow(RevocationFeedError);
    follower.observe(5);
  });

  it('refuses a batch that is not exactly the next one, without advancing', async () => {
    const { server, clock, keyset } = await setup(3);
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, fetch: server.fetch, clock });
    expect(codeOf(await follower.apply(server.batch(2), keyset).catch((error: unknown) => error))).toBe('gap');
    await follower.apply(server.batch(1), keyset);
    expect(codeOf(await follower.apply(server.batch(1), keyset).catch((error: unknown) => error))).toBe('replayed');
    expect(follower.state().revocationEpoch).toBe(1);
  });

  it('refuses a batch that does not verify with the keyset', async () => {
    const { server, clock } = await setup(1);
    const onlyAcme = { epochs: new Map([[vectorEpochs.acme.epochIdHex, vectorEpochs.acme]]) };
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => onlyAcme, fetch: server.fetch, clock });
    await expect(follower.sync()).rejects.toMatchObject({ reason: 'unknown_key' });
    expect(follower.state().revocationEpoch).toBe(0);
  });

  it('refuses a batch signed by an epoch that an applied batch revoked, and still takes the genuine next batch', async () => {
    const { global, unlisted } = vectorEpochs;
    const certificates = await Promise.all([global, unlisted].map((epoch) => epochCertificateFor(epoch)));
    const keyset = verifyKeyset(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 2 }), vectorPins, vectorNow);
    const batch = (seq: number, signer: typeof global.signer, epochIds: Uint8Array[] = []) =>
      signArtifact('revocation-batch', { protoVersion: 1, seq, issuedAt: vectorNow, licenseIds: [vectorBytes(`revoked-${seq}`, 16)], machineIds: [], epochIds }, { signer });
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, clock: new ManualClock(vectorNow * 1000) });
    await follower.apply(await batch(1, global.signer, [unlisted.epochId]), keyset);
    expect(follower.state().revokedEpochIds).toEqual([unlisted.epochIdHex]);
    // Whoever holds the revoked epoch's key forges the next batch: it verifies, but must not be applied.
    const forged = await follower.apply(await batch(2, unlisted.signer), keyset).catch((error: unknown) => error);
    expect(forged).toMatchObject({ reason: 'revoked_epoch' });
    expect(follower.state().revocationEpoch).toBe(1);
    expect((await follower.apply(await batch(2, global.signer), keyset)).seq).toBe(2);
  });

  it('refuses a batch back-dated before the last one applied: an expired epoch cannot revoke the live one', async () => {
    const { global, expired } = vectorEpochs;
    const certificates = await Promise.all([global, expired].map((epoch) => epochCertificateFor(epoch)));
    const keyset = verifyKeyset(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 1 }), vectorPins, vectorNow);
    expect([...keyset.expiredEpochs.keys()]).toEqual([expired.epochIdHex]);
    const batch = (seq: number, issuedAt: number, signer: typeof global.signer, epochIds: Uint8Array[] = []) =>
      signArtifact('revocation-batch', { protoVersion: 1, seq, issuedAt, licenseIds: [vectorBytes(`revoked-${seq}`, 16)], machineIds: [], epochIds }, { signer });
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, clock: new ManualClock(vectorNow * 1000) });
    await follower.apply(await batch(1, vectorNow - 3600, global.signer), keyset);
    // Whoever kept the expired epoch's key signs batch 2 dated inside that epoch's old window: the
    // signature and the window check pass, but it is dated before batch 1.
    const forged = await batch(2, expired.notAfter - 1, expired.signer, [global.epochId]);
    const refused = await follower.apply(forged, keyset).catch((error: unknown) => error);
    expect(codeOf(refused)).toBe('backdated');
    expect(follower.state()).toMatchObject({ revocationEpoch: 1, revokedEpochIds: [], lastIssuedAt: vectorNow - 3600 });
    // Equal dates are fine (several batches in one second); the genuine batch 2 applies.
    expect((await follower.apply(await batch(2, vectorNow - 3600, global.signer), keyset)).seq).toBe(2);
  });

  it('refuses a batch after a signed checkpoint dated before it, even on a quiet feed', async () => {
    const { global, expired } = vectorEpochs;
    const certificates = await Promise.all([global, expired].map((epoch) => epochCertificateFor(epoch)));
    const keyset = verifyKeyset(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 0 }), vectorPins, vectorNow);
    const batch = (seq: number, issuedAt: number, signer: typeof global.signer, epochIds: Uint8Array[] = []) =>
      signArtifact('revocation-batch', { protoVersion: 1, seq, issuedAt, licenseIds: [vectorBytes(`revoked-${seq}`, 16)], machineIds: [], epochIds }, { signer });
    const clock = new ManualClock(vectorNow * 1000);
    // No batch was ever published; a verified ticket said "feed head 0 at vectorNow".
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, clock });
    follower.observeSigned(0, vectorNow);
    const forged = await batch(1, expired.notAfter - 1, expired.signer, [global.epochId]);
    expect(codeOf(await follower.apply(forged, keyset).catch((error: unknown) => error))).toBe('backdated');
    // A batch published right after the ticket, on an instance whose clock lags by less than 300 s, applies.
    expect((await follower.apply(await batch(1, vectorNow - 299, global.signer), keyset)).seq).toBe(1);
    expect(follower.state().checkpoint).toEqual({ revocationEpoch: 0, serverTime: vectorNow });
    // The checkpoint survives a restart through the saved state, and one from the device's future is not kept.
    const restored = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, clock, state: { ...follower.state(), lastIssuedAt: 0 } });
    expect(codeOf(await restored.apply(await batch(2, expired.notAfter - 1, expired.signer), keyset).catch((error: unknown) => error))).toBe('backdated');
    restored.observeSigned(5, vectorNow + 86_400);
    expect(restored.state().checkpoint).toEqual({ revocationEpoch: 0, serverTime: vectorNow });
  });

  it('fails when the feed ends below the revocation epoch the server announced', async () => {
    const { server, clock, keyset } = await setup(2);
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, fetch: server.fetch, clock });
    follower.observe(4);
    const error = await follower.sync().catch((caught: unknown) => caught);
    expect(codeOf(error)).toBe('incomplete');
    expect(follower.state().revocationEpoch).toBe(2);
  });

  it('shares one pass between concurrent syncs, and runs one more after it for a higher announced epoch', async () => {
    const { server, clock, keyset } = await setup(3);
    const follower = createRevocationFollower({ baseUrl: 'https://license.test', keys: () => keyset, fetch: server.fetch, clock });
    follower.observe(3);
    // Two passes at once would both fetch batch 1 and one would fail `replayed`.
    const shared = await Promise.all(Array.from({ length: 50 }, () => follower.sync()));
    expect(shared.every((batches) => batches === shared[0])).toBe(true);
    expect(shared[0]?.map((batch) => batch.seq)).toEqual([1, 2, 3]);
    expect(server.seen.map((request) => new URL(request.url).search)).toEqual(['?since=0', '?since=3']);

    server.seen.length = 0;
    await server.publish(1);
    const first = follower.sync();
    // Announced while the first pass is under way: that pass may already have asked, so one more follows.
    follower.observe(4);
    const second = follower.sync();
    const joined = follower.sync();
    expect(joined).toBe(second);
    expect(await first).toEqual([expect.objectContaining({ seq: 4 })]);
    expect(await second).toEqual([]);
    expect(follower.state().revocationEpoch).toBe(4);
    expect(server.seen.map((request) => new URL(request.url).search)).toEqual(['?since=3', '?since=4', '?since=4']);
  });

  it('lets the app see which licenses each batch revokes', async () => {
    const { server, clock, keyset } = await setup(2);
    const revoked: string[] = [];
    const follower = createRevocationFollower({
      baseUrl: 'https://license.test',
      keys: () => keyset,
      fetch: server.fetch,
      clock,
      onBatch: (batch: RevocationBatch) => void revoked.push(...batch.licenseIds.map(hexEncode)),
    });
    await follower.sync();
    expect(revoked).toHaveLength(2);
    expect(() => createRevocationFollower({ baseUrl: 'x', keys: () => keyset, state: { revocationEpoch: -1, revokedEpochIds: [] } })).toThrow(TypeError);
  });
});
