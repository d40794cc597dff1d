import type { SqlClient } from '../../storage/sql-client';
import type { ErasureScanBudget, MachineErasureStep } from '../model/machines/machine-erasure';
import { analyticsPseudonym, type AnalyticsKeys } from './analytics-keys';

/** One raw detail event of a data subject, as a DSR export names it. */
export interface AnalyticsEventExport {
  /** The event id; for an event still in the outbox (not yet pseudonymised) its outbox id. */
  readonly event_id: string;
  readonly kind: 'activation' | 'check_in';
  readonly occurred_at: string;
  readonly product_id: string;
  readonly policy_id: string;
  readonly tier: string | null;
  readonly release_id: string | null;
  readonly app_version: string | null;
  readonly platform: string | null;
  readonly offline: boolean;
  readonly device_pseudonym: string;
  readonly license_pseudonym: string;
  /** `true` for an outbox row (written by the activation or check-in, moved into events within seconds). */
  readonly pending: boolean;
}

/** A data subject: one machine, or a license (every machine it ever had). */
export type AnalyticsSubject = { readonly machineId: string } | { readonly licenseId: string };

type Row = Omit<AnalyticsEventExport, 'occurred_at' | 'pending' | 'device_pseudonym' | 'license_pseudonym'> & {
  occurred_at: Date;
  device_pseudonym: string | null;
  license_pseudonym: string | null;
  machine_id: string | null;
  license_id: string | null;
};

const columns = 'kind, occurred_at, product_id, policy_id, tier, release_id, app_version, platform, offline';

/**
 * Every raw analytics detail event of a subject (the pseudonymised events and the outbox rows not yet
 * moved), oldest first, at most `limit` (default 50,000); `truncated` says more exist. Aggregates are
 * not part of it: they hold no subject identifiers.
 *
 * @param sql - The database.
 * @param keys - The analytics keys (the subject's pseudonyms are computed from its ids).
 * @param subject - `{ machineId }` or `{ licenseId }`.
 * @param options - `limit`.
 * @returns The events, JSON-ready.
 * @example
 * ```ts
 * import { deriveAnalyticsKeys, exportAnalyticsEvents } from '@tollgate/core/license';
 * const { events, truncated } = await exportAnalyticsEvents(sql, deriveAnalyticsKeys(masterKey), { machineId });
 * ```
 */
export async function exportAnalyticsEvents(
  sql: SqlClient,
  keys: AnalyticsKeys,
  subject: AnalyticsSubject,
  options: { limit?: number } = {},
): Promise<{ events: AnalyticsEventExport[]; truncated: boolean }> {
  const limit = options.limit ?? 50_000;
  const byMachine = 'machineId' in subject;
  const pseudonym = byMachine ? analyticsPseudonym(keys, 'device', subject.machineId) : analyticsPseudonym(keys, 'license', subject.licenseId);
  const { rows } = await sql.query<Row & { source: string; id: string }>(
    `SELECT * FROM (
       SELECT 'event' AS source, event_id::text AS id, ${columns}, device_pseudonym, license_pseudonym, NULL::text AS machine_id, NULL::text AS license_id
       FROM license_analytics_events WHERE ${byMachine ? 'device_pseudonym' : 'license_pseudonym'} = $1
       UNION ALL
       SELECT 'outbox', outbox_id::text, ${columns}, NULL, NULL, machine_id, license_id
       FROM license_analytics_outbox WHERE ${byMachine ? 'machine_id' : 'license_id'} = $2
     ) AS subject ORDER BY occurred_at, source, id::bigint LIMIT $3`,
    [pseudonym, byMachine ? subject.machineId : subject.licenseId, limit + 1],
  );
  const events = rows.slice(0, limit).map((row) => ({
    event_id: row.id,
    kind: row.kind,
    occurred_at: row.occurred_at.toISOString(),
    product_id: row.product_id,
    policy_id: row.policy_id,
    tier: row.tier,
    release_id: row.release_id,
    app_version: row.app_version,
    platform: row.platform,
    offline: row.offline,
    device_pseudonym: row.device_pseudonym ?? analyticsPseudonym(keys, 'device', row.machine_id!),
    license_pseudonym: row.license_pseudonym ?? analyticsPseudonym(keys, 'license', row.license_id!),
    pending: row.source === 'outbox',
  }));
  return { events, truncated: rows.length > limit };
}

async function countMachineEvents(sql: SqlClient, keys: AnalyticsKeys, machineId: string): Promise<number> {
  const { rows } = await sql.query<{ n: string }>(
    `SELECT ((SELECT count(*) FROM license_analytics_events WHERE device_pseudonym = $1) + (SELECT count(*) FROM license_analytics_outbox WHERE machine_id = $2))::text AS n`,
    [analyticsPseudonym(keys, 'device', machineId), machineId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The erasure step (`analytics_events`) that removes a machine's raw detail events: the pseudonymised
 * events (by the machine's device pseudonym, an indexed lookup) and its outbox rows. Aggregates are never
 * touched. It charges the DSR scan budget with the rows it will remove before removing them. Place it
 * before `machineRecordErasure`.
 *
 * @param keys - The analytics keys.
 * @returns The step.
 * @example
 * ```ts
 * import { analyticsEventErasure, deriveAnalyticsKeys, machineErasureSteps } from '@tollgate/core/license';
 * const steps = [analyticsEventErasure(deriveAnalyticsKeys(masterKey)), ...machineErasureSteps];
 * ```
 */
export function analyticsEventErasure(keys: AnalyticsKeys): MachineErasureStep {
  const charge = (scan: ErasureScanBudget | undefined, count: number) => scan?.charge({ records: count, matched: count });
  return {
    name: 'analytics_events',
    async preview(sql, machine, scan) {
      const count = await countMachineEvents(sql, keys, machine.machineId);
      charge(scan, count);
      return count;
    },
    async run(tx, machine, scan) {
      charge(scan, await countMachineEvents(tx, keys, machine.machineId));
      const events = await tx.query('DELETE FROM license_analytics_events WHERE device_pseudonym = $1', [analyticsPseudonym(keys, 'device', machine.machineId)]);
      const outbox = await tx.query('DELETE FROM license_analytics_outbox WHERE machine_id = $1', [machine.machineId]);
      return events.rowCount + outbox.rowCount;
    },
  };
}

/**
 * Removes every raw detail event of a license (by its license pseudonym, and its outbox rows): for a
 * license-level data-subject delete. Aggregates are never touched.
 *
 * @param tx - The erasure's transaction.
 * @param keys - The analytics keys.
 * @param licenseId - The license.
 * @returns Rows removed.
 * @example
 * ```ts
 * import { eraseLicenseAnalyticsEvents } from '@tollgate/core/license';
 * const removed = await eraseLicenseAnalyticsEvents(tx, keys, licenseId);
 * ```
 */
export async function eraseLicenseAnalyticsEvents(tx: SqlClient, keys: AnalyticsKeys, licenseId: string): Promise<number> {
  const events = await tx.query('DELETE FROM license_analytics_events WHERE license_pseudonym = $1', [analyticsPseudonym(keys, 'license', licenseId)]);
  const outbox = await tx.query('DELETE FROM license_analytics_outbox WHERE license_id = $1', [licenseId]);
  return events.rowCount + outbox.rowCount;
}
