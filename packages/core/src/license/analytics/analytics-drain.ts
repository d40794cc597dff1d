import type { SqlClient } from '../../storage/sql-client';
import { analyticsPseudonym, type AnalyticsKeys } from './analytics-keys';
import { analyticsPlatformOf } from './analytics-platform';

type OutboxRow = {
  outbox_id: string;
  machine_id: string;
  license_id: string;
  vendor_id: string;
  product_id: string;
  policy_id: string;
  tier: string | null;
  release_id: string | null;
  app_version: string | null;
  platform: string | null;
  offline: boolean;
  kind: string;
  occurred_at: Date;
};

/**
 * Moves events from the outbox (written by the activation and check-in transactions, naming the machine)
 * into `license_analytics_events` under pseudonyms, in batches. Each batch is one transaction that
 * claims its rows with `FOR UPDATE SKIP LOCKED` (instances drain side by side without waiting), inserts
 * the pseudonymised events under the outbox ids (the platform mapped onto the closed list of
 * `analyticsPlatformOf`, so clients cannot mint rollup groups) (`ON CONFLICT DO NOTHING`: a repeated batch adds nothing)
 * and deletes the outbox rows, so an event is never lost nor doubled if the process dies mid-way.
 *
 * @param sql - The database.
 * @param keys - The analytics keys.
 * @param options - `batchSize` (default 1000) and `maxBatches` (default unbounded).
 * @returns How many events were moved.
 * @example
 * ```ts
 * import { drainAnalyticsOutbox } from '@tollgate/core/license';
 * const moved = await drainAnalyticsOutbox(sql, keys);
 * ```
 */
export async function drainAnalyticsOutbox(sql: SqlClient, keys: AnalyticsKeys, options: { batchSize?: number; maxBatches?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let moved = 0;
  for (let batch = 0; batch < (options.maxBatches ?? Number.POSITIVE_INFINITY); batch++) {
    const count = await sql.transaction(async (tx) => {
      const { rows } = await tx.query<OutboxRow>('SELECT * FROM license_analytics_outbox ORDER BY outbox_id LIMIT $1 FOR UPDATE SKIP LOCKED', [batchSize]);
      if (rows.length === 0) return 0;
      const events = rows.map((row) => ({
        event_id: String(row.outbox_id),
        vendor_id: row.vendor_id,
        product_id: row.product_id,
        policy_id: row.policy_id,
        tier: row.tier,
        release_id: row.release_id,
        app_version: row.app_version,
        platform: analyticsPlatformOf(row.platform),
        offline: row.offline,
        kind: row.kind,
        occurred_at: row.occurred_at.toISOString(),
        device_pseudonym: analyticsPseudonym(keys, 'device', row.machine_id),
        license_pseudonym: analyticsPseudonym(keys, 'license', row.license_id),
      }));
      await tx.query(
        `INSERT INTO license_analytics_events (event_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at, device_pseudonym, license_pseudonym)
         SELECT e.event_id, e.vendor_id, e.product_id, e.policy_id, e.tier, e.release_id, e.app_version, e.platform, e.offline, e.kind, e.occurred_at, e.device_pseudonym, e.license_pseudonym
         FROM jsonb_to_recordset($1::jsonb) AS e(event_id bigint, vendor_id text, product_id text, policy_id text, tier text, release_id text, app_version text,
           platform text, offline boolean, kind text, occurred_at timestamptz, device_pseudonym text, license_pseudonym text)
         ON CONFLICT (event_id) DO NOTHING`,
        [JSON.stringify(events)],
      );
      await tx.query('DELETE FROM license_analytics_outbox WHERE outbox_id = ANY($1::bigint[])', [rows.map((row) => String(row.outbox_id))]);
      return rows.length;
    });
    moved += count;
    if (count < batchSize) break;
  }
  return moved;
}
