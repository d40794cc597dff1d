/**
 * What DSR gets from telemetry: the export of one machine's rows (found by its recomputed pseudonym),
 * and the `telemetry` erasure step with its bounded scan (a subject past MAX_SCAN_DATES or
 * MAX_MATCHED_KEYS is refused inside the erasure's transaction, so nothing is deleted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '@tollgate/core';
import {
  createDsrScanBudget,
  createSqlMachineStore,
  DsrBoundExceededError,
  dsrBounds,
  exportMachineTelemetry,
  telemetryErasureStep,
  telemetrySubjectDataSource,
} from '@tollgate/core/license';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, ticketOf, type LicensedDevice } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { allowFeatures, rawRowsOf, subjectOf, telemetryBlock, telemetryEnv, telemetryMasterKey } from './telemetry-fixtures';

for (const engine of serverEngines) {
  describe(`telemetry for data-subject requests [${engine.name}]`, () => {
    let bench: ClientBench;
    let sql: SqlClient;
    beforeAll(async () => {
      bench = await openClientBench(engine, telemetryEnv);
      sql = bench.admin.sql;
      await allowFeatures(sql, bench.admin.vendorA, ['edit', 'export.pdf']);
    }, 120_000);
    afterAll(() => bench?.close());

    /**
     * A machine with `count` stored blocks, the n-th received n days ago (one block per machine and day
     * is stored, so the earlier rows move one day back before each further block).
     */
    async function machineWithRows(count: number): Promise<LicensedDevice> {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      for (let index = 0; index < count; index += 1) {
        await sql.query(`UPDATE license_telemetry_raw SET received_at = received_at - interval '1 day' WHERE subject = $1`, [subjectOf(licensed.machineId)]);
        await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock({ sessionCount: 20 + index }) }));
      }
      expect(await rawRowsOf(sql, licensed.machineId)).toHaveLength(count);
      return licensed;
    }

    const machineRecord = async (licensed: LicensedDevice) => {
      const machine = await createSqlMachineStore(sql).get(bench.admin.vendorA.vendorId, licensed.machineId);
      if (machine === undefined) throw new Error('no machine');
      return machine;
    };

    it('exports every row of the machine, naming its table and machine, and only that machine’s', async () => {
      const licensed = await machineWithRows(3);
      const other = await machineWithRows(1);
      const rows = await exportMachineTelemetry(sql, telemetryMasterKey, { vendorId: bench.admin.vendorA.vendorId, machineIds: [licensed.machineId] });
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.table === 'license_telemetry_raw' && row.machine_id === licensed.machineId && row.subject_pseudonym === subjectOf(licensed.machineId))).toBe(true);
      expect(rows.map((row) => row.session_count).sort()).toEqual([20, 21, 22]);
      expect(rows[0]).toMatchObject({ feature_hits: { edit: 40, 'export.pdf': 2 }, session_duration_histogram: [4, 5, 2, 1], consent_version: 3, days_active: 6 });
      // Another vendor's scope finds nothing; a license subject's machines are all exported by the source.
      expect(await exportMachineTelemetry(sql, telemetryMasterKey, { vendorId: bench.admin.vendorB.vendorId, machineIds: [licensed.machineId] })).toEqual([]);
      const source = telemetrySubjectDataSource(telemetryMasterKey);
      const machines = [await machineRecord(licensed), await machineRecord(other)];
      const scan = createDsrScanBudget();
      const exported = await source.export(sql, { vendorId: bench.admin.vendorA.vendorId, machines } as never, scan);
      expect(exported['license_telemetry_raw']).toHaveLength(4);
      expect(scan.usage()).toEqual({ dates: 3, records: 4, matched: 4 });
    });

    it('the erasure step previews, then deletes exactly the machine’s rows, charging the scan before deleting', async () => {
      const licensed = await machineWithRows(2);
      const other = await machineWithRows(1);
      const step = telemetryErasureStep(telemetryMasterKey);
      const machine = await machineRecord(licensed);
      const previewScan = createDsrScanBudget();
      expect(await step.preview(sql, machine, previewScan)).toBe(2);
      expect(previewScan.usage()).toEqual({ dates: 2, records: 2, matched: 2 });
      expect(await rawRowsOf(sql, licensed.machineId)).toHaveLength(2);
      expect(await sql.transaction((tx) => step.run(tx, machine))).toBe(2);
      expect(await rawRowsOf(sql, licensed.machineId)).toHaveLength(0);
      expect(await rawRowsOf(sql, other.machineId)).toHaveLength(1);
    });

    it('refuses past MAX_MATCHED_KEYS or MAX_SCAN_DATES with DsrBoundExceededError, deleting nothing', async () => {
      const licensed = await machineWithRows(3);
      const step = telemetryErasureStep(telemetryMasterKey);
      const machine = await machineRecord(licensed);
      for (const [bounds, bound] of [
        [{ ...dsrBounds, maxMatchedKeys: 2 }, 'MAX_MATCHED_KEYS'],
        [{ ...dsrBounds, maxScanDates: 2 }, 'MAX_SCAN_DATES'],
        [{ ...dsrBounds, maxScanRecords: 2 }, 'MAX_SCAN_RECORDS'],
      ] as const) {
        await expect(step.preview(sql, machine, createDsrScanBudget(bounds))).rejects.toMatchObject({ bound });
        const refused = sql.transaction((tx) => step.run(tx, machine, createDsrScanBudget(bounds)));
        await expect(refused).rejects.toBeInstanceOf(DsrBoundExceededError);
        expect(await rawRowsOf(sql, licensed.machineId)).toHaveLength(3);
      }
    });
  });
}
