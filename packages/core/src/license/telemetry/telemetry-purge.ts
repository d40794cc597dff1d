import type { SqlClient } from '../../storage/sql-client';

/** Milliseconds in a day. */
const dayMs = 86_400_000;

/** The T1 rollup tables (created by the analytics migration 019): a `day` column, no subject identifiers. */
export const telemetryRollupTables = ['license_analytics_t1_daily', 'license_analytics_t1_sketches'] as const;

/** What one purge removes: raw T1 rows received before `cutoff`, and (with `before`) T1 rollups of days before it. */
export interface TelemetryPurgeWindow {
  /** Raw rows received strictly before this instant go. */
  readonly cutoff: Date;
  /** Rollup rows of UTC days strictly before this day (`YYYY-MM-DD`) go; none without it. */
  readonly before: string | undefined;
}

/**
 * The window of a purge: raw rows past retention (`now − retentionDays`) always go; `before` also drops
 * rollups of earlier days and, when it is later than the retention cutoff, raw rows before it too. A
 * purge never keeps raw rows longer than retention, whatever `before` says.
 *
 * @param now - The current time.
 * @param retentionDays - `TELEMETRY_RAW_RETENTION_DAYS`.
 * @param before - An optional UTC day, `YYYY-MM-DD` (already validated).
 * @returns The window.
 * @example
 * ```ts
 * import { telemetryPurgeWindow } from '@tollgate/core/license';
 * const window = telemetryPurgeWindow(new Date(), 30, '2026-01-01');
 * ```
 */
export function telemetryPurgeWindow(now: Date, retentionDays: number, before?: string): TelemetryPurgeWindow {
  const retentionCutoff = now.getTime() - retentionDays * dayMs;
  const beforeStart = before === undefined ? Number.NEGATIVE_INFINITY : Date.parse(`${before}T00:00:00Z`);
  return { cutoff: new Date(Math.max(retentionCutoff, beforeStart)), before };
}

/**
 * Checks a purge date: a real calendar day `YYYY-MM-DD`, not later than `today` (a later one would drop
 * rollups of days still being collected).
 *
 * @param value - The `before` text.
 * @param today - Today (UTC), `YYYY-MM-DD`.
 * @returns A message naming the problem, or `undefined` when the date is fine.
 * @example
 * ```ts
 * import { purgeDateProblem } from '@tollgate/core/license';
 * purgeDateProblem('2026-02-30', '2026-05-01'); // 'before must be a real calendar day (YYYY-MM-DD)'
 * ```
 */
export function purgeDateProblem(value: string, today: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const parsed = match === null ? Number.NaN : Date.parse(`${value}T00:00:00Z`);
  if (match === null || Number.isNaN(parsed) || new Date(parsed).toISOString().slice(0, 10) !== value) return 'before must be a real calendar day (YYYY-MM-DD)';
  if (value > today) return `before must be today (${today}) or earlier`;
  return undefined;
}

/** How many rows a purge finds (dry run) or removed (confirmed). */
export interface TelemetryPurgeCounts {
  readonly rawRecords: number;
  readonly rollupRows: number;
}

/**
 * Counts what a purge of one vendor would remove now (reads only: the dry run).
 *
 * @param sql - The database.
 * @param vendorId - The vendor.
 * @param window - The purge window.
 * @returns The counts.
 * @example
 * ```ts
 * import { countTelemetryPurge, telemetryPurgeWindow } from '@tollgate/core/license';
 * const counts = await countTelemetryPurge(sql, vendorId, telemetryPurgeWindow(new Date(), 30));
 * ```
 */
export async function countTelemetryPurge(sql: SqlClient, vendorId: string, window: TelemetryPurgeWindow): Promise<TelemetryPurgeCounts> {
  const raw = await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_telemetry_raw WHERE vendor_id = $1 AND received_at < $2', [vendorId, window.cutoff]);
  let rollupRows = 0;
  if (window.before !== undefined) {
    for (const table of telemetryRollupTables) {
      const counted = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE vendor_id = $1 AND day < $2::date`, [vendorId, window.before]);
      rollupRows += Number(counted.rows[0]?.n ?? 0);
    }
  }
  return { rawRecords: Number(raw.rows[0]?.n ?? 0), rollupRows };
}

/**
 * Removes what a purge of one vendor covers, in `tx` (the confirmed Admin purge's transaction, so the
 * deletes and the audit event commit together).
 *
 * @param tx - The transaction.
 * @param vendorId - The vendor.
 * @param window - The purge window.
 * @returns What was removed.
 * @example
 * ```ts
 * import { runTelemetryPurge, telemetryPurgeWindow } from '@tollgate/core/license';
 * const removed = await runTelemetryPurge(call.sql, vendorId, telemetryPurgeWindow(call.now, 30, '2026-01-01'));
 * ```
 */
export async function runTelemetryPurge(tx: SqlClient, vendorId: string, window: TelemetryPurgeWindow): Promise<TelemetryPurgeCounts> {
  const raw = await tx.query('DELETE FROM license_telemetry_raw WHERE vendor_id = $1 AND received_at < $2', [vendorId, window.cutoff]);
  let rollupRows = 0;
  if (window.before !== undefined) {
    for (const table of telemetryRollupTables) rollupRows += (await tx.query(`DELETE FROM ${table} WHERE vendor_id = $1 AND day < $2::date`, [vendorId, window.before])).rowCount;
  }
  return { rawRecords: raw.rowCount, rollupRows };
}

/** Rows one retention statement deletes at most, so no statement holds locks on a huge set. */
export const retentionBatchRows = 5_000;

/**
 * Enforces raw T1 retention for every vendor: deletes rows received before `now − retentionDays`, in
 * batches of {@link retentionBatchRows} until none is left (or `isClosed()` says stop). Idempotent and
 * safe on any number of instances at once (a row deleted twice is simply not found again).
 *
 * @param sql - The database.
 * @param now - The current time.
 * @param retentionDays - `TELEMETRY_RAW_RETENTION_DAYS`.
 * @param isClosed - Stops between batches when the server shuts down.
 * @returns How many rows were deleted.
 * @example
 * ```ts
 * import { enforceTelemetryRetention } from '@tollgate/core/license';
 * const deleted = await enforceTelemetryRetention(sql, new Date(), 30);
 * ```
 */
export async function enforceTelemetryRetention(sql: SqlClient, now: Date, retentionDays: number, isClosed: () => boolean = () => false): Promise<number> {
  const { cutoff } = telemetryPurgeWindow(now, retentionDays);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await sql.query(
      'DELETE FROM license_telemetry_raw WHERE telemetry_id IN (SELECT telemetry_id FROM license_telemetry_raw WHERE received_at < $1 ORDER BY received_at LIMIT $2)',
      [cutoff, retentionBatchRows],
    );
    deleted += rowCount;
    if (rowCount < retentionBatchRows || isClosed()) return deleted;
  }
}
