/**
 * When metric subscriptions deliver: every period is a UTC calendar span (a day, an ISO week starting
 * Monday, a month), and its delivery is due a fixed delay after the period ends, so the daily rollup
 * (cron `15 0 * * *`) has aggregated the period's last day first.
 */

/** How often a subscription delivers: one delivery per UTC day, ISO week or calendar month. */
export type SubscriptionSchedule = 'daily' | 'weekly' | 'monthly';

/** Every schedule, in the order the API documents them. */
export const subscriptionSchedules: readonly SubscriptionSchedule[] = ['daily', 'weekly', 'monthly'];

/**
 * How long after a period ends its delivery is due: one hour, well after the 00:15 UTC rollup of the
 * period's last day (a rollup that runs late waits on the metrics' `ready` check, not on this delay).
 */
export const subscriptionDeliveryDelayMs = 3_600_000;

/** A delivery period `[start, end)` in milliseconds since the epoch (UTC). */
export interface SubscriptionPeriod {
  readonly start: number;
  readonly end: number;
}

const dayMs = 86_400_000;

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / dayMs) * dayMs;
}

/**
 * The period of `schedule` that contains the instant `ms`.
 *
 * @param schedule - Daily, weekly (Monday 00:00 UTC to Monday) or monthly (the 1st to the 1st).
 * @param ms - Any instant.
 * @returns The period.
 * @example
 * ```ts
 * import { subscriptionPeriodAt } from '@tollgate/core/license';
 * subscriptionPeriodAt('weekly', Date.parse('2026-01-08T12:00:00Z')); // Mon 2026-01-05 .. Mon 2026-01-12
 * ```
 */
export function subscriptionPeriodAt(schedule: SubscriptionSchedule, ms: number): SubscriptionPeriod {
  const day = startOfUtcDay(ms);
  switch (schedule) {
    case 'daily':
      return { start: day, end: day + dayMs };
    case 'weekly': {
      // getUTCDay: Sunday 0 … Saturday 6; ISO weeks start on Monday.
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      const start = day - sinceMonday * dayMs;
      return { start, end: start + 7 * dayMs };
    }
    case 'monthly': {
      const date = new Date(day);
      return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
    }
  }
}

/**
 * When the delivery of `period` is due: its end plus {@link subscriptionDeliveryDelayMs}.
 *
 * @param period - The period.
 * @returns Milliseconds since the epoch.
 * @example
 * ```ts
 * import { subscriptionDueAt, subscriptionPeriodAt } from '@tollgate/core/license';
 * const due = subscriptionDueAt(subscriptionPeriodAt('daily', Date.now()));
 * ```
 */
export function subscriptionDueAt(period: SubscriptionPeriod): number {
  return period.end + subscriptionDeliveryDelayMs;
}

/**
 * The periods of `schedule` from the one starting at `nextStart` whose deliveries are due at `now`, in
 * order, at most `limit` of them (the caller comes back for the rest: a long outage is caught up over
 * several rounds, never skipped).
 *
 * @param schedule - The schedule.
 * @param nextStart - Start of the first period not yet scheduled (a period boundary).
 * @param now - The current time.
 * @param limit - The most periods to return.
 * @returns The due periods and the start of the first period left for later.
 * @example
 * ```ts
 * import { dueSubscriptionPeriods } from '@tollgate/core/license';
 * const { periods, nextStart } = dueSubscriptionPeriods('daily', subscription.nextPeriodStart, Date.now(), 31);
 * ```
 */
export function dueSubscriptionPeriods(schedule: SubscriptionSchedule, nextStart: number, now: number, limit: number): { periods: SubscriptionPeriod[]; nextStart: number } {
  const periods: SubscriptionPeriod[] = [];
  let cursor = nextStart;
  while (periods.length < limit) {
    const period = subscriptionPeriodAt(schedule, cursor);
    if (subscriptionDueAt(period) > now) break;
    periods.push(period);
    cursor = period.end;
  }
  return { periods, nextStart: cursor };
}

/**
 * The inclusive UTC days `YYYY-MM-DD` a period covers, as the metric query takes them.
 *
 * @param period - The period.
 * @returns `from` (its first day) and `to` (its last day).
 * @example
 * ```ts
 * import { subscriptionPeriodDays, subscriptionPeriodAt } from '@tollgate/core/license';
 * subscriptionPeriodDays(subscriptionPeriodAt('daily', Date.parse('2026-01-08T12:00:00Z'))); // { from: '2026-01-08', to: '2026-01-08' }
 * ```
 */
export function subscriptionPeriodDays(period: SubscriptionPeriod): { from: string; to: string } {
  return { from: new Date(period.start).toISOString().slice(0, 10), to: new Date(period.end - dayMs).toISOString().slice(0, 10) };
}
