import { createSqlJobQueue } from '../../../storage/jobs/sql-job-queue';
import { createSuspicionAlertDeliverer } from '../../suspicion/suspicion-alert-delivery';
import { runWorker } from '../../../storage/jobs/run-worker';
import { suspicionAlertQueue } from '../../suspicion/sql-suspicion-ledger';
import type { BackoffOptions, Job } from '../../../storage/jobs/job-queue';
import type { Clock } from '../../../time/clock';
import type { NotificationDeliveryOutcome } from '../../../webhooks/webhook-classification';
import type { NotificationTransport } from '../../../webhooks/notification-transport';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';

/** Retry delays of alert deliveries: 30 s base, 6 h cap, full jitter (12 attempts span about a day). */
export const suspicionAlertBackoff: BackoffOptions = { baseMs: 30_000, maxMs: 6 * 3_600_000 };

/** Options of {@link startSuspicionAlertJob}. */
export interface SuspicionAlertJobOptions {
  /** The license database: the job queue and the products' webhook URLs live there. */
  sql: SqlClient;
  /** The `alertSigning` subkey of `LICENSE_MASTER_KEY` (`deriveLicenseSubkey(masterKey, licenseSubkeyLabels.alertSigning)`). */
  signingRoot: Uint8Array;
  clock: Clock;
  logger: LicenseLogSink;
  /** The SSRF-safe transport (public addresses only): `nodeLicenseNetwork.createTransport({})` on Node. */
  transport: NotificationTransport;
  /** Idle poll interval in ms. Default 2 000. */
  pollIntervalMs?: number;
  /** Deadline of one attempt in ms. Default 10 000. */
  timeoutMs?: number;
  backoff?: BackoffOptions;
  /** Jitter source in `[0, 1)` (tests pin it). */
  random?: () => number;
  /** **Tests only**: deliver to `http:` loopback receivers. Never set it from configuration. */
  insecureAllowLoopbackForTests?: boolean;
}

/** Thrown by the worker's handler so the queue records the failed attempt and backs off. */
class AlertDeliveryRetry extends Error {
  override readonly name = 'AlertDeliveryRetry';
}

function report(logger: LicenseLogSink, job: Job, outcome: NotificationDeliveryOutcome): void {
  const context = { jobId: job.id, alertId: (job.payload as { alertId?: unknown } | null)?.alertId, attempt: job.attempts, maxAttempts: job.maxAttempts };
  switch (outcome.kind) {
    case 'delivered':
      logger.info({ ...context, host: outcome.host, status: outcome.status }, 'suspicion alert delivered');
      return;
    case 'skipped':
      logger.info(context, 'suspicion alert skipped: the product has no alert webhook any more');
      return;
    case 'abandoned':
      logger.warn({ ...context, reason: outcome.reason, host: outcome.host, status: outcome.status, error: outcome.message }, 'suspicion alert abandoned: it will not be retried');
      return;
    case 'retry': {
      const fields = { ...context, reason: outcome.reason, host: outcome.host, status: outcome.status, error: outcome.message };
      if (job.attempts >= job.maxAttempts) logger.error(fields, 'suspicion alert dead-lettered: the last attempt failed');
      else logger.warn(fields, 'suspicion alert attempt failed; it will be retried');
    }
  }
}

/**
 * Delivers the suspicion alerts the client protocol raises (queue `license.suspicion-alerts`, enqueued in
 * the same transaction as the signal that crossed the threshold): one signed attempt per claim with
 * `createSuspicionAlertDeliverer`; `retry` outcomes fail the attempt so the queue backs off (full jitter,
 * {@link suspicionAlertBackoff}) and dead-letters after 12 attempts. Every instance may run it: jobs are
 * claimed with `SKIP LOCKED`, and receivers deduplicate on the `Idempotency-Key` (the alert id).
 *
 * @param options - Database, signing root, clock, logger, transport and tuning.
 * @returns `close()`: stops claiming, aborts attempts in flight (retried later) and waits for them.
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { deriveLicenseSubkey, licenseSubkeyLabels, startSuspicionAlertJob } from '@tollgate/core/license';
 * const alerts = startSuspicionAlertJob({ sql, signingRoot: deriveLicenseSubkey(masterKey, licenseSubkeyLabels.alertSigning), clock: systemClock, logger, transport });
 * await alerts.close();
 * ```
 */
export function startSuspicionAlertJob(options: SuspicionAlertJobOptions): { close(): Promise<void> } {
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const transport = options.transport;
  const deliverer = createSuspicionAlertDeliverer({
    sql: options.sql,
    signingRoot: options.signingRoot,
    clock: options.clock,
    transport,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...loopback,
  });
  const jobs = createSqlJobQueue(options.sql, {
    clock: options.clock,
    backoff: options.backoff ?? suspicionAlertBackoff,
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  const stopping = new AbortController();
  const done = runWorker({
    queue: suspicionAlertQueue,
    jobs,
    signal: stopping.signal,
    pollIntervalMs: options.pollIntervalMs ?? 2_000,
    concurrency: 2,
    handler: async (job) => {
      const outcome = await deliverer.deliver(job.payload, { signal: stopping.signal });
      report(options.logger, job, outcome);
      if (outcome.kind === 'retry') throw new AlertDeliveryRetry(`${outcome.host ?? 'the receiver'}: ${outcome.reason}`);
    },
    onError: (error) => options.logger.warn({ err: error }, 'suspicion alert queue failed'),
  });
  return {
    async close() {
      stopping.abort();
      await done;
    },
  };
}
