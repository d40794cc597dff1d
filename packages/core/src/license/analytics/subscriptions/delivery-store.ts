import type { SqlClient } from '../../../storage/sql-client';
import { dueSubscriptionPeriods, subscriptionDueAt, subscriptionPeriodAt, type SubscriptionSchedule } from './subscription-schedule';
import { subscriptionLimits, type NewMetricSubscription } from './subscription-store';

/** Periods materialised per subscription per round (a long outage is caught up over several rounds). */
const periodsPerRound = 31;
/** Subscriptions scheduled per round. */
const subscriptionsPerRound = 100;
const dayMs = 86_400_000;

/**
 * A delivery claimed by one worker: the claim holds while `attempts` is unchanged and the lease runs. It
 * carries what it needs of its subscription (as stored, with the sealed secret that signs the body).
 */
export interface ClaimedDelivery
  extends Pick<NewMetricSubscription, 'subscriptionId' | 'vendorId' | 'schedule' | 'metricIds' | 'granularity' | 'groupBy' | 'url' | 'signingKeyId' | 'sealedSecret'> {
  readonly deliveryId: string;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  /** Attempts including this one: the claim token (an outcome recorded under another value is ignored). */
  readonly attempts: number;
  /** The frozen body, or `null` when no attempt computed it yet. */
  readonly body: string | null;
}

/** How one attempt ended, as recorded. */
export type DeliveryAttemptRecord =
  | { readonly kind: 'delivered'; readonly httpStatus: number }
  /** Failed: retried at `retryAt`, or given up (`failed`) when `retryAt` is `null`. */
  | { readonly kind: 'failed'; readonly errorClass: string; readonly httpStatus: number | null; readonly retryAt: Date | null }
  /** Not attempted (the period's metrics are not final yet): claimable again at `retryAt`, no failure counted. */
  | { readonly kind: 'deferred'; readonly retryAt: Date };

/** The deterministic delivery id of a period: the receivers' deduplication key (`Idempotency-Key`). */
export function deliveryIdOf(subscriptionId: string, periodStart: number): string {
  return `adl_${subscriptionId}_${new Date(periodStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * The job side of subscriptions over license migration 020. Every method is safe to run from any
 * number of instances at once.
 */
export interface DeliveryStore {
  /**
   * Materialises every due period of every active subscription as a pending delivery, advancing the
   * subscription's cursor in the same transaction (rows locked `FOR UPDATE SKIP LOCKED`; the insert is
   * `ON CONFLICT DO NOTHING` on (subscription, period)), so a period is scheduled exactly once.
   * @returns How many deliveries were created.
   */
  scheduleDue(now: Date): Promise<number>;
  /** Claims the next due pending delivery for `leaseMs` (`SKIP LOCKED`), counting an attempt; `null` when none is due. */
  claim(now: Date, leaseMs: number): Promise<ClaimedDelivery | null>;
  /** Stores the body the first attempt computed; answers the frozen body (an earlier attempt's, if it raced). */
  freezeBody(delivery: ClaimedDelivery, body: string): Promise<string>;
  /** Records the attempt on the delivery and the subscription's status; `false` when the claim was lost. */
  record(delivery: ClaimedDelivery, outcome: DeliveryAttemptRecord, now: Date): Promise<boolean>;
  /** Deletes finished deliveries past their retention and subscriptions disabled past theirs. */
  purge(now: Date): Promise<{ deliveries: number; subscriptions: number }>;
}

/**
 * The SQL {@link DeliveryStore}.
 *
 * @param sql - The license database.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlDeliveryStore } from '@tollgate/core/license';
 * const deliveries = createSqlDeliveryStore(sql);
 * await deliveries.scheduleDue(new Date());
 * ```
 */
export function createSqlDeliveryStore(sql: SqlClient): DeliveryStore {
  return {
    scheduleDue: (now) =>
      sql.transaction(async (tx) => {
        const due = await tx.query<{ subscription_id: string; schedule: SubscriptionSchedule; next_period_start: Date }>(
          `SELECT subscription_id, schedule, next_period_start FROM license_analytics_subscriptions
            WHERE active AND next_due_at <= $1 ORDER BY next_due_at LIMIT ${subscriptionsPerRound} FOR UPDATE SKIP LOCKED`,
          [now],
        );
        let created = 0;
        for (const row of due.rows) {
          const { periods, nextStart } = dueSubscriptionPeriods(row.schedule, row.next_period_start.getTime(), now.getTime(), periodsPerRound);
          for (const period of periods) {
            const inserted = await tx.query(
              `INSERT INTO license_analytics_deliveries (delivery_id, subscription_id, period_start, period_end, status, next_attempt_at, created_at, updated_at)
               VALUES ($1, $2, $3, $4, 'pending', $5, $5, $5) ON CONFLICT (subscription_id, period_start) DO NOTHING`,
              [deliveryIdOf(row.subscription_id, period.start), row.subscription_id, new Date(period.start), new Date(period.end), now],
            );
            created += inserted.rowCount ?? 0;
          }
          const next = subscriptionPeriodAt(row.schedule, nextStart);
          await tx.query('UPDATE license_analytics_subscriptions SET next_period_start = $2, next_due_at = $3 WHERE subscription_id = $1', [
            row.subscription_id,
            new Date(nextStart),
            new Date(subscriptionDueAt(next)),
          ]);
        }
        return created;
      }),
    async claim(now, leaseMs) {
      const { rows } = await sql.query<{
        delivery_id: string; subscription_id: string; vendor_id: string; period_start: Date; period_end: Date; attempts: number; body: string | null;
        schedule: SubscriptionSchedule; metric_ids: string[]; granularity: string; group_by: string[]; url: string; signing_key_id: string; sealed_secret: Uint8Array;
      }>(
        `WITH claimed AS (
           UPDATE license_analytics_deliveries SET attempts = attempts + 1, next_attempt_at = $2, updated_at = $1
            WHERE delivery_id = (
              SELECT delivery_id FROM license_analytics_deliveries
               WHERE status = 'pending' AND next_attempt_at <= $1
               ORDER BY next_attempt_at, delivery_id LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING delivery_id, subscription_id, period_start, period_end, attempts, body)
         SELECT c.*, s.vendor_id, s.schedule, s.metric_ids, s.granularity, s.group_by, s.url, s.signing_key_id, s.sealed_secret
           FROM claimed c JOIN license_analytics_subscriptions s USING (subscription_id)`,
        [now, new Date(now.getTime() + leaseMs)],
      );
      const row = rows[0];
      if (row === undefined) return null;
      return {
        deliveryId: row.delivery_id,
        subscriptionId: row.subscription_id,
        vendorId: row.vendor_id,
        periodStart: row.period_start,
        periodEnd: row.period_end,
        attempts: row.attempts,
        body: row.body,
        schedule: row.schedule,
        metricIds: row.metric_ids,
        granularity: row.granularity,
        groupBy: row.group_by,
        url: row.url,
        signingKeyId: row.signing_key_id,
        sealedSecret: new Uint8Array(row.sealed_secret),
      };
    },
    async freezeBody(delivery, body) {
      const { rows } = await sql.query<{ body: string }>('UPDATE license_analytics_deliveries SET body = COALESCE(body, $2) WHERE delivery_id = $1 RETURNING body', [delivery.deliveryId, body]);
      return rows[0]?.body ?? body;
    },
    record: (delivery, outcome, now) =>
      sql.transaction(async (tx) => {
        const claim = [delivery.deliveryId, delivery.attempts, now];
        // Locks in the order every writer takes them, subscription before delivery (scheduling and
        // disabling do too), so an outcome recorded while the subscription is disabled cannot deadlock.
        await tx.query('SELECT 1 FROM license_analytics_subscriptions WHERE subscription_id = $1 FOR UPDATE', [delivery.subscriptionId]);
        let updated;
        if (outcome.kind === 'delivered') {
          updated = await tx.query(
            `UPDATE license_analytics_deliveries SET status = 'delivered', delivered_at = $3, updated_at = $3, last_http_status = $4
              WHERE delivery_id = $1 AND attempts = $2 AND status = 'pending'`,
            [...claim, outcome.httpStatus],
          );
        } else if (outcome.kind === 'failed') {
          updated = await tx.query(
            `UPDATE license_analytics_deliveries SET status = $4, next_attempt_at = COALESCE($5, next_attempt_at), updated_at = $3, last_error_class = $6, last_http_status = $7
              WHERE delivery_id = $1 AND attempts = $2 AND status = 'pending'`,
            [...claim, outcome.retryAt === null ? 'failed' : 'pending', outcome.retryAt, outcome.errorClass, outcome.httpStatus],
          );
        } else {
          // Not an attempt: give the attempt back so the retry budget counts only real sends.
          updated = await tx.query(
            `UPDATE license_analytics_deliveries SET attempts = attempts - 1, next_attempt_at = $4, updated_at = $3
              WHERE delivery_id = $1 AND attempts = $2 AND status = 'pending'`,
            [...claim, outcome.retryAt],
          );
          return (updated.rowCount ?? 0) === 1;
        }
        if ((updated.rowCount ?? 0) !== 1) return false;
        if (outcome.kind === 'delivered') {
          await tx.query(
            `UPDATE license_analytics_subscriptions SET last_attempt_at = $2, last_success_at = $2, consecutive_failures = 0, last_error_class = NULL, last_http_status = $3
              WHERE subscription_id = $1`,
            [delivery.subscriptionId, now, outcome.httpStatus],
          );
        } else {
          await tx.query(
            `UPDATE license_analytics_subscriptions SET last_attempt_at = $2, consecutive_failures = consecutive_failures + 1, last_error_class = $3, last_http_status = $4
              WHERE subscription_id = $1`,
            [delivery.subscriptionId, now, outcome.errorClass, outcome.httpStatus],
          );
        }
        return true;
      }),
    async purge(now) {
      const deliveries = await sql.query(
        "DELETE FROM license_analytics_deliveries WHERE status <> 'pending' AND updated_at < $1",
        [new Date(now.getTime() - subscriptionLimits.deliveryRetentionDays * dayMs)],
      );
      const subscriptions = await sql.query('DELETE FROM license_analytics_subscriptions WHERE NOT active AND disabled_at < $1', [
        new Date(now.getTime() - subscriptionLimits.disabledRetentionDays * dayMs),
      ]);
      return { deliveries: deliveries.rowCount ?? 0, subscriptions: subscriptions.rowCount ?? 0 };
    },
  };
}
