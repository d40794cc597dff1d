import { randomBytes } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';

/**
 * The operational counters of T1 telemetry (license spec, "Telemetry block" rule 2 and "Events"): blocks
 * stored, blocks dropped at each gate, second blocks of a machine's day (`t1.duplicate_window`), and the
 * clip anomalies of stored blocks, by the spec's names.
 *
 * @example
 * ```ts
 * import { telemetryCounterNames } from '@tollgate/core/license';
 * telemetryCounterNames.includes('t1.no_consent'); // true
 * ```
 */
export const telemetryCounterNames = [
  't1.stored',
  't1.no_consent',
  't1.tier_gate',
  't1.duplicate_window',
  'session_count_clipped',
  'session_duration_clipped',
  'feature_key_dropped',
  'feature_hits_clipped',
  'days_active_clipped',
] as const;

/** One of {@link telemetryCounterNames}. */
export type TelemetryCounterName = (typeof telemetryCounterNames)[number];

/** Rows each (product, counter, day) is spread over, so concurrent increments rarely wait on one row lock. */
export const telemetryCounterShards = 8;

/**
 * The UTC day of an instant, `YYYY-MM-DD` (counters and purge dates are UTC days).
 *
 * @param at - The instant.
 * @returns The day.
 * @example
 * ```ts
 * import { utcDayOf } from '@tollgate/core';
 * utcDayOf(new Date('2026-05-01T23:59:59Z')); // '2026-05-01'
 * ```
 */
export function utcDayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A random shard in `[0, telemetryCounterShards)`. */
export function randomCounterShard(): number {
  return (randomBytes(1)[0] as number) % telemetryCounterShards;
}

/**
 * The statement tail that adds 1 to each named counter of one product and day: `$1` vendor, `$2`
 * product, `$3` day, `$4` shard, `$5` the names (distinct, sorted, so two statements lock shared rows
 * in one order and cannot deadlock). `ON CONFLICT DO UPDATE` makes each increment atomic under the row
 * lock: concurrent increments on any number of instances never lose one.
 */
export const counterIncrementSql = `INSERT INTO license_telemetry_counters (vendor_id, product_id, counter, day, shard, count)
  SELECT $1, $2, name, $3::date, $4, 1 FROM unnest($5::text[]) AS name ORDER BY name
  ON CONFLICT (vendor_id, product_id, counter, day, shard) DO UPDATE SET count = license_telemetry_counters.count + 1`;

/**
 * Adds 1 to each named counter in one statement (autocommit, or the caller's transaction).
 *
 * @param sql - The database.
 * @param target - Vendor, product and the instant counted.
 * @param names - The counters.
 * @example
 * ```ts
 * import { incrementTelemetryCounters } from '@tollgate/core/license';
 * await incrementTelemetryCounters(sql, { vendorId, productId, at: new Date() }, ['t1.no_consent']);
 * ```
 */
export async function incrementTelemetryCounters(sql: SqlClient, target: { vendorId: string; productId: string; at: Date }, names: readonly TelemetryCounterName[]): Promise<void> {
  if (names.length === 0) return;
  await sql.query(counterIncrementSql, [target.vendorId, target.productId, utcDayOf(target.at), randomCounterShard(), [...new Set(names)].sort()]);
}

/** One counter of one product on one day. */
export interface TelemetryCounterDay {
  readonly productId: string;
  readonly counter: string;
  readonly day: string;
  readonly count: number;
}

/**
 * A vendor's counters per product, counter and day within `[from, to]` (UTC days, inclusive), shards
 * summed; days without a count are absent.
 *
 * @param sql - The database.
 * @param vendorId - The vendor.
 * @param range - `from`, `to` (`YYYY-MM-DD`) and optionally one product.
 * @returns The counts, by day, product and counter.
 * @example
 * ```ts
 * import { readTelemetryCounters } from '@tollgate/core/license';
 * const days = await readTelemetryCounters(sql, vendorId, { from: '2026-05-01', to: '2026-05-31' });
 * ```
 */
export async function readTelemetryCounters(sql: SqlClient, vendorId: string, range: { from: string; to: string; productId?: string }): Promise<TelemetryCounterDay[]> {
  const { rows } = await sql.query<{ product_id: string; counter: string; day: string; count: string }>(
    `SELECT product_id, counter, to_char(day, 'YYYY-MM-DD') AS day, sum(count)::text AS count FROM license_telemetry_counters
     WHERE vendor_id = $1 AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR product_id = $4)
     GROUP BY product_id, counter, day ORDER BY day, product_id, counter`,
    [vendorId, range.from, range.to, range.productId ?? null],
  );
  return rows.map((row) => ({ productId: row.product_id, counter: row.counter, day: row.day, count: Number(row.count) }));
}

/** One counter's total since the first block, for the metrics exposition. */
export interface TelemetryCounterTotal {
  readonly vendorId: string;
  readonly productId: string;
  readonly counter: string;
  readonly count: number;
}

/**
 * Every vendor's counter totals (all days and shards summed): what `/metrics` exposes as monotonic
 * counters. Counter rows are never purged, so a total never goes down.
 *
 * @param sql - The database.
 * @returns One total per vendor, product and counter.
 * @example
 * ```ts
 * import { telemetryCounterTotals } from '@tollgate/core/license';
 * const totals = await telemetryCounterTotals(sql);
 * ```
 */
export async function telemetryCounterTotals(sql: SqlClient): Promise<TelemetryCounterTotal[]> {
  const { rows } = await sql.query<{ vendor_id: string; product_id: string; counter: string; count: string }>(
    `SELECT vendor_id, product_id, counter, sum(count)::text AS count FROM license_telemetry_counters
     GROUP BY vendor_id, product_id, counter ORDER BY vendor_id, product_id, counter`,
  );
  return rows.map((row) => ({ vendorId: row.vendor_id, productId: row.product_id, counter: row.counter, count: Number(row.count) }));
}
