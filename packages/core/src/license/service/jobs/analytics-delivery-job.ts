import { createSqlDeliveryStore, type ClaimedDelivery, type DeliveryAttemptRecord } from '../../analytics/subscriptions/delivery-store';
import { createSubscriptionDeliverer, type SubscriptionAttemptOutcome, type SubscriptionMetrics } from '../../analytics/subscriptions/subscription-delivery';
import { retryDelayMs } from '../../../storage/jobs/backoff';
import type { BackoffOptions } from '../../../storage/jobs/job-queue';
import type { Clock } from '../../../time/clock';
import type { NotificationTransport } from '../../../webhooks/notification-transport';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';
import { startPeriodicJob } from './periodic-job';

/** Retry delays of subscription deliveries: 60 s base, 6 h cap, full jitter. */
export const analyticsDeliveryBackoff: BackoffOptions = { baseMs: 60_000, maxMs: 6 * 3_600_000 };

/** Attempts of one period before it is marked `failed` (about a day and a half of retries with the backoff above). */
export const analyticsDeliveryMaxAttempts = 20;

/** How long a claimed delivery is held: far beyond the attempt deadline, so a live worker never loses its claim. */
const leaseMs = 120_000;
/** How long a period whose metrics are not final yet waits before the next look. */
const notReadyWaitMs = 15 * 60_000;
/** Deliveries one instance attempts per round (the rest wait for the next round, a poll interval later). */
const deliveriesPerRound = 50;
const purgeEveryMs = 3_600_000;

/** Options of {@link startAnalyticsDeliveryJob}. */
export interface AnalyticsDeliveryJobOptions {
  sql: SqlClient;
  /** `LICENSE_MASTER_KEY`: opens the sealed signing secrets. */
  masterKey: Uint8Array;
  /** The analytics metric API (the same query code as `GET /analytics/metrics`). */
  metrics: SubscriptionMetrics;
  clock: Clock;
  logger: LicenseLogSink;
  /** The SSRF-safe transport (public addresses only): `nodeLicenseNetwork.createTransport({})` on Node. */
  transport: NotificationTransport;
  /** Poll interval in ms. Default 30 000. */
  pollIntervalMs?: number;
  /** Deadline of one attempt in ms. Default 10 000. */
  timeoutMs?: number;
  backoff?: BackoffOptions;
  /** Jitter source in `[0, 1)` (tests pin it). */
  random?: () => number;
  maxAttempts?: number;
  /** **Tests only**: deliver to `http:` loopback receivers. Never set it from configuration. */
  insecureAllowLoopbackForTests?: boolean;
}

/** What one round did. */
export interface AnalyticsDeliveryRound {
  readonly scheduled: number;
  readonly delivered: number;
  readonly failed: number;
}

/** A running delivery job. */
export interface AnalyticsDeliveryJob {
  /** Runs one round now (after a round in flight). */
  runOnce(): Promise<AnalyticsDeliveryRound>;
  /** Stops polling, aborts attempts in flight (their periods stay pending and are retried) and waits. */
  close(): Promise<void>;
}

/**
 * Delivers metric subscriptions. Each round, on every instance:
 * 1. materialises the due periods of active subscriptions as pending deliveries (the cursor advances in
 *    the same transaction, rows claimed `FOR UPDATE SKIP LOCKED`: a period is scheduled once, never skipped);
 * 2. claims due deliveries one at a time (`SKIP LOCKED`, a lease of two minutes): a crash mid-attempt
 *    leaves the period pending, and it is attempted again when the lease ends (at least once: receivers
 *    deduplicate on `Idempotency-Key`, the delivery id);
 * 3. records the outcome: delivered, or retried at `now + retryDelayMs(attempt)` (exponential, full
 *    jitter), or `failed` after {@link analyticsDeliveryMaxAttempts} attempts; the subscription's status
 *    (last attempt, last success, consecutive failures, last error class) moves in the same transaction.
 *
 * @param options - Database, master key, metrics, clock, logger, transport and tuning.
 * @returns The job.
 * @example
 * ```ts
 * import { startAnalyticsDeliveryJob } from '@tollgate/core/license';
 * const job = startAnalyticsDeliveryJob({ sql, masterKey, metrics, clock: systemClock, logger, transport });
 * await job.close();
 * ```
 */
export function startAnalyticsDeliveryJob(options: AnalyticsDeliveryJobOptions): AnalyticsDeliveryJob {
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const transport = options.transport;
  const store = createSqlDeliveryStore(options.sql);
  const deliverer = createSubscriptionDeliverer({
    masterKey: options.masterKey,
    metrics: options.metrics,
    transport,
    clock: options.clock,
    freezeBody: (delivery, body) => store.freezeBody(delivery, body),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...loopback,
  });
  const maxAttempts = options.maxAttempts ?? analyticsDeliveryMaxAttempts;
  const stopping = new AbortController();
  const now = () => new Date(options.clock.now());
  let lastPurge = Number.NEGATIVE_INFINITY;

  const recordOf = (delivery: ClaimedDelivery, outcome: SubscriptionAttemptOutcome): DeliveryAttemptRecord => {
    if (outcome.kind === 'delivered') return { kind: 'delivered', httpStatus: outcome.httpStatus };
    if (outcome.kind === 'not_ready') return { kind: 'deferred', retryAt: new Date(options.clock.now() + notReadyWaitMs) };
    const giveUp = outcome.final || delivery.attempts >= maxAttempts;
    const retryAt = giveUp ? null : new Date(options.clock.now() + retryDelayMs(delivery.attempts, options.backoff ?? analyticsDeliveryBackoff, options.random));
    return { kind: 'failed', errorClass: outcome.errorClass, httpStatus: outcome.httpStatus, retryAt };
  };

  const attemptOne = async (delivery: ClaimedDelivery): Promise<SubscriptionAttemptOutcome> => {
    const outcome = await deliverer.attempt(delivery, { signal: stopping.signal });
    // A shutdown abort is no verdict on the receiver: leave the claim to lapse and the period to be retried.
    if (outcome.kind === 'failed' && outcome.errorClass === 'aborted' && stopping.signal.aborted) return outcome;
    const recorded = await store.record(delivery, recordOf(delivery, outcome), now());
    const context = { deliveryId: delivery.deliveryId, subscriptionId: delivery.subscriptionId, attempt: delivery.attempts, recorded };
    if (outcome.kind === 'delivered') options.logger.info({ ...context, status: outcome.httpStatus }, 'analytics subscription delivered');
    else if (outcome.kind === 'failed') {
      const fields = { ...context, errorClass: outcome.errorClass, status: outcome.httpStatus, error: outcome.message };
      if (outcome.final || delivery.attempts >= maxAttempts) options.logger.error(fields, 'analytics subscription period failed: it will not be retried');
      else options.logger.warn(fields, 'analytics subscription attempt failed; it will be retried');
    }
    return outcome;
  };

  const worker = async (isClosed: () => boolean, tally: { delivered: number; failed: number; budget: number }): Promise<void> => {
    while (!isClosed() && tally.budget > 0) {
      tally.budget -= 1;
      const delivery = await store.claim(now(), leaseMs);
      if (delivery === null) return;
      const outcome = await attemptOne(delivery);
      if (outcome.kind === 'delivered') tally.delivered += 1;
      else if (outcome.kind === 'failed') tally.failed += 1;
    }
  };

  const job = startPeriodicJob<AnalyticsDeliveryRound>(options.pollIntervalMs ?? 30_000, { scheduled: 0, delivered: 0, failed: 0 }, async (isClosed) => {
    try {
      const scheduled = await store.scheduleDue(now());
      if (options.clock.now() - lastPurge >= purgeEveryMs) {
        lastPurge = options.clock.now();
        const purged = await store.purge(now());
        if (purged.deliveries + purged.subscriptions > 0) options.logger.info(purged, 'analytics subscription history purged');
      }
      const tally = { delivered: 0, failed: 0, budget: deliveriesPerRound };
      await Promise.all([worker(isClosed, tally), worker(isClosed, tally)]);
      return { scheduled, delivered: tally.delivered, failed: tally.failed };
    } catch (error) {
      options.logger.warn({ err: error }, 'analytics subscription round failed; the next round retries');
      throw error;
    }
  });
  return {
    runOnce: () => job.runOnce(),
    async close() {
      stopping.abort();
      await job.close();
    },
  };
}
