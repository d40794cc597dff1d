import { describe, expect, it } from 'vitest';
import { dueSubscriptionPeriods, subscriptionDeliveryDelayMs, subscriptionDueAt, subscriptionPeriodAt, subscriptionPeriodDays } from './subscription-schedule';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('subscription periods', () => {
  it('cuts UTC days, ISO weeks starting Monday, and calendar months', () => {
    const daily = subscriptionPeriodAt('daily', at('2026-01-08T23:59:59.999Z'));
    expect([iso(daily.start), iso(daily.end)]).toEqual(['2026-01-08T00:00:00.000Z', '2026-01-09T00:00:00.000Z']);
    // 2026-01-11 is a Sunday: its ISO week began Monday the 5th.
    const weekly = subscriptionPeriodAt('weekly', at('2026-01-11T12:00:00Z'));
    expect([iso(weekly.start), iso(weekly.end)]).toEqual(['2026-01-05T00:00:00.000Z', '2026-01-12T00:00:00.000Z']);
    const monday = subscriptionPeriodAt('weekly', at('2026-01-12T00:00:00Z'));
    expect(iso(monday.start)).toBe('2026-01-12T00:00:00.000Z');
    const february = subscriptionPeriodAt('monthly', at('2028-02-29T10:00:00Z'));
    expect([iso(february.start), iso(february.end)]).toEqual(['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    const december = subscriptionPeriodAt('monthly', at('2026-12-31T10:00:00Z'));
    expect(iso(december.end)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('names the inclusive days a period covers', () => {
    expect(subscriptionPeriodDays(subscriptionPeriodAt('weekly', at('2026-01-07T00:00:00Z')))).toEqual({ from: '2026-01-05', to: '2026-01-11' });
    expect(subscriptionPeriodDays(subscriptionPeriodAt('monthly', at('2026-02-07T00:00:00Z')))).toEqual({ from: '2026-02-01', to: '2026-02-28' });
  });

  it('makes a period due one delay after it ends, and lists due periods in order without gaps, bounded per call', () => {
    const first = subscriptionPeriodAt('daily', at('2026-01-01T05:00:00Z'));
    expect(subscriptionDueAt(first)).toBe(first.end + subscriptionDeliveryDelayMs);
    expect(dueSubscriptionPeriods('daily', first.start, subscriptionDueAt(first) - 1, 10)).toEqual({ periods: [], nextStart: first.start });
    const tenDaysLater = at('2026-01-11T01:00:00Z');
    const due = dueSubscriptionPeriods('daily', first.start, tenDaysLater, 100);
    expect(due.periods.map((period) => iso(period.start).slice(0, 10))).toEqual(Array.from({ length: 10 }, (_, n) => `2026-01-${String(n + 1).padStart(2, '0')}`));
    expect(iso(due.nextStart)).toBe('2026-01-11T00:00:00.000Z');
    const bounded = dueSubscriptionPeriods('daily', first.start, tenDaysLater, 4);
    expect(bounded.periods).toHaveLength(4);
    const rest = dueSubscriptionPeriods('daily', bounded.nextStart, tenDaysLater, 100);
    expect([...bounded.periods, ...rest.periods]).toEqual(due.periods);
  });
});
