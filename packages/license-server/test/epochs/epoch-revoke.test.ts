/**
 * Two-actor epoch revocation over HTTP, on a manual clock: the dry run (changes nothing), the refusals,
 * the approval window (an approval past it expires), the execution by a second token (feed head bumps,
 * the keyset republishes, the sealed key is wiped, everything audited), and a client holding a
 * credential of the revoked epoch that the SDK refuses until it activates again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, hexDecode } from '@tollgate/core';
import { decodeKeyset, inspectArtifact, type ArtifactError } from '@tollgate/core/license';
import { createArtifactVerifier, createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
import { freshKey } from '../admin/admin-harness';
import { issueLicenses, seedPolicy, snapshotTables } from '../admin/admin-license-fixtures';
import { activationBody, newDevice, postCbor } from '../client/client-harness';
import { protoHeaders, serverEngines } from '../helpers';
import { eventually, openEpochBench, readFeedAt, type EpochBench } from './epoch-bench';

const windowSeconds = 600;

for (const engine of serverEngines) {
  describe(`Admin epoch revocation [${engine.name}]`, () => {
    let bench: EpochBench;
    let clock: ManualClock;
    let target: string;
    let second: string;
    let third: string;
    let device: ReturnType<typeof newDevice>;
    let licenseKey: string;
    let credential: Uint8Array;

    const revoke = (token: string, options: { confirm?: string; key?: string; dryRun?: boolean } = {}) =>
      bench.call('POST', `/epochs/${target}/revoke`, {
        token,
        query: { dry_run: options.dryRun === true ? 'true' : 'false' },
        key: options.key ?? freshKey(),
        body: { confirm_epoch_id: options.confirm ?? target },
      });

    const activate = async () => {
      const answer = await postCbor(bench.url, '/v1/activate', await activationBody('activation-request', device, { licenseKey }, bench.vendorA.productId), { 'idempotency-key': freshKey() });
      expect(answer.status).toBe(200);
      return answer.bytes;
    };

    beforeAll(async () => {
      clock = new ManualClock(Date.now());
      bench = await openEpochBench(engine, { env: { LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: String(windowSeconds) }, start: { clock } });
      target = (await bench.call('GET', '/epochs')).body.epochs[0].epoch_id;
      second = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
      third = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
      // A device activated while the dev epoch is the only one: its credential is signed by the target.
      const harness = bench.asAdminHarness();
      const policyId = await seedPolicy(harness, bench.vendorA);
      licenseKey = (await issueLicenses(harness, policyId))[0]?.key as string;
      device = newDevice();
      credential = await activate();
      expect(inspectArtifact(credential).kidHex).toBe(target);
    }, 90_000);
    afterAll(() => bench?.close());

    it('runs a dry run by default, reporting the impact and changing nothing', async () => {
      const before = await snapshotTables(bench.asAdminHarness());
      const answer = await bench.call('POST', `/epochs/${target}/revoke`, { body: { confirm_epoch_id: target } });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        ok: true,
        dry_run: true,
        epoch_id: target,
        already_revoked: false,
        affected_machines_upper_bound: 1,
        replacement_ready: false,
        requires_distinct_actors: 2,
        approval_window_seconds: windowSeconds,
        approval_pending: false,
      });
      expect(await snapshotTables(bench.asAdminHarness())).toBe(before);
    });

    it('refuses a confirmation without or with another confirm_epoch_id, and without a replacement epoch', async () => {
      const missing = await bench.call('POST', `/epochs/${target}/revoke`, { query: { dry_run: 'false' }, key: freshKey(), body: {} });
      expect(missing.status).toBe(400);
      const mismatch = await revoke(bench.vendorA.token, { confirm: 'ffffffffffffffff' });
      expect(mismatch.status).toBe(409);
      expect(mismatch.body.error.code).toBe('confirmation_mismatch');
      const noReplacement = await revoke(bench.vendorA.token);
      expect(noReplacement.status).toBe(409);
      expect(noReplacement.body.error.code).toBe('replacement_epoch_required');
      expect((await bench.call('GET', `/epochs/${target}`)).body.revocation_approval).toBeNull();
    });

    it('opens an approval at the first confirmation, refuses the same actor, and expires it after the window', async () => {
      await bench.activeEpoch();
      const dry = await bench.call('POST', `/epochs/${target}/revoke`);
      expect(dry.body.replacement_ready).toBe(true);
      const key = freshKey();
      const first = await revoke(bench.vendorA.token, { key });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ ok: true, dry_run: false, approval_pending: true, requires_distinct_actors: 2 });
      expect(Date.parse(first.body.approval.expires_at)).toBe(clock.now() + windowSeconds * 1000);
      // The same request again is a replay, not a second confirmation.
      expect((await revoke(bench.vendorA.token, { key })).body).toEqual(first.body);
      const same = await revoke(bench.vendorA.token);
      expect(same.status).toBe(409);
      expect(same.body.error.code).toBe('second_actor_required');
      const pending = await bench.call('POST', `/epochs/${target}/revoke`);
      expect(pending.body).toMatchObject({ approval_pending: true, approval: { approval_id: first.body.approval.approval_id } });

      clock.advance(windowSeconds * 1000);
      const expired = await bench.call('GET', `/epochs/${target}`);
      expect(expired.body.revocation_approval).toMatchObject({ approval_id: first.body.approval.approval_id, status: 'expired' });
      // Past the window the second token's confirmation opens a new approval instead of executing.
      const late = await revoke(second);
      expect(late.status).toBe(202);
      expect(late.body.approval.approval_id).not.toBe(first.body.approval.approval_id);
      expect((await bench.call('GET', `/epochs/${target}`)).body.epoch.status).toBe('active');
    });

    it('executes when a different actor confirms inside the window: feed, keyset, wiped key and audit', async () => {
      clock.advance((windowSeconds - 1) * 1000);
      const headBefore = (await readFeedAt(bench, clock)).length;
      const executed = await revoke(third);
      expect(executed.status).toBe(200);
      expect(executed.body).toMatchObject({ ok: true, dry_run: false, approval_pending: false, revoked: true, epoch_id: target, revocation: { seq: headBefore + 1 } });
      const feed = await readFeedAt(bench, clock);
      expect(feed.at(-1)?.epochIds.map((id) => Buffer.from(id).toString('hex'))).toEqual([target]);
      const keyset = await eventually(
        async () => (await fetch(`${bench.url}/v1/keys`, { headers: protoHeaders })).arrayBuffer(),
        (bytes) => decodeKeyset(new Uint8Array(bytes)).revocationEpoch === headBefore + 1,
      );
      expect(decodeKeyset(new Uint8Array(keyset)).revocationEpoch).toBe(headBefore + 1);
      const { rows } = await bench.sql.query<{ status: string; wiped: boolean }>('SELECT status, sealed_private_key IS NULL AS wiped FROM license_epochs WHERE epoch_id = $1', [hexDecode(target)]);
      expect(rows[0]).toEqual({ status: 'revoked', wiped: true });
      expect((await bench.call('GET', `/epochs/${target}`)).body).toMatchObject({ epoch: { status: 'revoked', key_wiped: true }, revocation_approval: { status: 'executed' } });
      const audit = await bench.call('GET', '/audit', { query: { target_type: 'epoch', target_id: target } });
      expect(audit.body.events.map((event: { action: string }) => event.action).reverse()).toEqual([
        'epoch.revoke_requested',
        'epoch.revoke_requested',
        'epoch.revoke_approved',
        'epoch.revoke',
      ]);
      const again = await revoke(second);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('already_revoked');
      expect((await bench.call('POST', `/epochs/${target}/revoke`)).body).toMatchObject({ already_revoked: true, affected_machines_upper_bound: 0 });
    });

    it('tells a client holding a credential of the revoked epoch to activate again, and accepts the new one', async () => {
      const productId = bench.vendorA.productId;
      const keysets = createKeysetFetcher({ baseUrl: bench.url, pinnedRoots: bench.server.context.pinnedRoots, clock });
      const revocations = createRevocationFollower({ baseUrl: bench.url, keys: () => keysets.get(), clock });
      const verifier = createArtifactVerifier({ keysets, revocations, productId, clock });
      const refused = (await verifier.verify(credential, 'machine-credential').catch((error: unknown) => error)) as ArtifactError;
      expect(refused).toMatchObject({ reason: 'revoked_epoch' });
      expect(revocations.state().revokedEpochIds).toContain(target);
      // Re-activation (same device, same seat) is signed by the replacement epoch.
      const renewed = await activate();
      expect(inspectArtifact(renewed).kidHex).not.toBe(target);
      const { payload } = await verifier.verify(renewed, 'machine-credential');
      expect(payload.devicePublicKey).toEqual(device.publicKey);
    });
  });
}

