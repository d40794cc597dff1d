import type { SqlClient } from '../../storage/sql-client';
import type { AuditLog } from '../admin/audit/audit-log';

/** One seat taken back from a silent machine. */
export interface ReclaimedSeat {
  readonly machineId: string;
  readonly licenseId: string;
  readonly vendorId: string;
  /** Its last contact (activation, validation or heartbeat). */
  readonly lastSeenAt: Date;
}

/** The audit actor of seat reclaims. */
export const seatReclaimActor = 'job:seat-reclaim';

/**
 * Takes back the seats of machines silent for longer than their policy's `heartbeat_window_seconds`
 * (floating licenses; policies without a window and offline activations are never reclaimed): each
 * becomes `deactivated` with reason `reclaimed`, so its next validation answers a kill order of reason 3,
 * and a `machine.reclaim` event joins its vendor's audit chain in the same transaction.
 *
 * Concurrency: candidates are locked `FOR UPDATE SKIP LOCKED`, so a machine a heartbeat (or a revoke) is
 * writing right now is left for the next run, and a heartbeat that committed first is seen by the lock's
 * re-check of `last_seen_at` and keeps its seat. Several instances may run it at once without reclaiming
 * one seat twice. At most `limit` seats per call.
 *
 * @param sql - The database.
 * @param audit - The audit log.
 * @param options - The time of the run and the batch size.
 * @returns The seats reclaimed.
 * @example
 * ```ts
 * import { reclaimSilentSeats, createSqlAuditLog } from '@tollgate/core/license';
 * const reclaimed = await reclaimSilentSeats(sql, createSqlAuditLog(sql), { now: new Date() });
 * ```
 */
export async function reclaimSilentSeats(sql: SqlClient, audit: AuditLog, options: { now: Date; limit?: number }): Promise<ReclaimedSeat[]> {
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<{ machine_id: string; license_id: string; vendor_id: string; last_seen_at: Date }>(
      `WITH silent AS (
         SELECT m.machine_id, m.last_seen_at FROM license_machines m
         JOIN license_licenses l ON l.license_id = m.license_id
         JOIN license_policies p ON p.policy_id = l.policy_id
         WHERE m.status = 'active' AND NOT m.offline
           AND (p.document ->> 'heartbeat_window_seconds') IS NOT NULL
           AND m.last_seen_at < $1::timestamptz - make_interval(secs => (p.document ->> 'heartbeat_window_seconds')::integer)
         ORDER BY m.machine_id
         LIMIT $2
         FOR UPDATE OF m SKIP LOCKED
       )
       UPDATE license_machines m SET status = 'deactivated', deactivated_at = $1, deactivation_reason = 'reclaimed'
       FROM silent WHERE m.machine_id = silent.machine_id
       RETURNING m.machine_id, m.license_id, m.vendor_id, silent.last_seen_at`,
      [options.now, options.limit ?? 500],
    );
    const reclaimed = rows
      .map((row) => ({ machineId: row.machine_id, licenseId: row.license_id, vendorId: row.vendor_id, lastSeenAt: row.last_seen_at }))
      .sort((a, b) => (a.vendorId < b.vendorId ? -1 : a.vendorId > b.vendorId ? 1 : a.machineId < b.machineId ? -1 : 1));
    for (const seat of reclaimed) {
      await audit.append(
        tx,
        {
          vendorId: seat.vendorId,
          actor: seatReclaimActor,
          action: 'machine.reclaim',
          targetType: 'machine',
          targetId: seat.machineId,
          summary: { license_id: seat.licenseId, last_seen_at: seat.lastSeenAt.toISOString() },
        },
        options.now.getTime(),
      );
    }
    return reclaimed;
  });
}
