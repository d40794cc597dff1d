import { processDueBillingEvents, type BillingProcessingDeps, type ProcessedBillingEvent } from '../../billing/process-billing-events';
import { purgeProcessedBillingEvents } from '../../billing/billing-event-retention';
import type { LicenseLogSink } from '../logger';
import { startPeriodicJob } from './periodic-job';

/** Options of {@link startBillingEventJob}. */
export interface BillingEventJobOptions extends BillingProcessingDeps {
  readonly logger: LicenseLogSink;
  /** How often to look for due events (retries come due this way) when nothing woke the job. */
  readonly intervalMs: number;
  /** Processed events older than this are deleted (checked at most hourly). */
  readonly retentionMs: number;
}

/** How often the job deletes expired processed events. */
const purgeIntervalMs = 3_600_000;

/** The running job. */
export interface BillingEventJob {
  /** Processes due events now (after a round in flight); resolves to what the round handled. */
  runOnce(): Promise<ProcessedBillingEvent[]>;
  /** Asks for a round soon without waiting for it (the webhook route calls it after queueing). */
  wake(): void;
  /** Stops the timer and waits for the round in flight. */
  close(): Promise<void>;
}

function report(logger: LicenseLogSink, handled: readonly ProcessedBillingEvent[]): void {
  for (const item of handled) {
    const context = { provider: item.provider, eventId: item.eventId };
    if (item.kind === 'processed') {
      if (item.outcome.startsWith('unmapped')) logger.warn({ ...context, outcome: item.outcome }, 'billing event matched no license');
      else logger.info({ ...context, outcome: item.outcome, licenseId: item.licenseId }, 'billing event applied');
    } else if (item.retryAt === null) {
      logger.error({ ...context, error: item.error }, 'billing event dead-lettered: the last attempt failed');
    } else {
      logger.warn({ ...context, error: item.error, retryAt: item.retryAt.toISOString() }, 'billing event failed; it will be retried');
    }
  }
}

/**
 * Applies the queued billing events (`license_billing_events`) to license state: one round at start
 * (events a stopped or crashed instance accepted but never applied), one whenever the webhook route
 * queues an event, and one every `intervalMs` (retries whose backoff has passed). Every instance may
 * run it: rows are claimed with `SKIP LOCKED`, each in its own transaction, so an event is applied
 * once and a crash mid-way leaves it pending. A round that fails (the database is down) is logged and
 * the next one tries again.
 *
 * @param options - What processing needs, the logger and the poll interval.
 * @returns The job.
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { deriveLicenseAdminKeys } from '@tollgate/core/license';
 * const job = startBillingEventJob({ sql, clock: systemClock, audit, revocation, licenseKeyHashKey: deriveLicenseAdminKeys(masterKey).licenseKeyHash,
 *   dunningGraceSeconds: 7 * 86_400, checkoutTokenKey, logger, intervalMs: 5_000, retentionMs: 30 * 86_400_000 });
 * await job.close();
 * ```
 */
export function startBillingEventJob(options: BillingEventJobOptions): BillingEventJob {
  const { logger, intervalMs, retentionMs, ...deps } = options;
  let lastPurgeAt = Number.NEGATIVE_INFINITY;
  const purgeExpired = async () => {
    const now = deps.clock.now();
    if (now - lastPurgeAt < purgeIntervalMs) return;
    lastPurgeAt = now;
    let deleted = 0;
    for (let batch = 1000; batch === 1000; deleted += batch) batch = await purgeProcessedBillingEvents(deps.sql, new Date(now - retentionMs), 1000);
    if (deleted > 0) logger.info({ deleted }, 'billing events past retention deleted');
  };
  // A wake asks for one round that has not started yet: a burst of webhooks queues one round, not one each.
  let wakeQueued = false;
  const job = startPeriodicJob<ProcessedBillingEvent[]>(intervalMs, [], async (isClosed) => {
    wakeQueued = false;
    try {
      const handled = await processDueBillingEvents(deps, { isClosed });
      report(logger, handled);
      await purgeExpired();
      return handled;
    } catch (error) {
      logger.error({ err: error }, 'billing event round failed; the next round retries');
      return [];
    }
  });
  void job.runOnce();
  return {
    runOnce: () => job.runOnce(),
    wake: () => {
      if (wakeQueued) return;
      wakeQueued = true;
      void job.runOnce();
    },
    close: () => job.close(),
  };
}
