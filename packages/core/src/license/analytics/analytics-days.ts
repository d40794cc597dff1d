/** UTC calendar days as `YYYY-MM-DD` strings: the unit of every rollup and query bound. */

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
const dayMs = 86_400_000;

/**
 * Whether `value` is a real calendar day written `YYYY-MM-DD` (so `2025-02-30` is not).
 *
 * @example
 * ```ts
 * import { isAnalyticsDay } from '@tollgate/core/license';
 * isAnalyticsDay('2025-02-28'); // true
 * ```
 */
export function isAnalyticsDay(value: unknown): value is string {
  if (typeof value !== 'string' || !dayPattern.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === value;
}

/**
 * The UTC day of an instant.
 *
 * @example
 * ```ts
 * import { utcDayOf } from '@tollgate/core';
 * utcDayOf(new Date('2025-03-01T23:59:59Z')); // '2025-03-01'
 * ```
 */
export function utcDayOf(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** Midnight UTC starting `day`. */
export function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

/** `day` moved by `days` (negative: earlier). */
export function addDays(day: string, days: number): string {
  return utcDayOf(dayStart(day).getTime() + days * dayMs);
}

/** Whole days from `from` to `to` (0 when equal; negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayStart(to).getTime() - dayStart(from).getTime()) / dayMs);
}

/** How metric points are bucketed. */
export type MetricGranularity = 'day' | 'week' | 'month';

/**
 * The first day of the bucket holding `day`: the day itself, the Monday of its ISO week, or the 1st of
 * its month.
 *
 * @example
 * ```ts
 * import { bucketStartOf } from '@tollgate/core/license';
 * bucketStartOf('2025-03-06', 'week'); // '2025-03-03' (a Monday)
 * ```
 */
export function bucketStartOf(day: string, granularity: MetricGranularity): string {
  if (granularity === 'day') return day;
  if (granularity === 'month') return `${day.slice(0, 7)}-01`;
  const weekday = (dayStart(day).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}
