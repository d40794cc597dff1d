import type { SqlClient } from '../../storage/sql-client';
import type { ErasureScanBudget, MachineErasureStep } from '../model/machines/machine-erasure';
import type { MachineRecord } from '../model/machines/machine-store';
import { createDsrScanBudget, dsrBounds } from '../dsr/dsr-bounds';
import type { DsrExportRecords, DsrScope, SubjectDataSource } from '../dsr/subject-data-source';
import { deriveTelemetryPseudonymKey, telemetrySubject } from './telemetry-pseudonym';

/** One stored T1 block as an export shows it (the subject's own data, JSON-ready). */
export interface TelemetryRowView {
  readonly table: 'license_telemetry_raw';
  readonly telemetry_id: string;
  readonly machine_id: string;
  readonly product_id: string;
  readonly subject_pseudonym: string;
  readonly consent_version: number;
  readonly window_start: number;
  readonly session_count: number;
  readonly session_duration_histogram: readonly number[];
  readonly feature_hits: Readonly<Record<string, number>>;
  readonly days_active: number;
  readonly received_at: string;
}

type RawRow = {
  telemetry_id: string;
  product_id: string;
  subject: string;
  consent_version: string;
  window_start: string;
  session_count: number;
  duration_under_5m: number;
  duration_under_30m: number;
  duration_under_2h: number;
  duration_2h_plus: number;
  feature_hits: Record<string, number> | string;
  days_active: number;
  received_at: Date;
  day: string;
};

/**
 * Reads the rows of the given pseudonyms, oldest first, at most `maxScanRecords + 1` of them (so a
 * subject past the bound is detected without reading all of its rows), and charges `scan` with the
 * days, records and matches before anything is returned: past a bound it throws, and nothing is done.
 */
async function scanSubjects(sql: SqlClient, vendorId: string, subjects: readonly string[], scan: ErasureScanBudget, columns: 'all' | 'ids'): Promise<RawRow[]> {
  if (subjects.length === 0) return [];
  const selected = columns === 'all' ? 'r.*' : 'r.telemetry_id, r.subject';
  const { rows } = await sql.query<RawRow>(
    `SELECT ${selected}, to_char(r.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM license_telemetry_raw r
     WHERE r.vendor_id = $1 AND r.subject = ANY($2::text[]) ORDER BY r.received_at, r.telemetry_id LIMIT $3`,
    [vendorId, [...subjects], dsrBounds.maxScanRecords + 1],
  );
  scan.charge({ dates: [...new Set(rows.map((row) => row.day))], records: rows.length, matched: rows.length });
  return rows;
}

function rowView(row: RawRow, machineOf: ReadonlyMap<string, string>): TelemetryRowView {
  const hits = typeof row.feature_hits === 'string' ? (JSON.parse(row.feature_hits) as Record<string, number>) : row.feature_hits;
  return {
    table: 'license_telemetry_raw',
    telemetry_id: String(row.telemetry_id),
    machine_id: machineOf.get(row.subject) ?? '',
    product_id: row.product_id,
    subject_pseudonym: row.subject,
    consent_version: Number(row.consent_version),
    window_start: Number(row.window_start),
    session_count: Number(row.session_count),
    session_duration_histogram: [row.duration_under_5m, row.duration_under_30m, row.duration_under_2h, row.duration_2h_plus].map(Number),
    feature_hits: hits,
    days_active: Number(row.days_active),
    received_at: new Date(row.received_at).toISOString(),
  };
}

/**
 * Every stored telemetry row of some machines of one vendor (a DSR export), found by recomputing each
 * machine's pseudonym. The scan is bounded: it charges `scan` (MAX_SCAN_DATES, MAX_SCAN_RECORDS,
 * MAX_MATCHED_KEYS) and throws `DsrBoundExceededError` past a bound, having returned nothing.
 *
 * @param sql - The database.
 * @param masterKey - `LICENSE_MASTER_KEY` (the pseudonym subkey is derived from it).
 * @param target - The vendor and the machine ids.
 * @param scan - The request's scan budget (a fresh one with the spec's bounds by default).
 * @returns The rows, oldest first, each naming its table and machine.
 * @example
 * ```ts
 * import { exportMachineTelemetry } from '@tollgate/core/license';
 * const rows = await exportMachineTelemetry(sql, masterKey, { vendorId, machineIds: [machineId] });
 * ```
 */
export async function exportMachineTelemetry(
  sql: SqlClient,
  masterKey: Uint8Array,
  target: { vendorId: string; machineIds: readonly string[] },
  scan: ErasureScanBudget = createDsrScanBudget(),
): Promise<TelemetryRowView[]> {
  const key = deriveTelemetryPseudonymKey(masterKey);
  const machineOf = new Map(target.machineIds.map((machineId) => [telemetrySubject(key, machineId), machineId]));
  const rows = await scanSubjects(sql, target.vendorId, [...machineOf.keys()], scan, 'all');
  return rows.map((row) => rowView(row, machineOf));
}

/**
 * The telemetry step of a machine's erasure (`DELETE /machines/{id}`, DSR delete): deletes the
 * machine's raw T1 rows, found by its recomputed pseudonym. A bounded scan: `preview` and `run` both
 * charge the request's `scan` budget before deleting (without one, a fresh budget with the spec's
 * bounds), so a machine past MAX_SCAN_DATES, MAX_SCAN_RECORDS or MAX_MATCHED_KEYS is refused with
 * `DsrBoundExceededError` and, thrown in the erasure's transaction, nothing is erased. Counters and T1
 * rollups hold no subject identifier and are not touched. Place it before `machineRecordErasure`.
 *
 * @param masterKey - `LICENSE_MASTER_KEY`.
 * @returns The step, named `telemetry`.
 * @example
 * ```ts
 * import { machineErasureSteps, telemetryErasureStep } from '@tollgate/core/license';
 * const steps = [telemetryErasureStep(masterKey), ...machineErasureSteps];
 * ```
 */
export function telemetryErasureStep(masterKey: Uint8Array): MachineErasureStep {
  const key = deriveTelemetryPseudonymKey(masterKey);
  const subjectOf = (machine: MachineRecord) => telemetrySubject(key, machine.machineId);
  return {
    name: 'telemetry',
    preview: async (sql, machine, scan = createDsrScanBudget()) => (await scanSubjects(sql, machine.vendorId, [subjectOf(machine)], scan, 'ids')).length,
    run: async (tx, machine, scan = createDsrScanBudget()) => {
      await scanSubjects(tx, machine.vendorId, [subjectOf(machine)], scan, 'ids');
      const { rowCount } = await tx.query('DELETE FROM license_telemetry_raw WHERE vendor_id = $1 AND subject = $2', [machine.vendorId, subjectOf(machine)]);
      return rowCount;
    },
  };
}

/**
 * Telemetry as a DSR data source: the export lists every raw T1 row of the subject's machines under
 * `license_telemetry_raw`, and the machine erasure is {@link telemetryErasureStep}.
 *
 * @param masterKey - `LICENSE_MASTER_KEY`.
 * @returns The source, named `telemetry`.
 * @example
 * ```ts
 * import { telemetrySubjectDataSource } from '@tollgate/core/license';
 * const sources = [telemetrySubjectDataSource(masterKey), ...otherSources];
 * ```
 */
export function telemetrySubjectDataSource(masterKey: Uint8Array): SubjectDataSource {
  return {
    name: 'telemetry',
    export: async (sql: SqlClient, scope: DsrScope, scan: ErasureScanBudget): Promise<DsrExportRecords> => ({
      license_telemetry_raw: await exportMachineTelemetry(sql, masterKey, { vendorId: scope.vendorId, machineIds: scope.machines.map((machine) => machine.machineId) }, scan),
    }),
    machineErasure: telemetryErasureStep(masterKey),
  };
}
