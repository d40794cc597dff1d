/**
 * A stored machine credential and ticket, accepted when they arrived, keep verifying at a restart
 * after their signing epoch expired (the server never reissues a credential), while revoked epochs,
 * forgeries, and a ticket grafted in from another seat stay refused. Fresh answers are judged at the
 * device's clock when the guarded clock's mark runs far ahead.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '@tollgate/core';
import { decodeSign1, encodeCborSequence, encodeSign1, encodeKeyset, revocationPageRange, signArtifact, type ArtifactPayloads } from '@tollgate/core/license';
import { ResponseMismatchError } from '@tollgate/client-sdk';
import { createClientVerification } from '../src/life-cycle/client-verification';
import type { StoredLicense } from '../src/life-cycle/stored-license';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorIds, vectorNow, vectorPins, vectorProductId, type EpochFixture } from '../../core/test/vectors/license-fixtures';

const day = 86_400;
const acme = vectorEpochs.acme;
/** A restart ten days after the epoch that signed everything expired. */
const afterExpiry = acme.notAfter + 10 * day;
const baseUrl = 'https://license.test';

/** A keyset and revocation feed; `revoke` publishes a batch (signed by the global epoch) revoking an epoch. */
async function createServer() {
  const certificates = await Promise.all([vectorEpochs.global, acme].map((epoch) => epochCertificateFor(epoch)));
  const batches: Uint8Array[] = [];
  const fetch = async (input: string): Promise<Response> => {
    const url = new URL(input);
    if (url.pathname === '/v1/keys') {
      return new Response(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: batches.length }) as BodyInit, { status: 200, headers: { 'cache-control': 'public, max-age=300' } });
    }
    if (url.pathname === '/v1/revocations') {
      const range = revocationPageRange(BigInt(url.searchParams.get('since') ?? '0'), batches.length);
      if (range === undefined) return new Response(null, { status: 204 });
      return new Response(encodeCborSequence(batches.slice(range.first - 1, range.last)) as BodyInit, { status: 200, headers: { 'cache-control': 'no-store' } });
    }
    return new Response(null, { status: 404 });
  };
  return {
    fetch,
    certificates,
    async revoke(epoch: EpochFixture) {
      const seq = batches.length + 1;
      // Dated inside the (since expired) global epoch's window: batches verify at their own issuedAt.
      const batch = { protoVersion: 1 as const, seq, issuedAt: vectorNow + day, licenseIds: [], machineIds: [], epochIds: [epoch.epochId] };
      batches.push(await signArtifact('revocation-batch', batch, { signer: vectorEpochs.global.signer }));
    },
  };
}

type Credential = ArtifactPayloads['machine-credential'];
type Ticket = ArtifactPayloads['validation-ticket'];

async function credentialBytes(change: Partial<Credential> = {}, signer = acme.signer): Promise<Uint8Array> {
  const base = (await samplePayloads())['machine-credential'];
  return signArtifact('machine-credential', { ...base, revocationEpoch: 0, ...change }, { signer, productId: vectorProductId });
}

async function ticketBytes(change: Partial<Ticket> = {}): Promise<Uint8Array> {
  const base = (await samplePayloads())['validation-ticket'];
  return signArtifact('validation-ticket', { ...base, serverTime: vectorNow + day, revocationEpoch: 0, ...change }, { signer: acme.signer, productId: vectorProductId });
}

/** A record as the license client stores it (only the verification fields matter here). */
function record(fields: { credential: Uint8Array; ticket?: Uint8Array; keyset?: Uint8Array; certificates?: Uint8Array[]; revokedEpochIds?: string[] }): StoredLicense & { credential: Uint8Array } {
  return {
    productId: vectorProductId,
    deviceSeed: new Uint8Array(32),
    kemPrivateKey: new Uint8Array(32),
    credential: fields.credential,
    ...(fields.ticket === undefined ? {} : { ticket: fields.ticket }),
    ...(fields.keyset === undefined ? {} : { keyset: fields.keyset }),
    ...(fields.certificates === undefined ? {} : { certificates: fields.certificates }),
    revocation: { revocationEpoch: 0, revokedEpochIds: fields.revokedEpochIds ?? [], syncedAt: vectorNow + day },
    clockMark: vectorNow + day,
    knownRevocationEpoch: 0,
    knownSecurityFloor: 0,
    consentVersion: 0,
  } as StoredLicense & { credential: Uint8Array };
}

async function restartAt(seconds: number, stored: StoredLicense & { credential: Uint8Array }, server: { fetch: (input: string) => Promise<Response> }) {
  const clock = new ManualClock(seconds * 1000);
  return createClientVerification({ baseUrl, productId: vectorProductId, pinnedRoots: vectorPins, clock, fetch: server.fetch }, stored).verifyStored(stored);
}

describe('verifyStored after the signing epoch expired', () => {
  it('still verifies the stored credential and ticket at their signed time, and refuses them once the epoch is revoked', async () => {
    const server = await createServer();
    const stored = record({ credential: await credentialBytes(), ticket: await ticketBytes() });
    const { credential, ticket } = await restartAt(afterExpiry, stored, server);
    expect(credential.issuedAt).toBe(vectorNow);
    expect(ticket?.serverTime).toBe(vectorNow + day);

    await server.revoke(acme);
    await expect(restartAt(afterExpiry, stored, server)).rejects.toMatchObject({ reason: 'revoked_epoch' });
  });

  it('refuses a credential the expired epoch "signed" after its window closed (a key leaked later)', async () => {
    const server = await createServer();
    const stored = record({ credential: await credentialBytes({ issuedAt: acme.notAfter + day }) });
    await expect(restartAt(afterExpiry, stored, server)).rejects.toMatchObject({ reason: 'expired_epoch' });
  });

  it('refuses a tampered stored credential', async () => {
    const server = await createServer();
    const genuine = decodeSign1(await credentialBytes());
    const richer = decodeSign1(await credentialBytes({ refreshAfter: vectorNow + 3650 * day }));
    // The signature of the genuine credential over a payload that grants ten years.
    const stored = record({ credential: encodeSign1(genuine.protectedBytes, richer.payload, genuine.signature) });
    await expect(restartAt(afterExpiry, stored, server)).rejects.toMatchObject({ reason: 'bad_signature' });
  });

  it('verifies an offline-activated credential with its stored, since expired certificate, unless the epoch is revoked', async () => {
    const server = await createServer();
    const certificates = [await epochCertificateFor(acme)];
    const offline = record({ credential: await credentialBytes(), certificates });
    await expect(restartAt(afterExpiry, offline, server)).resolves.toMatchObject({ credential: { issuedAt: vectorNow } });
    const revoked = record({ credential: await credentialBytes(), certificates, revokedEpochIds: [acme.epochIdHex] });
    await expect(restartAt(afterExpiry, revoked, server)).rejects.toMatchObject({ reason: 'revoked_epoch' });
  });
});

describe('verifyStored binds the stored ticket to the credential', () => {
  it('refuses a ticket of another license', async () => {
    const server = await createServer();
    const stored = record({ credential: await credentialBytes(), ticket: await ticketBytes({ licenseId: vectorIds.secondLicenseId }) });
    const error = await restartAt(vectorNow + 2 * day, stored, server).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseMismatchError);
    expect(error).toMatchObject({ code: 'seat_mismatch' });
  });

  it('refuses a ticket of another machine', async () => {
    const server = await createServer();
    const stored = record({ credential: await credentialBytes(), ticket: await ticketBytes({ machineId: new Uint8Array(16).fill(7) }) });
    await expect(restartAt(vectorNow + 2 * day, stored, server)).rejects.toMatchObject({ code: 'seat_mismatch' });
  });
});

describe('fresh answers under a guarded clock whose mark ran far ahead', () => {
  async function verifyFresh(guarded: number, device: number, ticket: Uint8Array) {
    const server = await createServer();
    const clock: Clock = new ManualClock(guarded * 1000);
    const requestClock: Clock = new ManualClock(device * 1000);
    const verification = createClientVerification({ baseUrl, productId: vectorProductId, pinnedRoots: vectorPins, clock, requestClock, fetch: server.fetch }, undefined);
    return verification.device.verifier.verify(ticket, 'validation-ticket');
  }

  it('verifies a fresh ticket at the device clock when the mark is years ahead', async () => {
    const fresh = await ticketBytes({ serverTime: vectorNow + 2 * day });
    await expect(verifyFresh(vectorNow + 3650 * day, vectorNow + 2 * day, fresh)).resolves.toMatchObject({ payload: { serverTime: vectorNow + 2 * day } });
  });

  it('still refuses a fresh answer whose epoch is valid at neither clock', async () => {
    const fresh = await ticketBytes({ serverTime: vectorNow + 2 * day });
    await expect(verifyFresh(vectorNow + 3650 * day, afterExpiry, fresh)).rejects.toMatchObject({ reason: 'expired_epoch' });
  });
});
