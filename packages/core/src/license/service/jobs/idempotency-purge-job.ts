import type { Clock } from '../../../time/clock';
import type { IdempotencyJournal } from '../../admin/idempotency-journal';
import type { LicenseLogSink } from '../logger';

/** How often expired idempotency keys are deleted: they are refused as replays the moment they expire, so this only reclaims space. */
export const idempotencyPurgeIntervalMs = 15 * 60 * 1000;

/**
 * Deletes idempotency journal rows past their 24-hour retention every {@link idempotencyPurgeIntervalMs}.
 * Expiry itself needs no job (an expired row is never replayed); this keeps the table small. Every
 * instance may run it: the delete is idempotent.
 *
 * @param options - The journal, clock and logger.
 * @returns `close()`, which stops the timer and waits for a purge in flight.
 * @example
 * ```ts
 * import { startIdempotencyPurgeJob } from '@tollgate/core/license';
 * const purge = startIdempotencyPurgeJob({ journal: admin.journal, clock, logger });
 * await purge.close();
 * ```
 */
export function startIdempotencyPurgeJob(options: { journal: IdempotencyJournal; clock: Clock; logger: LicenseLogSink; intervalMs?: number }): { close(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const purge = async () => {
    try {
      const deleted = await options.journal.purgeExpired(new Date(options.clock.now()));
      if (deleted > 0) options.logger.info({ deleted }, 'expired idempotency keys purged');
    } catch (error) {
      options.logger.error({ err: error }, 'idempotency purge failed; retrying next round');
    }
  };
  const timer = setInterval(() => {
    running = running.then(purge);
  }, options.intervalMs ?? idempotencyPurgeIntervalMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
