import { reclaimSilentSeats, type ReclaimedSeat } from '../../client-protocol/seat-reclaim';
import type { AuditLog } from '../../admin/audit/audit-log';
import type { Clock } from '../../../time/clock';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';
import { startPeriodicJob, type PeriodicJob } from './periodic-job';

/** Options of {@link startSeatReclaimJob}. */
export interface SeatReclaimJobOptions {
  sql: SqlClient;
  audit: AuditLog;
  clock: Clock;
  logger: LicenseLogSink;
  /** Period between runs. */
  intervalMs: number;
  /** Most seats one run takes back (default 500; a run that reaches it runs again at once). */
  batchSize?: number;
}

/** A running seat reclaim job: `runOnce()` returns the seats that run reclaimed. */
export type SeatReclaimJob = PeriodicJob<ReclaimedSeat[]>;

/**
 * Every `intervalMs`, takes back the seats of machines silent for longer than their policy's heartbeat
 * window (`reclaimSilentSeats`: deactivated with reason `reclaimed`, audited as `machine.reclaim`; the
 * device's next validation answers a kill order of reason 3). Every instance may run it: candidates are
 * locked `SKIP LOCKED`, so two runs never reclaim one seat twice and never wait on each other. A run
 * that fills its batch continues with the next batch. Failures are logged and the next round retries:
 * the job never crashes the server, and its timer does not keep the process alive.
 *
 * @param options - Database, audit log, clock, logger, interval.
 * @returns The job.
 * @example
 * ```ts
 * import { startSeatReclaimJob } from './jobs/seat-reclaim-job';
 * const job = startSeatReclaimJob({ sql, audit, clock: systemClock, logger, intervalMs: 60_000 });
 * await job.close();
 * ```
 */
export function startSeatReclaimJob(options: SeatReclaimJobOptions): SeatReclaimJob {
  const { sql, audit, clock, logger } = options;
  const batchSize = options.batchSize ?? 500;
  return startPeriodicJob<ReclaimedSeat[]>(options.intervalMs, [], async (isClosed) => {
    const reclaimed: ReclaimedSeat[] = [];
    try {
      for (;;) {
        const batch = await reclaimSilentSeats(sql, audit, { now: new Date(clock.now()), limit: batchSize });
        reclaimed.push(...batch);
        if (batch.length < batchSize || isClosed()) break;
      }
    } catch (error) {
      logger.error({ err: error }, 'seat reclaim failed; retrying next round');
    }
    if (reclaimed.length > 0) logger.info({ reclaimed: reclaimed.length }, 'seats of silent machines reclaimed');
    return reclaimed;
  });
}
