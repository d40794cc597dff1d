import {
  createNotificationDeliverer,
  createSqlJobQueue,
  notificationQueue,
  runWorker,
  type BackoffOptions,
  type Clock,
  type GatewayKeys,
  type MerchantStore,
  type Job,
  type NotificationDeliveryOutcome,
  type NotificationJob,
  type NotificationTransport,
  type SqlClient,
} from '@tollgate/core';
import { createNodeNotificationTransport } from '@tollgate/core/node';
import { defaultNotificationConfig } from './notification-config';

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
  /** Default: the Node transport (`createNodeNotificationTransport`) with `connectTimeoutMs`. */
  transport?: NotificationTransport;
  /** Idle poll interval in ms. Default 1 000. */
  pollIntervalMs?: number;
  /** Deliveries in flight at once. Default 4. */
  concurrency?: number;
  /** Deadline of one attempt in ms. Default 10 000. */
  timeoutMs?: number;
  /** DNS + connect deadline of the default transport in ms. Default 5 000. */
  connectTimeoutMs?: number;
  /** Retry delays. Default 30 s base, 6 h cap (full jitter). */
  backoff?: BackoffOptions;
  /** Jitter source in `[0, 1)` (default `Math.random`); tests pin it. */
  random?: () => number;
  /**
   * **Tests only**: deliver to `http:` and loopback receivers (see `checkNotificationUrl`). Applies to
   * the deliverer and the default transport. Never set it from configuration.
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
 * import { NotificationDeliveryError } from '@tollgate/gateway-server';
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
 * import { notificationConfigFromEnv, startNotificationWorker } from '@tollgate/gateway-server';
 * const worker = startNotificationWorker({ sql: database.sql, stores: createSqlGatewayStores(database.sql), keys, clock: systemClock, logger, ...notificationConfigFromEnv(process.env) });
 * await worker.stop();
 * ```
 */
export function startNotificationWorker(options: NotificationWorkerOptions): NotificationWorker {
  const timeoutMs = options.timeoutMs ?? defaultNotificationConfig.timeoutMs;
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const transport =
    options.transport ?? createNodeNotificationTransport({ connectTimeoutMs: options.connectTimeoutMs ?? defaultNotificationConfig.connectTimeoutMs, ...loopback });
  const deliverer = createNotificationDeliverer({ stores: options.stores, keys: options.keys, clock: options.clock, transport, timeoutMs, ...loopback });
  const jobs = createSqlJobQueue(options.sql, {
    clock: options.clock,
    backoff: options.backoff ?? defaultNotificationConfig.backoff,
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  const stopping = new AbortController();

  const done = runWorker<NotificationJob>({
    queue: notificationQueue,
    jobs,
    signal: stopping.signal,
    pollIntervalMs: options.pollIntervalMs ?? defaultNotificationConfig.pollIntervalMs,
    concurrency: options.concurrency ?? defaultNotificationConfig.concurrency,
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
