import type { BackoffOptions, Job } from '../../storage/jobs/job-queue';
import { createSqlJobQueue } from '../../storage/jobs/sql-job-queue';
import { runWorker } from '../../storage/jobs/run-worker';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { createNotificationDeliverer } from '../notifications/notification-deliverer';
import { notificationQueue, type NotificationJob } from '../notifications/notification-job';
import type { NotificationTransport } from '../../webhooks/notification-transport';
import type { NotificationDeliveryOutcome } from '../../webhooks/webhook-classification';
import type { GatewayKeys } from '../secrets';
import type { MerchantStore } from '../store/merchant-store';

/** Tuning of merchant notification delivery when an option is not given. */
export interface NotificationDeliverySettings {
  /** Deadline of one delivery attempt (DNS, connect, send, answer), in ms. */
  readonly timeoutMs: number;
  /** Deliveries in flight at once on this instance. */
  readonly concurrency: number;
  /** Pause after finding no due notification, in ms. */
  readonly pollIntervalMs: number;
  /** Retry delays: full jitter under `min(maxMs, baseMs × 2^(attempt − 1))`. */
  readonly backoff: { readonly baseMs: number; readonly maxMs: number };
}

/**
 * Defaults of notification delivery: 10 s per attempt, 4 in flight, a 1 s idle poll, retries under a
 * 30 s × 2^(n−1) ceiling capped at 6 h (full jitter; 12 attempts span up to about 14.5 h).
 *
 * @example
 * ```ts
 * import { defaultNotificationDeliverySettings } from '@tollgate/core/gateway';
 * const patient = { ...defaultNotificationDeliverySettings, timeoutMs: 20_000 };
 * ```
 */
export const defaultNotificationDeliverySettings: NotificationDeliverySettings = Object.freeze({
  timeoutMs: 10_000,
  concurrency: 4,
  pollIntervalMs: 1_000,
  backoff: Object.freeze({ baseMs: 30_000, maxMs: 6 * 3_600_000 }),
});

/** Where the worker reports outcomes (a pino logger fits). Never given keys, signatures or bodies. */
export interface NotificationLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Options of {@link startNotificationWorker}. */
export interface NotificationWorkerOptions {
  /** The gateway database (core migrations applied): the job queue lives there. */
  sql: SqlClient;
  /** `merchants` reads merchants (webhook URL, live notify keys) at delivery time. */
  stores: { readonly merchants: Pick<MerchantStore, 'getMerchant'> };
  /** The gateway's subkeys; notify keys are derived from `notifyRoot`. */
  keys: Pick<GatewayKeys, 'notifyRoot'>;
  /** Signature timestamps and the queue's schedule. */
  clock: Clock;
  logger: NotificationLogger;
  /**
   * How requests reach the merchant. On Node: `createNodeNotificationTransport()` from
   * `@tollgate/core/node`, which resolves the receiver once and connects to the checked address only.
   */
  transport: NotificationTransport;
  /** Idle poll interval in ms. Default 1 000. */
  pollIntervalMs?: number;
  /** Deliveries in flight at once. Default 4. */
  concurrency?: number;
  /** Deadline of one attempt in ms. Default 10 000. */
  timeoutMs?: number;
  /** Retry delays. Default 30 s base, 6 h cap (full jitter). */
  backoff?: BackoffOptions;
  /** Jitter source in `[0, 1)` (default `Math.random`); tests pin it. */
  random?: () => number;
  /**
   * **Tests only**: deliver to `http:` and loopback receivers (see `checkNotificationUrl`). The transport
   * needs the same option. Never set it from configuration.
   */
  insecureAllowLoopbackForTests?: boolean;
}

/** A running notification worker. */
export interface NotificationWorker {
  /** Stops claiming, aborts deliveries in flight (they are retried later) and waits for their outcome to be recorded. */
  stop(): Promise<void>;
}

/**
 * The failure recorded on the job (`lastError`, e.g. `NotificationDeliveryError: hooks.example.com
 * answered HTTP 503.`) when an attempt should be retried. Its message names the host, never the URL.
 *
 * @example
 * ```ts
 * import { NotificationDeliveryError } from '@tollgate/core/gateway';
 * const failure = new NotificationDeliveryError('hooks.example.com answered HTTP 503.');
 * ```
 */
export class NotificationDeliveryError extends Error {
  override readonly name = 'NotificationDeliveryError';
}

function jobContext(job: Job<NotificationJob>): Record<string, unknown> {
  const payload = job.payload as Partial<NotificationJob> | null;
  const notificationId = typeof payload?.notification?.id === 'string' ? payload.notification.id : undefined;
  return { jobId: job.id, notificationId, merchantId: payload?.merchantId, refId: payload?.refId, attempt: job.attempts, maxAttempts: job.maxAttempts };
}

function report(logger: NotificationLogger, job: Job<NotificationJob>, outcome: NotificationDeliveryOutcome): void {
  const context = jobContext(job);
  switch (outcome.kind) {
    case 'delivered':
      logger.info({ ...context, host: outcome.host, status: outcome.status, keyIds: outcome.keyIds }, 'notification delivered');
      return;
    case 'skipped':
      logger.info(context, 'notification skipped: neither the ref nor the merchant has a notify URL');
      return;
    case 'abandoned':
      logger.warn({ ...context, reason: outcome.reason, host: outcome.host, status: outcome.status, error: outcome.message }, 'notification abandoned: it will not be retried');
      return;
    case 'retry':
      reportRetry(logger, job, { reason: outcome.reason, host: outcome.host, status: outcome.status, error: outcome.message });
  }
}

function reportRetry(logger: NotificationLogger, job: Job<NotificationJob>, fields: Record<string, unknown>): void {
  if (job.attempts >= job.maxAttempts) logger.error({ ...jobContext(job), ...fields }, 'notification dead-lettered: the last attempt failed');
  else logger.warn({ ...jobContext(job), ...fields }, 'notification attempt failed; it will be retried');
}

/**
 * Runs the delivery of merchant notifications: claims `gateway.notifications` jobs (enqueued by the
 * settlement with `enqueuePaymentNotification`), makes one attempt per claim with
 * `createNotificationDeliverer`, and records the outcome in the queue:
 * - `delivered`, `skipped` and `abandoned` complete the job (abandoned ones are logged as warnings);
 * - `retry` fails the attempt: the queue reschedules it with full-jitter exponential backoff and
 *   dead-letters it after the job's `maxAttempts` (12), keeping the last error (host and reason only).
 *
 * Delivery never runs on the payer's request path: it only reads jobs committed with the settlement.
 * Every instance may run a worker (`FOR UPDATE SKIP LOCKED` hands each job to one of them); the lease
 * is longer than the attempt deadline, so a job runs twice only if an instance dies mid-attempt, and
 * the receiver deduplicates on the notification id anyway.
 *
 * @param options - Database, merchant store, keys, clock, logger, transport and tuning.
 * @returns The worker; `stop()` it on shutdown.
 * @example
 * ```ts
 * import { createSqlGatewayStores, systemClock } from '@tollgate/core';
 * import { startNotificationWorker } from '@tollgate/core/gateway';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const transport = createNodeNotificationTransport();
 * const worker = startNotificationWorker({ sql: database.sql, stores: createSqlGatewayStores(database.sql), keys, clock: systemClock, logger, transport });
 * await worker.stop();
 * ```
 */
export function startNotificationWorker(options: NotificationWorkerOptions): NotificationWorker {
  const defaults = defaultNotificationDeliverySettings;
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const deliverer = createNotificationDeliverer({ stores: options.stores, keys: options.keys, clock: options.clock, transport: options.transport, timeoutMs, ...loopback });
  const jobs = createSqlJobQueue(options.sql, {
    clock: options.clock,
    backoff: options.backoff ?? defaults.backoff,
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  const stopping = new AbortController();

  const done = runWorker<NotificationJob>({
    queue: notificationQueue,
    jobs,
    signal: stopping.signal,
    pollIntervalMs: options.pollIntervalMs ?? defaults.pollIntervalMs,
    concurrency: options.concurrency ?? defaults.concurrency,
    // Longer than any attempt, so a live attempt never loses its claim to another instance.
    leaseMs: Math.max(60_000, timeoutMs + 30_000),
    onError: (error) => options.logger.error({ err: error }, 'notification queue error'),
    handler: async (job, { signal }) => {
      let outcome: NotificationDeliveryOutcome;
      try {
        outcome = await deliverer.deliver(job.payload, { signal });
      } catch (error) {
        // The store could not be read: nothing was sent, so the attempt is simply retried.
        const message = `Reading the merchant failed (${error instanceof Error ? error.name : typeof error}).`;
        reportRetry(options.logger, job, { reason: 'store_unavailable', error: message });
        throw new NotificationDeliveryError(message, { cause: error });
      }
      report(options.logger, job, outcome);
      if (outcome.kind === 'retry') throw new NotificationDeliveryError(outcome.message);
    },
  });

  return {
    async stop() {
      stopping.abort();
      await done;
    },
  };
}
