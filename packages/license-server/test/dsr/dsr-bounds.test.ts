import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedMachines, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { openDsrBench, seedTelemetry, stableSnapshot } from './dsr-fixtures';

const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
const days = (count: number) => Array.from({ length: count }, (_, n) => day(n));

for (const engine of serverEngines) {
  describe(`DSR bounds [${engine.name}]`, () => {
    // Shrunken bounds, so each is reached with a handful of rows. The scans are telemetry (one row per
    // seeded day) and analytics (every seeded machine has its activation event, still in the outbox);
    // each row read is also a match, so a scan crosses MAX_MATCHED_KEYS (4) first unless one charge
    // jumps past MAX_SCAN_RECORDS (5) too.
    let bench: AdminHarness;
    let policyId: string;
    beforeAll(async () => {
      bench = await openDsrBench(engine, { maxMachines: 2, maxScanDates: 3, maxScanRecords: 5, maxMatchedKeys: 4, maxAuditReferences: 2 });
      policyId = await seedPolicy(bench, bench.vendorA);
    }, 60_000);
    afterAll(() => bench?.close());

    const licenseWith = async (machines: number) => {
      const [license] = await issueLicenses(bench, policyId);
      const licenseId = license?.license_id as string;
      return { licenseId, machineIds: await seedMachines(bench, bench.vendorA, licenseId, machines) };
    };

    /** Every route refuses the subject with 422 naming `bound`, and no table changes. */
    async function expectRefused(body: Record<string, string>, bound: string) {
      const before = await stableSnapshot(bench, ['license_idempotency']);
      const routes = [
        () => bench.call('POST', '/dsr/export', { body }),
        () => bench.call('POST', '/dsr/delete', { body }),
        () => bench.call('POST', '/dsr/delete', { body, query: { dry_run: 'false' }, key: freshKey() }),
        ...(body.machine_id === undefined ? [] : [() => bench.call('DELETE', `/machines/${body.machine_id}`, { query: { dry_run: 'false' }, key: freshKey() })]),
      ];
      for (const route of routes) {
        const answer = await route();
        expect([answer.status, answer.body.ok, answer.body.error?.code], answer.text).toEqual([422, false, 'dsr_bound_exceeded']);
        expect(answer.body.error.message).toContain(bound);
        expect(answer.body.error.message).toContain('Nothing was exported or erased');
      }
      // The confirmed refusals are journaled (idempotency rows); nothing else changes.
      expect(await stableSnapshot(bench, ['license_idempotency'])).toBe(before);
    }

    it('MAX_DSR_MACHINES: a license with more machines is refused whole; at the bound it is erased in one go', async () => {
      const over = await licenseWith(3);
      await expectRefused({ license_id: over.licenseId }, 'MAX_DSR_MACHINES');
      expect((await bench.sql.query('SELECT 1 FROM license_machines WHERE license_id = $1', [over.licenseId])).rows).toHaveLength(3);
      // Machine by machine works (the documented way out), and then the license request passes.
      const single = await bench.call('POST', '/dsr/delete', { body: { machine_id: over.machineIds[0] }, query: { dry_run: 'false' }, key: freshKey() });
      expect(single.status).toBe(200);
      const whole = await bench.call('POST', '/dsr/delete', { body: { license_id: over.licenseId }, query: { dry_run: 'false' }, key: freshKey() });
      expect([whole.status, whole.body.erased.machine]).toEqual([200, 2]);
      expect((await bench.sql.query('SELECT 1 FROM license_machines WHERE license_id = $1', [over.licenseId])).rows).toHaveLength(0);
    });

    it('MAX_SCAN_DATES: telemetry over more days than the bound is refused', async () => {
      const { machineIds } = await licenseWith(1);
      await seedTelemetry(bench, bench.vendorA, machineIds[0] as string, days(4));
      await expectRefused({ machine_id: machineIds[0] as string }, 'MAX_SCAN_DATES');
    });

    it('MAX_MATCHED_KEYS and MAX_SCAN_RECORDS: a scan matching or reading past the bound is refused', async () => {
      const matched = (await licenseWith(1)).machineIds[0] as string;
      // 3 telemetry rows (one per day: a device stores at most one block a day) and 2 analytics events
      // (its activation and a check-in): within the days and records ≤ 5, but 5 matches > 4.
      await seedTelemetry(bench, bench.vendorA, matched, [day(0), day(1), day(2)]);
      await bench.sql.query('UPDATE license_machines SET last_validated_at = now() WHERE machine_id = $1', [matched]);
      await expectRefused({ machine_id: matched }, 'MAX_MATCHED_KEYS');
      // Two machines of one license, 3 + 3 rows: the second machine's scan reads record 6 > 5 first.
      // Two machines of one license with 3 rows each: the erasure reaches 4 records after the first
      // machine (3 telemetry + 1 analytics), the second machine's telemetry jumps to 7 > 5; the export
      // reads the 6 telemetry rows in one scan, 6 > 5.
      const license = await licenseWith(2);
      for (const machineId of license.machineIds) await seedTelemetry(bench, bench.vendorA, machineId, [day(0), day(1), day(2)]);
      await expectRefused({ license_id: license.licenseId }, 'MAX_SCAN_RECORDS');
      // At the bounds themselves (3 telemetry rows on 3 days + 1 analytics event) the machine is erased.
      const atBound = (await licenseWith(1)).machineIds[0] as string;
      await seedTelemetry(bench, bench.vendorA, atBound, [day(0), day(1), day(2)]);
      expect((await bench.call('POST', '/dsr/export', { body: { machine_id: atBound } })).body.scan).toEqual({ dates: 3, records: 4, matched: 4 });
      const erased = await bench.call('DELETE', `/machines/${atBound}`, { query: { dry_run: 'false' }, key: freshKey() });
      expect([erased.status, erased.body.erased.telemetry, erased.body.erased.analytics_events, erased.body.scan]).toEqual([200, 3, 1, { dates: 3, records: 4, matched: 4 }]);
    });

    it('MAX_AUDIT_REFERENCES: references beyond the bound are truncated and say so, never refused', async () => {
      const { licenseId, machineIds } = await licenseWith(2);
      for (const machineId of machineIds) await bench.call('POST', `/machines/${machineId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
      const exported = await bench.call('POST', '/dsr/export', { body: { license_id: licenseId } });
      expect(exported.status).toBe(200);
      expect(exported.body.audit_references.events).toHaveLength(2);
      expect(exported.body.audit_references.truncated).toBe(true);
      const dryRun = await bench.call('POST', '/dsr/delete', { body: { license_id: licenseId } });
      expect(dryRun.body.retained).toEqual({ audit_events: 2, audit_events_truncated: true });
      const single = await bench.call('POST', '/dsr/export', { body: { machine_id: machineIds[0] } });
      expect(single.body.audit_references).toMatchObject({ truncated: false });
      expect(single.body.audit_references.events).toHaveLength(1);
    });
  });

  describe(`DSR bounds at the real values [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openDsrBench(engine);
    }, 60_000);
    afterAll(() => bench?.close());

    it('MAX_DSR_MACHINES is 500: 501 machines are refused, 500 pass the dry run', async () => {
      const policyId = await seedPolicy(bench, bench.vendorA);
      const [license] = await issueLicenses(bench, policyId);
      const licenseId = license?.license_id as string;
      await seedMachines(bench, bench.vendorA, licenseId, 501);
      const refused = await bench.call('POST', '/dsr/delete', { body: { license_id: licenseId }, query: { dry_run: 'false' }, key: freshKey() });
      expect([refused.status, refused.body.error.code]).toEqual([422, 'dsr_bound_exceeded']);
      expect(refused.body.error.message).toContain('needs 501 where MAX_DSR_MACHINES allows 500');
      const first = await bench.sql.query<{ machine_id: string }>('SELECT machine_id FROM license_machines WHERE license_id = $1 ORDER BY machine_id LIMIT 1', [licenseId]);
      await bench.call('DELETE', `/machines/${first.rows[0]?.machine_id}`, { query: { dry_run: 'false' }, key: freshKey() });
      const dryRun = await bench.call('POST', '/dsr/delete', { body: { license_id: licenseId } });
      expect([dryRun.status, dryRun.body.would_erase.machine, dryRun.body.machine_ids.length]).toEqual([200, 500, 500]);
    }, 120_000);
  });
}
