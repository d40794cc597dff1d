/**
 * The artifact verifier meets an epoch its cached keyset does not list (an emergency rotation), against
 * an in-memory server: one forced, coalesced refetch of the keyset and the feed, then a second look;
 * what an unreachable server, a rate-limited refetch or a kid the server does not list either come to.
 * The same flow against the real license server is in emergency-rotation.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { encodeKeyset, signArtifact, type ArtifactError, type ArtifactPayloads } from '@tollgate/core/license';
import { classifyFailure, createArtifactVerifier, createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorNow, vectorPins, vectorProductId, type EpochFixture } from '../../core/test/vectors/license-fixtures';
import { createFakeLicenseServer } from './fake-server';

const baseUrl = 'https://license.test';

async function ticketBy(epoch: EpochFixture, change: Partial<ArtifactPayloads['validation-ticket']> = {}): Promise<Uint8Array> {
  const base = (await samplePayloads())['validation-ticket'];
  return signArtifact('validation-ticket', { ...base, revocationEpoch: 0, ...change }, { signer: epoch.signer, productId: vectorProductId });
}

/** A synced verifier over a fake server, a switch that takes the server away, and request counts. */
async function setup() {
  const clock = new ManualClock(vectorNow * 1000);
  const server = await createFakeLicenseServer({ clock });
  const control = { down: false };
  const fetch = (input: string, init?: RequestInit) => (control.down ? Promise.reject(new Error('ECONNREFUSED')) : server.fetch(input, init));
  const keysets = createKeysetFetcher({ baseUrl, pinnedRoots: vectorPins, fetch, clock });
  const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get(), fetch, clock });
  const verifier = createArtifactVerifier({ keysets, revocations, productId: vectorProductId, clock });
  await verifier.refresh();
  server.seen.length = 0;
  const requests = (path: string) => server.seen.filter((request) => new URL(request.url).pathname === path).length;
  /** The server starts listing `unlisted` (a replacement epoch) and publishes a batch. */
  const rotate = async () => {
    const certificates = [...server.certificates, await epochCertificateFor(vectorEpochs.unlisted)];
    await server.publish(1);
    server.replaceKeysetResponse(
      () => new Response(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 1 }) as BodyInit, { status: 200, headers: { 'cache-control': 'public, max-age=300' } }),
    );
  };
  return { clock, server, control, keysets, revocations, verifier, requests, rotate };
}

describe('an artifact whose kid the cached keyset does not list', () => {
  it('is accepted after one forced refetch of the keyset and the feed, which every verifier over them then shares', async () => {
    const { keysets, revocations, verifier, requests, rotate, clock } = await setup();
    clock.advance(10_000);
    await rotate();
    const ticket = await ticketBy(vectorEpochs.unlisted, { revocationEpoch: 1 });
    const [first, second] = await Promise.all([verifier.verify(ticket, 'validation-ticket'), verifier.verify(ticket, 'validation-ticket')]);
    expect(first.epoch.epochIdHex).toBe(vectorEpochs.unlisted.epochIdHex);
    expect(second.payload).toEqual(first.payload);
    expect(requests('/v1/keys')).toBe(1);
    expect(revocations.state().revocationEpoch).toBe(1);
    const other = createArtifactVerifier({ keysets, revocations, productId: vectorProductId, clock });
    expect((await other.verify(ticket, 'validation-ticket')).epoch.epochIdHex).toBe(vectorEpochs.unlisted.epochIdHex);
    expect(requests('/v1/keys')).toBe(1);
  });

  it('is refused unknown_key (synced) when the server does not list it either, and then without any request for 30 s', async () => {
    const { verifier, requests, server } = await setup();
    const forged = await ticketBy(vectorEpochs.unlisted);
    const refused = (await verifier.verify(forged, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
    expect(refused).toMatchObject({ reason: 'unknown_key', details: { resync: 'synced', epochId: vectorEpochs.unlisted.epochIdHex } });
    expect(classifyFailure(refused)).toEqual({ kind: 'refused' });
    expect(requests('/v1/keys')).toBe(1);
    server.seen.length = 0;
    const again = (await verifier.verify(forged, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
    expect(again).toMatchObject({ reason: 'unknown_key', details: { resync: 'rate_limited', retryAfterSeconds: 30 } });
    expect(server.seen).toEqual([]);
  });

  it('stays refused while the server cannot be reached, as an unreachable server (grace), and is accepted once the server is back', async () => {
    const { verifier, requests, rotate, control, clock } = await setup();
    await rotate();
    const ticket = await ticketBy(vectorEpochs.unlisted, { revocationEpoch: 1 });
    control.down = true;
    const refused = (await verifier.verify(ticket, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
    expect(refused).toMatchObject({ reason: 'unknown_key', details: { resync: 'unreachable' }, cause: { code: 'network_error' } });
    expect(classifyFailure(refused)).toEqual({ kind: 'unreachable', retryAfterSeconds: undefined });
    control.down = false;
    // The failed refetch counts against the limit: nothing is asked until it is over.
    const limited = (await verifier.verify(ticket, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
    expect(classifyFailure(limited)).toEqual({ kind: 'unreachable', retryAfterSeconds: 30 });
    expect(requests('/v1/keys')).toBe(0);
    clock.advance(30_000);
    expect((await verifier.verify(ticket, 'validation-ticket')).epoch.epochIdHex).toBe(vectorEpochs.unlisted.epochIdHex);
    expect(requests('/v1/keys')).toBe(1);
  });

  it('also refetches the keyset when a verified ticket states a newer revocation epoch', async () => {
    const { verifier, revocations, requests, server } = await setup();
    await server.publish(1);
    const ticket = await ticketBy(vectorEpochs.acme, { revocationEpoch: 1 });
    expect((await verifier.verify(ticket, 'validation-ticket')).payload.revocationEpoch).toBe(1);
    expect(revocations.state().revocationEpoch).toBe(1);
    expect(requests('/v1/keys')).toBe(1);
    expect(requests('/v1/revocations')).toBeGreaterThan(0);
  });
});
