import type { BackoffOptions } from '../../storage/jobs/job-queue';
import { retryDelayMs } from '../../storage/jobs/backoff';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { applyBillingEvent, type BillingApplyDeps } from './apply-billing-event';
import { createSqlBillingEventStore } from './billing-event-store';
import type { WebhookProvider } from './webhook-signature';

/** Retry delays of a failing event: 5 s base, one hour cap, full jitter. */
export const billingEventBackoff: Required<BackoffOptions> = { baseMs: 5_000, maxMs: 3_600_000 };

/** Attempts before an event is marked `dead` (about a day with {@link billingEventBackoff}). */
export const billingEventMaxAttempts = 30;

/** What {@link processDueBillingEvents} needs. */
export interface BillingProcessingDeps extends BillingApplyDeps {
  /** The database itself: each event is claimed and applied in a transaction of its own. */
  readonly sql: SqlClient;
  readonly clock: Clock;
  readonly backoff?: BackoffOptions;
  readonly maxAttempts?: number;
  /** Jitter in `[0, 1)` (tests pin it). */
  readonly jitter?: () => number;
  /**
   * Applies one event (default {@link applyBillingEvent}); tests inject failures through it.
   *
   * @internal
   */
  readonly apply?: typeof applyBillingEvent;
}

/** One event the round handled. */
export type ProcessedBillingEvent =
  | { readonly kind: 'processed'; readonly provider: WebhookProvider; readonly eventId: string; readonly outcome: string; readonly licenseId: string | null }
  | { readonly kind: 'failed'; readonly provider: WebhookProvider; readonly eventId: string; readonly error: string; readonly retryAt: Date | null };

/**
 * Applies due queued billing events, one transaction each, until none is due, `limit` were handled or
 * `isClosed()` says stop. In each transaction: the oldest due pending row is claimed (`FOR UPDATE SKIP
 * LOCKED`, so instances share the queue and never apply one event twice), the event is applied in a
 * savepoint, and the row is marked `processed` with the outcome, all committed together. If the process
 * dies anywhere in between, the transaction rolls back and the row is pending again, untouched. If the
 * event throws, its savepoint rolls back and the row records the failed attempt: pending again after a
 * backoff (full jitter), or `dead` after `maxAttempts` (an operator can set it back to pending).
 *
 * @param deps - Database, clock, what applying needs, retry tuning.
 * @param options - `limit` (default 100) and `isClosed`.
 * @returns What each handled event came to.
 * @example
 * ```ts
 * import { processDueBillingEvents } from '@tollgate/core/license';
 * const handled = await processDueBillingEvents({ sql, clock, audit, revocation, licenseKeyHashKey, dunningGraceSeconds: 7 * 86_400 });
 * ```
 */
export async function processDueBillingEvents(deps: BillingProcessingDeps, options: { limit?: number; isClosed?: () => boolean } = {}): Promise<ProcessedBillingEvent[]> {
  const limit = options.limit ?? 100;
  const apply = deps.apply ?? applyBillingEvent;
  const handled: ProcessedBillingEvent[] = [];
  while (handled.length < limit && options.isClosed?.() !== true) {
    const result = await deps.sql.transaction(async (tx): Promise<ProcessedBillingEvent | undefined> => {
      const now = new Date(deps.clock.now());
      const events = createSqlBillingEventStore(tx);
      const claimed = await events.claimDue(now);
      if (claimed === undefined) return undefined;
      try {
        const applied = await tx.transaction((savepoint) => apply(savepoint, deps, claimed.event, now));
        await events.markProcessed(claimed, applied, now);
        return { kind: 'processed', provider: claimed.provider, eventId: claimed.eventId, ...applied };
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        const attempts = claimed.attempts + 1;
        const retryAt = attempts >= (deps.maxAttempts ?? billingEventMaxAttempts) ? null : new Date(now.getTime() + retryDelayMs(attempts, deps.backoff ?? billingEventBackoff, deps.jitter));
        await events.markFailed(claimed, message, retryAt);
        return { kind: 'failed', provider: claimed.provider, eventId: claimed.eventId, error: message, retryAt };
      }
    });
    if (result === undefined) break;
    handled.push(result);
  }
  return handled;
}
