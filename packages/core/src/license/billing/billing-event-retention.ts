import type { SqlClient } from '../../storage/sql-client';

/**
 * Deletes processed billing events whose processing finished before `before`, at most `limit` rows
 * (the oldest first; call again while it returns `limit`). Pending and dead rows are kept: they still
 * need work or an operator. The dedupe of a deleted event is gone, so `before` must lie past the
 * providers' retry horizon (about 3 days); a later redelivery would be applied again, which the
 * per-subscription ordering (`stale`) and the revoke path (`already_revoked`) make harmless.
 *
 * @param sql - The database.
 * @param before - Processed before this instant.
 * @param limit - The most rows one call deletes (default 1000).
 * @returns How many rows it deleted.
 * @example
 * ```ts
 * import { purgeProcessedBillingEvents } from '@tollgate/core/license';
 * await purgeProcessedBillingEvents(sql, new Date(Date.now() - 30 * 86_400_000));
 * ```
 */
export async function purgeProcessedBillingEvents(sql: SqlClient, before: Date, limit = 1000): Promise<number> {
  const { rows } = await sql.query<{ event_id: string }>(
    `DELETE FROM license_billing_events WHERE (provider, event_id) IN (
       SELECT provider, event_id FROM license_billing_events WHERE status = 'processed' AND processed_at < $1 ORDER BY processed_at LIMIT $2
     ) RETURNING event_id`,
    [before, limit],
  );
  return rows.length;
}
