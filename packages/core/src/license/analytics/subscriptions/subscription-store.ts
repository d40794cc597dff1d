import type { SqlClient, SqlParam } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../../admin/admin-input';
import { subscriptionDueAt, subscriptionPeriodAt, type SubscriptionSchedule } from './subscription-schedule';

/** Bounds of subscriptions (the spec leaves them open; docs/decisions.md "Analytics subscriptions"). */
export const subscriptionLimits = {
  /** Active subscriptions per vendor. */
  activePerVendor: 25,
  /**
   * Disabled rows kept per vendor (they do not count toward any creation limit, so disabling can never
   * lock a vendor out of creating): beyond this many, disabling removes the oldest disabled ones early.
   */
  disabledKeptPerVendor: 100,
  /** Longest webhook URL. */
  urlLength: 2048,
  /** Days a disabled subscription (and its delivery history) is kept before the delivery job purges it. */
  disabledRetentionDays: 30,
  /** Days a finished delivery row (delivered, failed, cancelled) is kept. */
  deliveryRetentionDays: 90,
} as const;

/** A subscription as stored, with its delivery status. */
export interface MetricSubscriptionRecord {
  readonly subscriptionId: string;
  readonly vendorId: string;
  readonly description: string | null;
  readonly metricIds: readonly string[];
  readonly granularity: string;
  readonly groupBy: readonly string[];
  readonly schedule: SubscriptionSchedule;
  readonly url: string;
  readonly signingKeyId: string;
  readonly active: boolean;
  readonly nextPeriodStart: Date;
  readonly nextDueAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly disabledAt: Date | null;
  readonly lastAttemptAt: Date | null;
  readonly lastSuccessAt: Date | null;
  readonly lastErrorClass: string | null;
  readonly lastHttpStatus: number | null;
  readonly consecutiveFailures: number;
  /** The earliest next attempt of a pending delivery (`null` when none is pending). */
  readonly pendingNextAttemptAt: Date | null;
  readonly pendingPeriods: number;
  readonly failedPeriods: number;
  readonly deliveredPeriods: number;
}

/**
 * What {@link createSqlMetricSubscriptionStore}'s `create` stores: the definition fields of a
 * {@link MetricSubscriptionRecord} (the store derives the next period and the delivery status), plus the sealed
 * signing secret, which is stored but never read back into a record.
 */
export interface NewMetricSubscription
  extends Pick<
    MetricSubscriptionRecord,
    'subscriptionId' | 'vendorId' | 'description' | 'metricIds' | 'granularity' | 'groupBy' | 'schedule' | 'url' | 'signingKeyId' | 'createdAt'
  > {
  readonly sealedSecret: Uint8Array;
}

interface SubscriptionRow extends Record<string, unknown> {
  subscription_id: string;
  vendor_id: string;
  description: string | null;
  metric_ids: string[];
  granularity: string;
  group_by: string[];
  schedule: SubscriptionSchedule;
  url: string;
  signing_key_id: string;
  active: boolean;
  next_period_start: Date;
  next_due_at: Date;
  created_at: Date;
  updated_at: Date;
  disabled_at: Date | null;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error_class: string | null;
  last_http_status: number | null;
  consecutive_failures: number;
  pending_next_attempt_at: Date | null;
  pending_periods: string;
  failed_periods: string;
  delivered_periods: string;
}

const selectWithStatus = `
  SELECT s.subscription_id, s.vendor_id, s.description, s.metric_ids, s.granularity, s.group_by, s.schedule, s.url,
         s.signing_key_id, s.active, s.next_period_start, s.next_due_at, s.created_at, s.updated_at, s.disabled_at,
         s.last_attempt_at, s.last_success_at, s.last_error_class, s.last_http_status, s.consecutive_failures,
         d.pending_next_attempt_at, COALESCE(d.pending, 0)::text AS pending_periods,
         COALESCE(d.failed, 0)::text AS failed_periods, COALESCE(d.delivered, 0)::text AS delivered_periods
    FROM license_analytics_subscriptions s
    LEFT JOIN LATERAL (
      SELECT min(next_attempt_at) FILTER (WHERE status = 'pending') AS pending_next_attempt_at,
             count(*) FILTER (WHERE status = 'pending') AS pending,
             count(*) FILTER (WHERE status = 'failed') AS failed,
             count(*) FILTER (WHERE status = 'delivered') AS delivered
        FROM license_analytics_deliveries WHERE subscription_id = s.subscription_id
    ) d ON true`;

function toRecord(row: SubscriptionRow): MetricSubscriptionRecord {
  return {
    subscriptionId: row.subscription_id,
    vendorId: row.vendor_id,
    description: row.description,
    metricIds: row.metric_ids,
    granularity: row.granularity,
    groupBy: row.group_by,
    schedule: row.schedule,
    url: row.url,
    signingKeyId: row.signing_key_id,
    active: row.active,
    nextPeriodStart: row.next_period_start,
    nextDueAt: row.next_due_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabledAt: row.disabled_at,
    lastAttemptAt: row.last_attempt_at,
    lastSuccessAt: row.last_success_at,
    lastErrorClass: row.last_error_class,
    lastHttpStatus: row.last_http_status,
    consecutiveFailures: row.consecutive_failures,
    pendingNextAttemptAt: row.pending_next_attempt_at,
    pendingPeriods: Number(row.pending_periods),
    failedPeriods: Number(row.failed_periods),
    deliveredPeriods: Number(row.delivered_periods),
  };
}

/** Why a create or re-enable was refused by a per-vendor bound. */
export type SubscriptionLimitBreach = 'active_limit';

/** The Admin side of subscriptions: create, list, enable and disable, always scoped to one vendor. */
export interface MetricSubscriptionStore {
  /**
   * Stores a subscription whose first period is the one containing `createdAt`. Serialised per vendor
   * (the vendor row is locked) so concurrent creates cannot pass the bounds together.
   */
  create(subscription: NewMetricSubscription): Promise<{ kind: 'created'; subscription: MetricSubscriptionRecord } | { kind: 'limit'; breach: SubscriptionLimitBreach }>;
  get(vendorId: string, subscriptionId: string): Promise<MetricSubscriptionRecord | undefined>;
  /** Newest first, keyset-paged by (created_at, subscription_id). */
  list(vendorId: string, options: { limit: number; after?: AdminCursorPosition }): Promise<MetricSubscriptionRecord[]>;
  /**
   * Disabling cancels the pending deliveries (their receiver is presumably gone); enabling resumes with
   * the period containing `now` (periods while disabled are not delivered). `unchanged` when it already was.
   */
  setActive(vendorId: string, subscriptionId: string, active: boolean, now: Date): Promise<{ kind: 'updated' | 'unchanged'; subscription: MetricSubscriptionRecord } | { kind: 'not_found' } | { kind: 'limit'; breach: SubscriptionLimitBreach }>;
}

/**
 * The SQL {@link MetricSubscriptionStore} over `license_analytics_subscriptions` (license migration 020).
 * Run writes inside the Admin call's transaction.
 *
 * @param sql - The database or the call's transaction.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlMetricSubscriptionStore } from '@tollgate/core/license';
 * const subscriptions = await createSqlMetricSubscriptionStore(call.sql).list(call.actor.vendorId, { limit: 50 });
 * ```
 */
export function createSqlMetricSubscriptionStore(sql: SqlClient): MetricSubscriptionStore {
  const counts = async (vendorId: string) => {
    await sql.query('SELECT vendor_id FROM license_vendors WHERE vendor_id = $1 FOR UPDATE', [vendorId]);
    const { rows } = await sql.query<{ active: string; total: string }>(
      'SELECT count(*) FILTER (WHERE active)::text AS active FROM license_analytics_subscriptions WHERE vendor_id = $1',
      [vendorId],
    );
    return { active: Number(rows[0]?.active ?? 0) };
  };
  const store: MetricSubscriptionStore = {
    async create(subscription) {
      const current = await counts(subscription.vendorId);
      if (current.active >= subscriptionLimits.activePerVendor) return { kind: 'limit', breach: 'active_limit' };
      const period = subscriptionPeriodAt(subscription.schedule, subscription.createdAt.getTime());
      await sql.query(
        `INSERT INTO license_analytics_subscriptions (subscription_id, vendor_id, description, metric_ids, granularity, group_by, schedule, url,
           signing_key_id, sealed_secret, active, next_period_start, next_due_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7, $8, $9, $10, true, $11, $12, $13, $13)`,
        [
          subscription.subscriptionId, subscription.vendorId, subscription.description, JSON.stringify(subscription.metricIds), subscription.granularity,
          JSON.stringify(subscription.groupBy), subscription.schedule, subscription.url, subscription.signingKeyId, subscription.sealedSecret,
          new Date(period.start), new Date(subscriptionDueAt(period)), subscription.createdAt,
        ],
      );
      const created = await store.get(subscription.vendorId, subscription.subscriptionId);
      return { kind: 'created', subscription: created as MetricSubscriptionRecord };
    },
    async get(vendorId, subscriptionId) {
      const { rows } = await sql.query<SubscriptionRow>(`${selectWithStatus} WHERE s.vendor_id = $1 AND s.subscription_id = $2`, [vendorId, subscriptionId]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    async list(vendorId, options) {
      const params: SqlParam[] = [vendorId, options.limit];
      let after = '';
      if (options.after !== undefined) {
        params.push(new Date(options.after.at), options.after.id);
        after = 'AND (s.created_at, s.subscription_id) < ($3, $4)';
      }
      const { rows } = await sql.query<SubscriptionRow>(`${selectWithStatus} WHERE s.vendor_id = $1 ${after} ORDER BY s.created_at DESC, s.subscription_id DESC LIMIT $2`, params);
      return rows.map(toRecord);
    },
    async setActive(vendorId, subscriptionId, active, now) {
      if (active) {
        const current = await counts(vendorId);
        const existing = await store.get(vendorId, subscriptionId);
        if (existing === undefined) return { kind: 'not_found' };
        if (existing.active) return { kind: 'unchanged', subscription: existing };
        if (current.active >= subscriptionLimits.activePerVendor) return { kind: 'limit', breach: 'active_limit' };
        const period = subscriptionPeriodAt(existing.schedule, now.getTime());
        await sql.query(
          `UPDATE license_analytics_subscriptions SET active = true, disabled_at = NULL, next_period_start = $3, next_due_at = $4, updated_at = $5
            WHERE vendor_id = $1 AND subscription_id = $2`,
          [vendorId, subscriptionId, new Date(period.start), new Date(subscriptionDueAt(period)), now],
        );
      } else {
        const { rows } = await sql.query<{ active: boolean }>('SELECT active FROM license_analytics_subscriptions WHERE vendor_id = $1 AND subscription_id = $2 FOR UPDATE', [vendorId, subscriptionId]);
        if (rows[0] === undefined) return { kind: 'not_found' };
        if (!rows[0].active) return { kind: 'unchanged', subscription: (await store.get(vendorId, subscriptionId)) as MetricSubscriptionRecord };
        await sql.query('UPDATE license_analytics_subscriptions SET active = false, disabled_at = $3, updated_at = $3 WHERE vendor_id = $1 AND subscription_id = $2', [vendorId, subscriptionId, now]);
        await sql.query("UPDATE license_analytics_deliveries SET status = 'cancelled', updated_at = $2 WHERE subscription_id = $1 AND status = 'pending'", [subscriptionId, now]);
        await sql.query(
          `DELETE FROM license_analytics_subscriptions WHERE subscription_id IN (
             SELECT subscription_id FROM license_analytics_subscriptions WHERE vendor_id = $1 AND NOT active AND subscription_id <> $3
             ORDER BY disabled_at DESC, created_at DESC, subscription_id DESC OFFSET $2)`,
          [vendorId, subscriptionLimits.disabledKeptPerVendor - 1, subscriptionId],
        );
      }
      return { kind: 'updated', subscription: (await store.get(vendorId, subscriptionId)) as MetricSubscriptionRecord };
    },
  };
  return store;
}
