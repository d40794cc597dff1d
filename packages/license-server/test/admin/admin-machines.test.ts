import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { currentKeyset, hexOf, issueLicenses, readFeed, seedMachines, seedPolicy, snapshotTables } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin machines [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyId: string;
    const licenseWithMachines = async (count: number) => {
      const [license] = await issueLicenses(bench, policyId);
      const licenseId = license?.license_id as string;
      return { licenseId, machines: await seedMachines(bench, bench.vendorA, licenseId, count) };
    };
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      policyId = await seedPolicy(bench, bench.vendorA);
    });
    afterAll(() => bench?.close());

    it('lists machines newest first with filters and cursors, with machines:r, never another vendor’s', async () => {
      const { licenseId, machines } = await licenseWithMachines(5);
      const reader = await bench.tokenWith(bench.vendorA, ['machines:r']);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bench.call('GET', '/machines', { token: reader, query: { license_id: licenseId, limit: '2', ...(cursor ? { cursor } : {}) } });
        expect(page.status).toBe(200);
        seen.push(...page.body.machines.map((machine: { machine_id: string }) => machine.machine_id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual([...machines].reverse());
      const revokedOnly = await bench.call('GET', '/machines', { query: { license_id: licenseId, status: 'revoked' } });
      expect(revokedOnly.body.machines).toEqual([]);
      const asB = await bench.call('GET', '/machines', { token: bench.vendorB.token, query: { license_id: licenseId } });
      expect(asB.status).toBe(404);
      expect(asB.body.error.code).toBe('not_found');
      expect((await bench.call('GET', '/machines', { token: bench.vendorB.token })).text).not.toContain(licenseId);
      expect((await bench.call('GET', '/machines', { query: { status: 'lost' } })).status).toBe(400);
    });

    it('revokes a machine like a license: dry run first, then one batch naming the machine', async () => {
      const { licenseId, machines } = await licenseWithMachines(2);
      const target = machines[0] as string;
      const before = await snapshotTables(bench);
      const dryRun = await bench.call('POST', `/machines/${target}/revoke`, { body: {} });
      expect(dryRun.body).toEqual({ ok: true, dry_run: true, machine_id: target, license_id: licenseId, already_revoked: false, would_publish_batch: true });
      expect(await snapshotTables(bench)).toBe(before);

      const feedBefore = await readFeed(bench);
      const key = freshKey();
      const confirmed = await bench.call('POST', `/machines/${target}/revoke`, { body: { reason: 4 }, query: { dry_run: 'false' }, key });
      const seq = feedBefore.length + 1;
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ dry_run: false, machine: { machine_id: target, status: 'revoked', revocation_seq: seq }, revocation: { seq } });
      const feed = await readFeed(bench);
      expect(feed).toHaveLength(seq);
      expect(feed[seq - 1]?.machineIds.map(hexOf)).toEqual([target]);
      expect(feed[seq - 1]?.licenseIds).toEqual([]);
      await expect.poll(async () => (await currentKeyset(bench)).revocationEpoch, { timeout: 5000 }).toBe(seq);

      const replay = await bench.call('POST', `/machines/${target}/revoke`, { body: { reason: 4 }, query: { dry_run: 'false' }, key });
      expect(replay.text).toBe(JSON.stringify(confirmed.body));
      expect(await readFeed(bench)).toHaveLength(seq);
      const again = await bench.call('POST', `/machines/${target}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
      expect([again.status, again.body.error.code]).toEqual([409, 'already_revoked']);
      // The other machine is untouched, until its license is revoked, which revokes it too.
      const other = machines[1] as string;
      expect((await bench.call('GET', '/machines', { query: { license_id: licenseId, status: 'active' } })).body.machines.map((m: { machine_id: string }) => m.machine_id)).toEqual([other]);
      await bench.call('POST', `/licenses/${licenseId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
      const withLicense = await bench.call('POST', `/machines/${other}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
      expect([withLicense.status, withLicense.body.error.code]).toEqual([409, 'already_revoked']);
    });

    it('erases a machine: the dry run counts, the confirmation deletes and audits only ids', async () => {
      const { licenseId, machines } = await licenseWithMachines(2);
      const target = machines[0] as string;
      const before = await snapshotTables(bench);
      const dryRun = await bench.call('DELETE', `/machines/${target}`);
      expect(dryRun.body).toMatchObject({ ok: true, dry_run: true, subject: { kind: 'machine', id: target }, license_id: licenseId, machine_ids: [target], audit_tombstone: false });
      expect(dryRun.body.would_erase).toMatchObject({ machine: 1, activation_records: 0, telemetry: 0 });
      expect(await snapshotTables(bench)).toBe(before);

      const key = freshKey();
      const erased = await bench.call('DELETE', `/machines/${target}`, { query: { dry_run: 'false' }, key });
      expect(erased.body).toMatchObject({ ok: true, dry_run: false, subject: { kind: 'machine', id: target }, license_id: licenseId, machine_ids: [target], erased: dryRun.body.would_erase, audit_tombstone: false });
      const { rows } = await bench.sql.query('SELECT 1 FROM license_machines WHERE machine_id = $1', [target]);
      expect(rows).toHaveLength(0);
      expect((await bench.call('GET', `/licenses/${licenseId}/machines`)).body.machines.map((m: { machine_id: string }) => m.machine_id)).toEqual([machines[1]]);
      const audit = await bench.sql.query<{ summary: unknown }>("SELECT summary FROM license_audit_events WHERE target_id = $1 AND action = 'machine.erase'", [target]);
      expect(audit.rows).toHaveLength(1);
      expect(JSON.stringify(audit.rows[0]?.summary)).not.toMatch(/Box|linux/);
      expect((await bench.call('DELETE', `/machines/${target}`, { query: { dry_run: 'false' }, key })).text).toBe(JSON.stringify(erased.body));
      const gone = await bench.call('DELETE', `/machines/${target}`, { query: { dry_run: 'false' }, key: freshKey() });
      expect([gone.status, gone.body.error.code]).toEqual([404, 'not_found']);
    });

    it('answers vendor A’s machines as not found to vendor B and leaves them alone', async () => {
      const { machines } = await licenseWithMachines(1);
      const target = machines[0] as string;
      for (const query of [{}, { dry_run: 'false' }] as Record<string, string>[]) {
        for (const [method, path] of [
          ['POST', `/machines/${target}/revoke`],
          ['DELETE', `/machines/${target}`],
        ] as const) {
          const answer = await bench.call(method, path, { token: bench.vendorB.token, query, key: freshKey(), ...(method === 'POST' ? { body: {} } : {}) });
          expect([answer.status, answer.body.error.code], `${method} ${path} ${JSON.stringify(query)}`).toEqual([404, 'not_found']);
        }
      }
      const { rows } = await bench.sql.query<{ status: string }>('SELECT status FROM license_machines WHERE machine_id = $1', [target]);
      expect(rows[0]?.status).toBe('active');
    });
  });
}
