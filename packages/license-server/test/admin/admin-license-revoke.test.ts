import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { currentKeyset, hexOf, issueLicenses, readFeed, seedMachines, seedPolicy, snapshotTables } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin license revocation [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyId: string;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      policyId = await seedPolicy(bench, bench.vendorA);
    });
    afterAll(() => bench?.close());

    it('answers the impact on a dry run (the default) and changes nothing', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      await seedMachines(bench, bench.vendorA, id, 4);
      const before = await snapshotTables(bench);
      const dryRun = await bench.call('POST', `/licenses/${id}/revoke`, { body: { reason: 3 } });
      expect(dryRun.status).toBe(200);
      expect(dryRun.body).toEqual({ ok: true, dry_run: true, license_id: id, already_revoked: false, machines_affected: 4, would_publish_batch: true });
      const explicit = await bench.call('POST', `/licenses/${id}/revoke`, { body: {}, query: { dry_run: 'true' }, key: freshKey() });
      expect(explicit.body.dry_run).toBe(true);
      expect(await snapshotTables(bench)).toBe(before);
    });

    it('revokes on confirmation: one batch in the feed, the license and its machines revoked, the keyset moved on', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      const machines = await seedMachines(bench, bench.vendorA, id, 2);
      const feedBefore = await readFeed(bench);
      const key = freshKey();
      const confirmed = await bench.call('POST', `/licenses/${id}/revoke`, { body: { reason: 2 }, query: { dry_run: 'false' }, key });
      expect(confirmed.status).toBe(200);
      const seq = feedBefore.length + 1;
      expect(confirmed.body).toMatchObject({
        ok: true,
        dry_run: false,
        license: { license_id: id, status: 'revoked', revocation_seq: seq, revocation_reason: 2, revoked_at: expect.any(String) },
        revocation: { seq, machines_revoked: 2 },
      });

      const feed = await readFeed(bench);
      expect(feed).toHaveLength(seq);
      expect(feed[seq - 1]).toMatchObject({ seq, machineIds: [], epochIds: [] });
      expect(feed[seq - 1]?.licenseIds.map(hexOf)).toEqual([id]);
      // The server refreshes its keyset once the revocation has committed.
      await expect.poll(async () => (await currentKeyset(bench)).revocationEpoch, { timeout: 5000 }).toBe(seq);

      const listed = await bench.call('GET', `/licenses/${id}/machines`);
      expect(listed.body.machines.map((machine: { machine_id: string; status: string; revocation_seq: number }) => [machine.machine_id, machine.status, machine.revocation_seq]).sort()).toEqual(
        machines.map((machineId) => [machineId, 'revoked', seq]).sort(),
      );
      const audit = await bench.sql.query<{ action: string }>("SELECT action FROM license_audit_events WHERE target_id = $1 AND action = 'license.revoke'", [id]);
      expect(audit.rows).toHaveLength(1);

      // A replay of the confirmation answers verbatim and publishes nothing new.
      const replay = await bench.call('POST', `/licenses/${id}/revoke`, { body: { reason: 2 }, query: { dry_run: 'false' }, key });
      expect(replay.status).toBe(200);
      expect(replay.text).toBe(JSON.stringify(confirmed.body));
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await readFeed(bench)).toHaveLength(seq);

      const again = await bench.call('POST', `/licenses/${id}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
      expect([again.status, again.body.error.code]).toEqual([409, 'already_revoked']);
      const dryAfter = await bench.call('POST', `/licenses/${id}/revoke`, { body: {} });
      expect(dryAfter.body).toMatchObject({ already_revoked: true, machines_affected: 0, would_publish_batch: false });
      expect(await readFeed(bench)).toHaveLength(seq);
    });

    it('refuses a confirmation without an Idempotency-Key, a bad reason and an oversized body', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      const noKey = await bench.call('POST', `/licenses/${id}/revoke`, { body: {}, query: { dry_run: 'false' } });
      expect(noKey.status).toBe(400);
      const badReason = await bench.call('POST', `/licenses/${id}/revoke`, { body: { reason: 300 }, query: { dry_run: 'false' }, key: freshKey() });
      expect([badReason.status, badReason.body.error.code]).toEqual([400, 'invalid_request']);
      const oversized = await bench.call('POST', `/licenses/${id}/revoke`, { rawBody: JSON.stringify({ pad: 'x'.repeat(4096) }), query: { dry_run: 'false' }, key: freshKey() });
      expect(oversized.status).toBe(413);
      expect((await bench.call('GET', `/licenses/${id}`)).body.license.status).toBe('active');
    });
  });
}
