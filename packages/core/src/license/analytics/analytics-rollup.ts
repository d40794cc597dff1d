import { hexDecode } from '../../crypto/hex';
import type { SqlClient } from '../../storage/sql-client';
import { addDays, dayStart } from './analytics-days';
import { analyticsPlatformSql } from './analytics-platform';
import { HyperLogLog } from './hll';

/** The session-duration buckets of a telemetry block, in its order (spec: 5 min, 30 min, 2 h). */
export const sessionDurationBuckets = Object.freeze(['lt_5m', 'lt_30m', 'lt_2h', 'ge_2h'] as const);

/** What one rollup of a day produced. */
export interface AnalyticsDayRollup {
  readonly day: string;
  /** Raw detail events of the day. */
  readonly events: number;
  /** Raw T1 telemetry blocks of the day. */
  readonly t1Blocks: number;
}

const dimensionColumns = 'vendor_id, product_id, policy_id, tier, release_id, platform';
const groupColumns = ['vendor_id', 'product_id', 'policy_id', 'tier', 'release_id', 'platform', 'kind'] as const;
/** Rows of (group, device, license) read per page while sketching: bounds the memory of a day's rollup. */
const sketchPageRows = 20_000;

type SketchRow = Record<(typeof groupColumns)[number] | 'device_pseudonym' | 'license_pseudonym', string>;

async function rollupEvents(tx: SqlClient, day: string, bounds: [Date, Date]): Promise<number> {
  const platform = analyticsPlatformSql('platform');
  const inserted = await tx.query(
    `INSERT INTO license_analytics_daily (day, ${dimensionColumns}, kind, events)
     SELECT $1::date, vendor_id, product_id, policy_id, COALESCE(tier, ''), COALESCE(release_id, ''), ${platform}, kind, count(*)
     FROM license_analytics_events WHERE occurred_at >= $2 AND occurred_at < $3
     GROUP BY 2, 3, 4, 5, 6, 7, 8
     RETURNING events`,
    [day, ...bounds],
  );
  // The distinct (group, device, license) rows, in group order and a page at a time: each group's two
  // sketches are finished and written before the next group starts, so memory holds one page and one
  // group, whatever the number of groups or devices.
  const distinctRows = `SELECT DISTINCT vendor_id, product_id, policy_id, COALESCE(tier, '') AS tier, COALESCE(release_id, '') AS release_id, ${platform} AS platform, kind,
      device_pseudonym, license_pseudonym
    FROM license_analytics_events WHERE occurred_at >= $1 AND occurred_at < $2`;
  const order = [...groupColumns, 'device_pseudonym', 'license_pseudonym'];
  let current: { group: string[]; key: string; devices: HyperLogLog; licenses: HyperLogLog } | undefined;
  const flush = async () => {
    if (current === undefined) return;
    await tx.query(`INSERT INTO license_analytics_sketches (day, ${dimensionColumns}, kind, devices, licenses) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
      day,
      ...current.group,
      current.devices.toBytes(),
      current.licenses.toBytes(),
    ]);
    await tx.query(
      `UPDATE license_analytics_daily SET devices = $9 WHERE day = $1 AND vendor_id = $2 AND product_id = $3 AND policy_id = $4 AND tier = $5 AND release_id = $6
         AND platform = $7 AND kind = $8`,
      [day, ...current.group, Math.round(current.devices.estimate())],
    );
  };
  let after: SketchRow | undefined;
  for (;;) {
    const keyset = after === undefined ? '' : `WHERE (${order.join(', ')}) > (${order.map((_, index) => `$${index + 4}`).join(', ')})`;
    const { rows } = await tx.query<SketchRow>(`SELECT * FROM (${distinctRows}) AS d ${keyset} ORDER BY ${order.join(', ')} LIMIT $3`, [
      ...bounds,
      sketchPageRows,
      ...(after === undefined ? [] : order.map((column) => after![column as keyof SketchRow])),
    ]);
    for (const row of rows) {
      const group = groupColumns.map((column) => row[column]);
      const key = JSON.stringify(group);
      if (current?.key !== key) {
        await flush();
        current = { group, key, devices: new HyperLogLog(), licenses: new HyperLogLog() };
      }
      current.devices.addHash(hexDecode(row.device_pseudonym.slice(0, 16)));
      current.licenses.addHash(hexDecode(row.license_pseudonym.slice(0, 16)));
    }
    if (rows.length < sketchPageRows) break;
    after = rows.at(-1);
  }
  await flush();
  return inserted.rows.reduce((sum, row) => sum + Number(row.events), 0);
}

// Sums run in numeric and are clamped to what a bigint holds (and a JS number adds exactly), so no
// client-sent value can make a day's rollup throw; the telemetry intake caps values too.
const maxStoredValue = '9007199254740991';

// Each measure with the distinct devices that contributed to it (a value above 0): what k-anonymity
// suppression counts. Rows without any contributing device are left out.
const t1MeasuresSql = `WITH raw AS (
    SELECT vendor_id, product_id, subject, session_count, days_active, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits
    FROM license_telemetry_raw WHERE received_at >= $2 AND received_at < $3
  ), measures AS (
    SELECT vendor_id, product_id, subject, 'blocks' AS measure, '' AS key, 1::numeric AS value FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'sessions', '', session_count::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'days_active', '', days_active::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'session_duration', 'lt_5m', duration_under_5m::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'session_duration', 'lt_30m', duration_under_30m::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'session_duration', 'lt_2h', duration_under_2h::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'session_duration', 'ge_2h', duration_2h_plus::numeric FROM raw
    UNION ALL SELECT vendor_id, product_id, subject, 'feature_hits', hit.key, hit.value::numeric FROM raw, jsonb_each_text(raw.feature_hits) AS hit
  )
  INSERT INTO license_analytics_t1_daily (day, vendor_id, product_id, measure, key, value, devices)
  SELECT $1::date, vendor_id, product_id, measure, key, LEAST(sum(value), ${maxStoredValue})::bigint, count(DISTINCT subject) FROM measures WHERE value > 0
  GROUP BY vendor_id, product_id, measure, key`;

async function rollupTelemetry(tx: SqlClient, day: string, bounds: [Date, Date]): Promise<number> {
  await tx.query(t1MeasuresSql, [day, ...bounds]);
  const { rows } = await tx.query<{ vendor_id: string; product_id: string; subject: string; blocks: string }>(
    `SELECT vendor_id, product_id, subject, count(*)::text AS blocks FROM license_telemetry_raw WHERE received_at >= $1 AND received_at < $2
     GROUP BY vendor_id, product_id, subject ORDER BY vendor_id, product_id`,
    bounds,
  );
  // The telemetry subject is already an HMAC pseudonym (uniform): its first 64 bits feed the sketch.
  const sketches = new Map<string, { vendorId: string; productId: string; devices: HyperLogLog }>();
  let blocks = 0;
  for (const row of rows) {
    const key = `${row.vendor_id}\u0000${row.product_id}`;
    let entry = sketches.get(key);
    if (entry === undefined) sketches.set(key, (entry = { vendorId: row.vendor_id, productId: row.product_id, devices: new HyperLogLog() }));
    entry.devices.addHash(hexDecode(row.subject.slice(0, 16)));
    blocks += Number(row.blocks);
  }
  for (const { vendorId, productId, devices } of sketches.values()) {
    await tx.query('INSERT INTO license_analytics_t1_sketches (day, vendor_id, product_id, devices) VALUES ($1, $2, $3, $4)', [day, vendorId, productId, devices.toBytes()]);
  }
  return blocks;
}

/**
 * Rolls up one UTC day, idempotently: in one transaction it deletes the day's rows from every rollup
 * table and rebuilds them from the raw events and raw T1 blocks of that day (exact counts by product,
 * policy, tier, release, platform and kind; HyperLogLog sketches of distinct devices and licenses; T1
 * measures with their distinct-device counts and a device sketch per product; every pseudonym it reads
 * is already stored, so it needs no key), then records the day
 * as complete (`runs` + 1). The rows depend only on the raw data, so running a day twice gives identical
 * rows; a crash leaves the previous rows in place.
 *
 * @param sql - The database (a transaction or a client: the work runs in its own (sub)transaction).
 * @param day - `YYYY-MM-DD`.
 * @param now - When the rollup completed.
 * @returns The day's event and block counts.
 * @example
 * ```ts
 * import { rollupAnalyticsDay } from '@tollgate/core/license';
 * await rollupAnalyticsDay(sql, '2025-03-01', new Date());
 * ```
 */
export async function rollupAnalyticsDay(sql: SqlClient, day: string, now: Date): Promise<AnalyticsDayRollup> {
  const bounds: [Date, Date] = [dayStart(day), dayStart(addDays(day, 1))];
  return sql.transaction(async (tx) => {
    for (const table of ['license_analytics_daily', 'license_analytics_sketches', 'license_analytics_t1_daily', 'license_analytics_t1_sketches']) {
      await tx.query(`DELETE FROM ${table} WHERE day = $1::date`, [day]);
    }
    const events = await rollupEvents(tx, day, bounds);
    const t1Blocks = await rollupTelemetry(tx, day, bounds);
    await tx.query(
      `INSERT INTO license_analytics_rollup_days (day, status, events, t1_blocks, runs, completed_at) VALUES ($1, 'complete', $2, $3, 1, $4)
       ON CONFLICT (day) DO UPDATE SET status = 'complete', events = EXCLUDED.events, t1_blocks = EXCLUDED.t1_blocks, runs = license_analytics_rollup_days.runs + 1,
         completed_at = EXCLUDED.completed_at, next_attempt_at = NULL, last_error = NULL`,
      [day, events, t1Blocks, now],
    );
    return { day, events, t1Blocks };
  });
}

/** Failed attempts after which a day no longer holds back scheduled reports (about 3 h of retries). */
export const analyticsSettledAfterFailures = 3;

/**
 * The latest day through which the rollup is settled without a gap, looking back at most `windowDays`
 * from the latest recorded day (older days outside the job's catch-up window are never waited for), or
 * `null` before the first rollup. A day is settled when it is complete, or when it failed
 * {@link analyticsSettledAfterFailures} times (it is still retried, but a report no longer waits for it:
 * one bad day must not hold back every later report). A missing or still-retrying day is a gap.
 *
 * @param sql - The database.
 * @param windowDays - How far back gaps count (default 90, the catch-up window).
 * @returns `YYYY-MM-DD` or `null`.
 * @example
 * ```ts
 * import { analyticsRolledUpThrough } from '@tollgate/core/license';
 * const through = await analyticsRolledUpThrough(sql); // '2025-03-01'
 * ```
 */
export async function analyticsRolledUpThrough(sql: SqlClient, windowDays = 90): Promise<string | null> {
  const { rows } = await sql.query<{ day: string | null }>(
    `WITH recorded AS (
       SELECT day, status = 'complete' OR failures >= $1 AS settled FROM license_analytics_rollup_days
       WHERE day > (SELECT max(day) FROM license_analytics_rollup_days) - $2::int
     ), gap AS (
       SELECT min(day) AS day FROM (SELECT day, lag(day) OVER (ORDER BY day) AS previous, settled FROM recorded) AS r
       WHERE NOT settled OR (previous IS NOT NULL AND day - previous > 1)
     )
     SELECT to_char(CASE WHEN (SELECT day FROM gap) IS NULL THEN (SELECT max(day) FROM recorded)
       ELSE (SELECT max(day) FROM recorded WHERE settled AND day < (SELECT day FROM gap)) END, 'YYYY-MM-DD') AS day`,
    [analyticsSettledAfterFailures, windowDays],
  );
  return rows[0]?.day ?? null;
}
