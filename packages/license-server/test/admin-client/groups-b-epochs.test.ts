/**
 * The admin client's `epochs` group against a real license server (the epoch bench: dev root, vendor A
 * administering the global epochs): list, upload (a certificate signed like `root sign` does), detail,
 * and the two-actor revocation — a dry run by default that changes nothing, a first confirmation that
 * opens the approval (202), a second token that executes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient, type AdminClient } from '@tollgate/admin-client';
import { snapshotTables } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { openEpochBench, rootPublicHex, signRequest, type EpochBench } from '../epochs/epoch-bench';

for (const engine of serverEngines) {
  describe(`admin client: epochs [${engine.name}]`, () => {
    let bench: EpochBench;
    let admin: AdminClient;
    /** The dev epoch the server signs with from the start: the revocation target. */
    let target: string;
    let replacement: string;

    const clientWith = (token: string) => createAdminClient({ baseUrl: bench.url, token });

    beforeAll(async () => {
      bench = await openEpochBench(engine);
      admin = clientWith(bench.vendorA.token);
      target = (await bench.call('GET', '/epochs')).body.epochs[0].epoch_id;
    }, 90_000);
    afterAll(() => bench?.close());

    it('lists the administered epochs exactly as the server answers them', async () => {
      const listed = await admin.epochs.list();
      expect(listed).toEqual((await bench.call('GET', '/epochs')).body);
      expect(listed.administers_global_epochs).toBe(true);
      expect(listed.epochs.map((epoch) => epoch.epoch_id)).toEqual([target]);
      expect(listed.epochs[0]).toMatchObject({ status: 'active', listed_in_keyset: true, product_scope: null });
    });

    it('uploads a root-signed certificate (activating a pending epoch once) and reads its detail', async () => {
      const { epochIdHex, request } = await bench.pendingEpoch();
      const input = { certificateHex: await signRequest(request, bench.devRootSeed), rootVerifyingKeyHex: rootPublicHex(bench.devRootSeed) };
      const uploaded = await admin.epochs.upload(input);
      expect(uploaded.outcome).toBe('activated');
      expect(uploaded.epoch).toMatchObject({ epoch_id: epochIdHex, status: 'active', listed_in_keyset: true });
      expect((await admin.epochs.upload(input)).outcome).toBe('already_active');
      replacement = epochIdHex;

      const detail = await admin.epochs.get(replacement);
      expect(detail.epoch.epoch_id).toBe(replacement);
      expect(detail.epoch.certificates_hex).toEqual([input.certificateHex]);
      expect(detail.revocation_approval).toBeNull();
      expect((await admin.epochs.get(target)).replacement).toEqual({ ready: true, epoch_ids: [replacement] });
    });

    it('refuses an upload under a root the server does not pin, with the server code', async () => {
      const { request } = await bench.pendingEpoch();
      const strangerRoot = new Uint8Array(32).fill(7);
      const refused = await admin.epochs.upload({ certificateHex: await signRequest(request, strangerRoot), rootVerifyingKeyHex: rootPublicHex(strangerRoot) }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ name: 'AdminApiError', code: 'invalid_request', status: 400 });
    });

    it('revokes as a dry run unless dryRun: false, changing nothing', async () => {
      const before = await snapshotTables(bench.asAdminHarness());
      for (const options of [undefined, { confirmEpochId: target }, { confirmEpochId: target, dryRun: true }]) {
        const preview = await admin.epochs.revoke(target, options);
        if (!preview.dry_run) throw new Error(`expected a dry run, got ${JSON.stringify(preview)}`);
        expect(preview).toMatchObject({ epoch_id: target, already_revoked: false, replacement_ready: true, replacement_epoch_ids: [replacement], requires_distinct_actors: 2, approval_pending: false, approval: null });
      }
      expect(await snapshotTables(bench.asAdminHarness())).toBe(before);
      expect((await admin.epochs.get(target)).epoch.status).toBe('active');
    });

    it('sends confirm_epoch_id: another id is 409 confirmation_mismatch and opens nothing', async () => {
      const mismatch = await admin.epochs.revoke(target, { dryRun: false, confirmEpochId: replacement }).catch((error: unknown) => error);
      expect(mismatch).toMatchObject({ name: 'AdminApiError', code: 'confirmation_mismatch', status: 409 });
      expect((await admin.epochs.get(target)).revocation_approval).toBeNull();
    });

    it('opens the approval with a first token (202) and executes with a second one', async () => {
      const alice = clientWith(await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']));
      const bob = clientWith(await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']));
      const idempotencyKey = `alice-${target}`;
      const first = await alice.epochs.revoke(target, { dryRun: false, confirmEpochId: target, idempotencyKey });
      if (first.dry_run || !first.approval_pending) throw new Error(`expected an opened approval, got ${JSON.stringify(first)}`);
      expect(first).toMatchObject({ epoch_id: target, requires_distinct_actors: 2 });
      // The caller's key is the one sent: the same call again is the server's replay, not a second confirmation.
      expect(await alice.epochs.revoke(target, { dryRun: false, confirmEpochId: target, idempotencyKey })).toEqual(first);
      const same = await alice.epochs.revoke(target, { dryRun: false, confirmEpochId: target }).catch((error: unknown) => error);
      expect(same).toMatchObject({ code: 'second_actor_required', status: 409 });
      expect((await admin.epochs.get(target)).revocation_approval).toMatchObject({ approval_id: first.approval.approval_id, status: 'pending' });

      const executed = await bob.epochs.revoke(target, { dryRun: false, confirmEpochId: target });
      if (executed.dry_run || executed.approval_pending) throw new Error(`expected an execution, got ${JSON.stringify(executed)}`);
      expect(executed).toMatchObject({ revoked: true, epoch_id: target, replacement_epoch_ids: [replacement], approval: { approval_id: first.approval.approval_id } });
      expect(executed.revocation.seq).toBeGreaterThan(0);
      expect((await admin.epochs.get(target)).epoch).toMatchObject({ status: 'revoked', key_wiped: true });
      const preview = await admin.epochs.revoke(target);
      expect(preview).toMatchObject({ dry_run: true, already_revoked: true, affected_machines_upper_bound: 0 });
    });
  });
}
