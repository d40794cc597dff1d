/**
 * An emergency epoch rotation against the real license server, on both engines (and, on PostgreSQL, a
 * second server instance on the same database): a replacement epoch is uploaded and the active one is
 * revoked by two Admin tokens while the SDK's verifier, built as the README shows, last synced 10 s
 * before. The first genuine ticket of the new epoch is accepted on the first try and the revoked
 * epoch's tickets are refused right after, on every verifier over the same fetcher and follower; the
 * license client goes through the rotation without a lockout; a flood of made-up kids costs at most
 * the rate limit's fetches; an expired epoch's ticket is refused `expired_epoch`. One clock (a
 * ManualClock) runs the servers and the SDK: nothing here waits for time to pass.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock, type Clock } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeKeyset, decodeSign1, encodeProtectedHeader, encodeSign1, inspectArtifact, type ArtifactError } from '@tollgate/core/license';
import { createArtifactVerifier, createKeysetFetcher, createLicenseClient, createMemoryStorage, createRevocationFollower, decodeStoredLicense, type FetchFunction } from '@tollgate/client-sdk';
import type { RunningLicenseServer } from '@tollgate/license-server';
import { freshKey } from '../../license-server/test/admin/admin-harness';
import { issueLicenses, seedPolicy } from '../../license-server/test/admin/admin-license-fixtures';
import { activationBody, defaultClientInfo, newDevice, postCbor, validateBody, type Device, type Seat } from '../../license-server/test/client/client-harness';
import { openEpochBench, type EpochBench } from '../../license-server/test/epochs/epoch-bench';
import { protoHeaders, serverEngines } from '../../license-server/test/helpers';
import { ManualScheduler } from '../../license-server/test/sdk-life-cycle/helpers';
import { eventually } from '../../../test/eventually';

/** One hour between validations, two hours of grace after that. */
const terms = { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 };

/** A fetch that counts the paths it was asked for. */
function countingFetch(): { fetch: FetchFunction; count: (path: string) => number; reset: () => void } {
  const paths: string[] = [];
  return {
    fetch: (input, init) => {
      paths.push(new URL(input).pathname);
      return fetch(input, init);
    },
    count: (path) => paths.filter((seen) => seen === path).length,
    reset: () => void (paths.length = 0),
  };
}

/** The SDK's default verifier, exactly as the README builds it (plus the test's clock and counted fetch). */
function readmeVerifier(baseUrl: string, pinnedRoots: readonly Uint8Array[], productId: string, clock: Clock) {
  const network = countingFetch();
  const keysets = createKeysetFetcher({ baseUrl, pinnedRoots, clock, fetch: network.fetch });
  const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get(), clock, fetch: network.fetch });
  const verifier = createArtifactVerifier({ keysets, revocations, productId, clock });
  return { keysets, revocations, verifier, network };
}

for (const engine of serverEngines) {
  describe(`emergency epoch rotation, as the SDK sees it [${engine.name}]`, () => {
    let bench: EpochBench;
    let clock: ManualClock;
    let secondActor: string;
    let policyId: string;
    /** On PostgreSQL, another instance on the same database; the bench's server otherwise. */
    let other: RunningLicenseServer;

    const productId = () => bench.vendorA.productId;
    const pins = () => bench.server.context.pinnedRoots;

    /** A device activated on the server, and its seat. */
    const activatedDevice = async (): Promise<{ device: Device; seat: Seat }> => {
      const [license] = await issueLicenses(bench.asAdminHarness(), policyId);
      const device = newDevice();
      const answer = await postCbor(bench.url, '/v1/activate', await activationBody('activation-request', device, { licenseKey: license?.key as string }, productId()), { 'idempotency-key': freshKey() });
      expect(answer.status).toBe(200);
      const { verifier } = readmeVerifier(bench.url, pins(), productId(), clock);
      const { payload } = await verifier.verify(answer.bytes, 'machine-credential');
      return { device, seat: { licenseId: payload.licenseId, machineId: payload.machineId } };
    };
    const ticketFrom = async (url: string, { device, seat }: { device: Device; seat: Seat }): Promise<Uint8Array> => {
      const answer = await postCbor(url, '/v1/validate', await validateBody(device, seat, productId(), { clientTime: Math.floor(clock.now() / 1000) }));
      expect(answer.status).toBe(200);
      return answer.bytes;
    };
    const revocationEpochAt = async (url: string) => decodeKeyset(new Uint8Array(await (await fetch(`${url}/v1/keys`, { headers: protoHeaders })).arrayBuffer())).revocationEpoch;

    /** Uploads a replacement epoch and revokes `target` through the two-actor flow (202, then 200). */
    const rotate = async (target: string): Promise<string> => {
      const replacement = await bench.activeEpoch();
      const confirm = (token: string) =>
        bench.call('POST', `/epochs/${target}/revoke`, { token, query: { dry_run: 'false' }, key: freshKey(), body: { confirm_epoch_id: target } });
      expect((await confirm(bench.vendorA.token)).status).toBe(202);
      const executed = await confirm(secondActor);
      expect(executed.status).toBe(200);
      expect(executed.body.revoked).toBe(true);
      // Both instances republish their keysets after the commit (the other one on the database's change
      // notice): wait for that event, so the verifier meets the state the issue describes.
      const head = executed.body.revocation.seq as number;
      for (const url of new Set([bench.url, other.url])) await vi.waitFor(async () => expect(await revocationEpochAt(url)).toBe(head), { timeout: 20_000 });
      return replacement;
    };

    beforeAll(async () => {
      clock = new ManualClock(Date.now());
      bench = await openEpochBench(engine, { start: { clock } });
      secondActor = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
      policyId = await seedPolicy(bench.asAdminHarness(), bench.vendorA, terms);
      other =
        engine.name === 'postgres' ? await bench.sandbox.start({ LICENSE_RATE_LIMIT_PER_ADDRESS: 'off', LICENSE_RATE_LIMIT_PER_LICENSE: 'off' }, { clock }) : bench.server;
    }, 120_000);
    afterAll(() => bench?.close());

    it('accepts the first ticket of the replacement epoch on the first try, and refuses the revoked epoch at once on every verifier', async () => {
      const holder = await activatedDevice();
      const before = await ticketFrom(bench.url, holder);
      const target = inspectArtifact(before).kidHex as string;
      const { keysets, revocations, verifier, network } = readmeVerifier(bench.url, pins(), productId(), clock);
      await verifier.refresh();
      expect((await verifier.verify(before, 'validation-ticket')).epoch.epochIdHex).toBe(target);

      clock.advance(10_000);
      const replacement = await rotate(target);
      const fresh = [await ticketFrom(bench.url, holder), await ticketFrom(other.url, holder)];
      expect(fresh.map((ticket) => inspectArtifact(ticket).kidHex)).toEqual([replacement, replacement]);
      network.reset();
      const accepted = await verifier.verify(fresh[0] as Uint8Array, 'validation-ticket');
      expect(accepted.epoch.epochIdHex).toBe(replacement);
      // One forced refetch of the keyset (its max-age had 290 s to run) and the feed up to the revocation.
      expect(network.count('/v1/keys')).toBe(1);
      expect(revocations.state().revokedEpochIds).toContain(target);

      // Another verifier over the same fetcher and follower, e.g. another window of the app: no request.
      const sibling = createArtifactVerifier({ keysets, revocations, productId: productId(), clock });
      network.reset();
      const refused = (await sibling.verify(before, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
      expect(refused).toMatchObject({ reason: 'revoked_epoch' });
      expect((await verifier.verify(before, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError).toMatchObject({ reason: 'revoked_epoch' });
      expect((await sibling.verify(fresh[1] as Uint8Array, 'validation-ticket')).epoch.epochIdHex).toBe(replacement);
      expect(network.count('/v1/keys') + network.count('/v1/revocations')).toBe(0);
    });

    it('takes the license client through a rotation without a lockout', async () => {
      const [license] = await issueLicenses(bench.asAdminHarness(), policyId);
      const scheduler = new ManualScheduler(clock);
      const network = countingFetch();
      const storage = createMemoryStorage();
      const fingerprint = randomBytes(32);
      const clientOn = (on: ManualScheduler) =>
        createLicenseClient({ baseUrl: bench.url, productId: productId(), pinnedRoots: pins(), storage, fingerprint, clientInfo: defaultClientInfo, clock, fetch: network.fetch, scheduler: on, random: () => 0.5 });
      const client = clientOn(scheduler);
      const states: string[] = [];
      client.on('state', ({ state }) => states.push(state));
      expect(await client.start()).toBe('unlicensed');
      expect(await client.activate({ licenseKey: license?.key as string })).toBe('active');
      expect(await client.validateNow()).toBe('active');
      const stored = decodeStoredLicense((await storage.load()) as Uint8Array);
      const target = inspectArtifact(stored?.ticket as Uint8Array).kidHex as string;

      scheduler.advance(10_000);
      const replacement = await rotate(target);
      network.reset();
      expect(await client.validateNow()).toBe('active');
      expect(network.count('/v1/keys')).toBe(1);
      const after = decodeStoredLicense((await storage.load()) as Uint8Array);
      expect(inspectArtifact(after?.ticket as Uint8Array).kidHex).toBe(replacement);
      expect(after?.refusedAt).toBeUndefined();
      expect(after?.revocation.revokedEpochIds).toContain(target);

      // The schedule goes on as before: the next validation in the hour, still active.
      network.reset();
      scheduler.advance(3_600_000);
      await vi.waitFor(() => expect(network.count('/v1/validate')).toBe(1), eventually);
      await client.stop();
      expect(client.state).toBe('active');
      expect(states).not.toContain('locked');
      expect(states).not.toContain('grace');

      // At the next start the stored credential, signed by the revoked epoch, is refused: the documented
      // signal to activate again, which gives the device its seat back under the replacement epoch.
      const restarted = clientOn(new ManualScheduler(clock));
      const changes: { state: string; reason?: string }[] = [];
      restarted.on('state', (change) => changes.push(change));
      expect(await restarted.start()).toBe('locked');
      expect(changes.at(-1)).toMatchObject({ state: 'locked', reason: 'verification_failed' });
      expect(await restarted.activate({ licenseKey: license?.key as string })).toBe('active');
      const renewed = decodeStoredLicense((await storage.load()) as Uint8Array);
      expect(inspectArtifact(renewed?.credential as Uint8Array).kidHex).toBe(replacement);
      await restarted.stop();
    });

    it('turns 1,000 artifacts with made-up kids into at most one forced refetch per 30 s', async () => {
      const holder = await activatedDevice();
      const genuine = await ticketFrom(bench.url, holder);
      const parts = decodeSign1(genuine);
      const forge = () => encodeSign1(encodeProtectedHeader({ ...parts.header, kid: randomBytes(8) }), parts.payload, parts.signature);
      const { verifier, network } = readmeVerifier(bench.url, pins(), productId(), clock);
      await verifier.refresh();
      network.reset();
      const reasons = new Set<string>();
      const refusal = (error: unknown) => void reasons.add((error as ArtifactError).reason);

      // All at once: they share one refetch of the keyset and one pass over the feed.
      await Promise.all(Array.from({ length: 500 }, () => verifier.verify(forge(), 'validation-ticket').then(() => reasons.add('accepted'), refusal)));
      expect(network.count('/v1/keys')).toBe(1);
      expect(network.count('/v1/revocations')).toBe(1);
      // One after the other over two minutes (every 240 ms): a refetch may start every 30 s, no more.
      const started = clock.now();
      for (let n = 0; n < 500; n += 1) {
        clock.advance(240);
        await verifier.verify(forge(), 'validation-ticket').then(() => reasons.add('accepted'), refusal);
      }
      const minutes = (clock.now() - started) / 60_000;
      expect(minutes).toBe(2);
      expect(network.count('/v1/keys')).toBeLessThanOrEqual(1 + 2 * minutes);
      expect(network.count('/v1/keys')).toBeGreaterThanOrEqual(1 + 2 * minutes - 1);
      expect(network.count('/v1/revocations')).toBe(network.count('/v1/keys'));
      expect([...reasons]).toEqual(['unknown_key']);
      // Fail closed, yet the genuine ticket still verifies.
      expect((await verifier.verify(genuine, 'validation-ticket')).payload.licenseId).toEqual(holder.seat.licenseId);
    });

    it('refuses a ticket of an expired epoch as expired_epoch, without a forced refetch', async () => {
      const holder = await activatedDevice();
      const ticket = await ticketFrom(bench.url, holder);
      const signer = inspectArtifact(ticket).kidHex as string;
      const now = readmeVerifier(bench.url, pins(), productId(), clock);
      await now.verifier.refresh();
      const notAfter = now.keysets.current()?.epochs.get(signer)?.notAfter as number;
      // A device whose clock is past the epoch's window and the 300 s skew allowance.
      const later = new ManualClock((notAfter + 300) * 1000);
      const { verifier, network } = readmeVerifier(bench.url, pins(), productId(), later);
      const refused = (await verifier.verify(ticket, 'validation-ticket').catch((error: unknown) => error)) as ArtifactError;
      expect(refused).toMatchObject({ reason: 'expired_epoch', details: { epochId: signer, notAfter } });
      expect(network.count('/v1/keys')).toBe(1);
      // One second earlier the skew allowance still covers it.
      const edge = readmeVerifier(bench.url, pins(), productId(), new ManualClock((notAfter + 299) * 1000));
      expect((await edge.verifier.verify(ticket, 'validation-ticket')).epoch.epochIdHex).toBe(signer);
    });
  });
}
