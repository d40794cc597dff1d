import { createSqlJobQueue } from '../../storage/jobs/sql-job-queue';
import { runWorker } from '../../storage/jobs/run-worker';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import type { SettlementRecovery } from '../payments/recovery';
import { settlementRecoveryQueue, type SettlementRecoveryJob } from '../payments/recovery-job';

/** Where the recovery worker reports. */
export interface RecoveryWorkerLogger {
  debug(object: object, message?: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Options of {@link startRecoveryWorker}. */
export interface RecoveryWorkerOptions {
  sql: SqlClient;
  recovery: Pick<SettlementRecovery, 'runJob' | 'sweepAbandoned' | 'sweepStranded'>;
  clock: Clock;
  logger: RecoveryWorkerLogger;
  /** Pause after finding no due job. Default 1 000 ms. */
  pollIntervalMs?: number;
  /** Jobs handled at once. Default 2. */
  concurrency?: number;
  /**
   * How often to look for claims whose holder died mid-settle, and for pending payments whose recovery
   * job died or went missing. Default 30 000 ms.
   */
  sweepIntervalMs?: number;
}

/**
 * Backoff of recovery retries: 2 s doubling (full jitter), capped at one hour. A pending payment is
 * usually mined within seconds; one whose authorization expires unused is settled as failed at the
 * first retry after its `validBefore`.
 */
export const recoveryBackoff = { baseMs: 2_000, maxMs: 3_600_000 } as const;

/**
 * Runs the `gateway.settlement-recovery` queue on this instance: pending payments are finished from
 * chain evidence. Every instance may run it: jobs are claimed with `SKIP LOCKED`. A job whose payment is
 * still unresolved fails and comes back with backoff; that is routine and logged at debug level, except
 * its last attempt: the job is then dead-lettered while the payer may have been charged, so it is logged
 * at error level (the payment id, attempts and why it is still pending). Every `sweepIntervalMs` it
 * also relieves claims whose holder died (lease ended): they become pending, with a recovery job, or are
 * released when settle never started; and it gives pending payments whose recovery job died or went
 * missing a new one (logged as a warning), so none is left without one. `stop()` waits for running work.
 *
 * @param options - Database, recovery service, clock, logger, polling.
 * @returns `stop()`.
 * @example
 * ```ts
 * import { startRecoveryWorker } from '@tollgate/core/gateway';
 * const worker = startRecoveryWorker({ sql, recovery: payments.recovery, clock: systemClock, logger });
 * await worker.stop();
 * ```
 */
export function startRecoveryWorker(options: RecoveryWorkerOptions): { stop(): Promise<void> } {
  const controller = new AbortController();
  const jobs = createSqlJobQueue(options.sql, { clock: options.clock, backoff: recoveryBackoff });
  const done = runWorker<SettlementRecoveryJob>({
    queue: settlementRecoveryQueue,
    jobs,
    signal: controller.signal,
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    concurrency: options.concurrency ?? 2,
    handler: async (job) => {
      try {
        await options.recovery.runJob(job);
      } catch (error) {
        const fields = { paymentId: job.payload.paymentId, attempt: job.attempts, maxAttempts: job.maxAttempts, reason: error instanceof Error ? error.message : String(error) };
        if (job.attempts >= job.maxAttempts) {
          options.logger.error(fields, 'settlement recovery gave up: the payment stays pending (the payer may have been charged); the recovery sweep enqueues a new job, check the RPC of its network');
        } else {
          options.logger.debug(fields, 'settlement recovery retry');
        }
        throw error;
      }
    },
    onError: (error) => options.logger.warn({ err: error }, 'settlement recovery queue failed'),
  });
  let sweeping: Promise<void> | undefined;
  const sweep = (): void => {
    sweeping ??= (async () => {
      try {
        const taken = await options.recovery.sweepAbandoned();
        if (taken > 0) options.logger.debug({ taken }, 'abandoned payment claims taken over');
      } catch (error) {
        options.logger.warn({ err: error }, 'sweeping abandoned payment claims failed');
      }
      try {
        const renewed = await options.recovery.sweepStranded();
        if (renewed > 0) options.logger.warn({ renewed }, 'pending payments whose recovery job had died got a new one');
      } catch (error) {
        options.logger.warn({ err: error }, 'sweeping pending payments without a recovery job failed');
      }
    })().finally(() => (sweeping = undefined));
  };
  const timer = setInterval(sweep, options.sweepIntervalMs ?? 30_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      controller.abort();
      await Promise.all([done, sweeping]);
    },
  };
}
