/**
 * DSR over data written by the real client protocol (activation, validation with telemetry, offline
 * activation), not by seeds: the export must name every table that ended up holding the subject, and
 * the erasure must leave none but the retained ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsPseudonym, deriveAnalyticsKeys, deriveTelemetryPseudonymKey, drainAnalyticsOutbox, telemetrySubject } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { newDevice, openClientBench, type ClientBench } from '../client/client-harness';
import { activateAnother, licensedDevice } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { dsrMasterKey, dsrMasterKeyHex, tablesMentioning } from './dsr-fixtures';

const block = { consentVersion: 2, windowStart: 1_790_000_000, sessionCount: 3, sessionDurationHistogram: [1, 1, 1, 0], featureHits: new Map([['edit', 4]]), daysActive: 2 };

for (const engine of serverEngines) {
  describe(`DSR over client-protocol data [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { LICENSE_MASTER_KEY: dsrMasterKeyHex });
    }, 60_000);
    afterAll(() => bench?.close());

    it('exports every table the client protocol wrote for a license, then erases all but the retained', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1', offline_allowed: true });
      expect((await bench.validate(licensed.device, licensed.seat, { telemetry: block })).status).toBe(200);
      const other = newDevice();
      expect((await activateAnother(bench, licensed, other)).status).toBe(200);
      expect((await bench.offline(newDevice(), { licenseKey: licensed.licenseKey })).status).toBe(200);
      await drainAnalyticsOutbox(bench.admin.sql, deriveAnalyticsKeys(dsrMasterKey));

      const { rows } = await bench.admin.sql.query<{ machine_id: string }>('SELECT machine_id FROM license_machines WHERE license_id = $1', [licensed.licenseId]);
      const machineIds = rows.map((row) => row.machine_id);
      expect(machineIds).toHaveLength(3);
      const keys = deriveAnalyticsKeys(dsrMasterKey);
      const needles = [
        licensed.licenseId,
        analyticsPseudonym(keys, 'license', licensed.licenseId),
        ...machineIds.flatMap((id) => [id, analyticsPseudonym(keys, 'device', id), telemetrySubject(deriveTelemetryPseudonymKey(dsrMasterKey), id)]),
      ];

      const exported = await bench.admin.call('POST', '/dsr/export', { body: { license_id: licensed.licenseId } });
      expect(exported.status).toBe(200);
      const records = exported.body.records as Record<string, unknown[]>;
      expect(records.license_telemetry_raw).toHaveLength(1);
      expect((records.license_analytics_events?.length ?? 0) + (records.license_analytics_outbox?.length ?? 0)).toBeGreaterThanOrEqual(4);
      expect(records.license_client_idempotency?.length).toBeGreaterThanOrEqual(3);
      expect(records.license_offline_responses).toHaveLength(1);
      const holding = Object.keys(await tablesMentioning(bench.admin, needles));
      const named = [...Object.keys(records).filter((table) => (records[table]?.length ?? 0) > 0), 'license_audit_events'];
      expect(holding.filter((table) => !named.includes(table))).toEqual([]);

      const erased = await bench.admin.call('POST', '/dsr/delete', { body: { license_id: licensed.licenseId }, query: { dry_run: 'false' }, key: freshKey() });
      expect([erased.status, erased.body.erased.machine, erased.body.erased.telemetry, erased.body.audit_tombstone]).toEqual([200, 3, 1, false]);
      const left = Object.keys(await tablesMentioning(bench.admin, needles));
      expect(left.filter((table) => !['license_audit_events', 'license_licenses', 'license_revocation_batches'].includes(table))).toEqual([]);
      expect((await bench.admin.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
      // The device is gone: its next validation is the generic refusal.
      expect((await bench.validate(licensed.device, licensed.seat)).status).toBe(401);
    });
  });
}
