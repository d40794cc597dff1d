import { sha256 } from '@noble/hashes/sha2.js';
import * as v from 'valibot';
import { hexEncode } from '../../../crypto/hex';
import { randomBytes, randomId, type RandomSource } from '../../../crypto/random';
import { utf8Encode } from '../../../crypto/utf8';
import { AdminError } from '../../../errors/admin';
import { checkNotificationUrl, type NotificationUrlPolicy } from '../../../webhooks/notification-url';
import { pageOf, parseAdminInput, parseAdminPage } from '../../admin/admin-input';
import { adminOperation, type AdminOperation } from '../../admin/admin-operation';
import type { SubscriptionMetrics } from './subscription-delivery';
import { subscriptionSchedules } from './subscription-schedule';
import { createSubscriptionSigningKey } from './subscription-secret';
import { createSqlMetricSubscriptionStore, subscriptionLimits, type SubscriptionLimitBreach, type MetricSubscriptionRecord } from './subscription-store';

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));

const createSchema = v.strictObject({
  metric_ids: v.pipe(v.array(text(128)), v.minLength(1), v.maxLength(10)),
  granularity: v.optional(v.picklist(['day', 'week', 'month']), 'day'),
  group_by: v.optional(v.pipe(v.array(text(64)), v.maxLength(3)), []),
  schedule: v.picklist(subscriptionSchedules),
  url: v.pipe(v.string(), v.minLength(1), v.maxLength(subscriptionLimits.urlLength, `at most ${subscriptionLimits.urlLength} characters`)),
  description: v.optional(text(200)),
});

const updateSchema = v.strictObject({
  subscription_id: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, 'a subscription id (32 lowercase hex digits)')),
  active: v.boolean(),
});

/**
 * Checks a destination beyond the URL's text, before anything is stored (the server resolves the host
 * and refuses non-public addresses). Answers the refusal's reason, or `undefined` when acceptable.
 */
export type SubscriptionDestinationCheck = (url: URL) => Promise<string | undefined>;

/** Dependencies of {@link subscriptionOperations}. */
export interface SubscriptionOperationsDeps extends NotificationUrlPolicy {
  readonly masterKey: Uint8Array;
  readonly metrics: Pick<SubscriptionMetrics, 'check'>;
  /** Resolution check of the host at creation (delivery checks again, after its own resolution). */
  readonly checkDestination?: SubscriptionDestinationCheck;
  readonly random?: RandomSource;
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/**
 * The Admin view of a subscription: the query, the destination, the signing key id (never the secret)
 * and the delivery status.
 */
function subscriptionView(record: MetricSubscriptionRecord) {
  return {
    subscription_id: record.subscriptionId,
    description: record.description,
    metric_ids: record.metricIds,
    granularity: record.granularity,
    group_by: record.groupBy,
    schedule: record.schedule,
    url: record.url,
    signing_key_id: record.signingKeyId,
    active: record.active,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    disabled_at: iso(record.disabledAt),
    delivery: {
      // The earliest pending retry, else when the next period falls due (none while disabled).
      next_attempt_at: iso(record.pendingNextAttemptAt ?? (record.active ? record.nextDueAt : null)),
      next_period_start: record.active ? record.nextPeriodStart.toISOString() : null,
      last_attempt_at: iso(record.lastAttemptAt),
      last_success_at: iso(record.lastSuccessAt),
      consecutive_failures: record.consecutiveFailures,
      last_error_class: record.lastErrorClass,
      last_http_status: record.lastHttpStatus,
      pending_periods: record.pendingPeriods,
      delivered_periods: record.deliveredPeriods,
      failed_periods: record.failedPeriods,
    },
  };
}

function limitError(breach: SubscriptionLimitBreach): AdminError {
  // Only active subscriptions count: disabled ones never block creating (they are kept for their history).
  return new AdminError('invalid_request', `A vendor may have at most ${subscriptionLimits.activePerVendor} ${breach === 'active_limit' ? 'active ' : ''}subscriptions; disable one first.`);
}

function auditUrl(url: string) {
  // The audit chain is immutable and readable with audit:r: keep the host, not a path or query that may hold a token.
  return { url_host: new URL(url).host, url_sha256: hexEncode(sha256(utf8Encode(url))) };
}

/**
 * The metric subscription operations (scope `analytics:r`, as the spec's table gives it):
 *
 * - `GET /analytics/subscriptions?limit=&cursor=`: the vendor's subscriptions newest first with their
 *   delivery status, `{ subscriptions, next_cursor }`. The signing secret is never shown again.
 * - `POST /analytics/subscriptions` `{ metric_ids, schedule, url, granularity?, group_by?, description? }`:
 *   201 `{ subscription, signing_secret }`. The URL must be public https (no credentials, private,
 *   loopback or link-local literal) and its host must not resolve to a non-public address.
 * - `POST /analytics/subscriptions` `{ subscription_id, active }`: disables (pending deliveries are
 *   cancelled) or re-enables (from the current period) a subscription: the spec offers no DELETE, and a
 *   disabled subscription is removed {@link subscriptionLimits.disabledRetentionDays} days later.
 *
 * @param deps - Master key, metric checker, destination check, randomness, test policy.
 * @returns The operations.
 * @example
 * ```ts
 * import { subscriptionOperations } from '@tollgate/core/license';
 * const operations = subscriptionOperations({ masterKey, metrics });
 * ```
 */
export function subscriptionOperations(deps: SubscriptionOperationsDeps): AdminOperation[] {
  const policy: NotificationUrlPolicy = deps.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const random = deps.random ?? randomBytes;
  return [
    adminOperation({
      method: 'GET',
      path: '/analytics/subscriptions',
      docs: { summary: 'Lists metric subscriptions.', paged: true },
      scopes: ['analytics:r'],
      kind: 'read',
      run: async (call) => {
        const unknown = Object.keys(call.query).filter((name) => name !== 'limit' && name !== 'cursor');
        if (unknown.length > 0) throw new AdminError('invalid_request', `Unknown query parameter ${unknown[0]}; this list takes limit and cursor.`);
        const page = parseAdminPage(call.query);
        const rows = await createSqlMetricSubscriptionStore(call.sql).list(call.actor.vendorId, { limit: page.limit + 1, ...(page.after === undefined ? {} : { after: page.after }) });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.subscriptionId }));
        return { body: { subscriptions: items.map(subscriptionView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/analytics/subscriptions',
      docs: { summary: 'Creates a metric subscription (answers the signing secret once, 201), or with subscription_id enables or disables one.', body: v.union([createSchema, updateSchema]), status: 201 },
      scopes: ['analytics:r'],
      kind: 'mutation',
      maxBodyBytes: 16 * 1024,
      // Validation and DNS resolution hold no transaction: they run before the journal opens one.
      prepare: async (call) => {
        const isUpdate = typeof call.body === 'object' && call.body !== null && !Array.isArray(call.body) && 'subscription_id' in call.body;
        if (isUpdate) return { kind: 'update' as const, input: parseAdminInput(updateSchema, call.body) };
        const input = parseAdminInput(createSchema, call.body);
        const checked = checkNotificationUrl(input.url, policy);
        if (!checked.ok) throw new AdminError('invalid_request', `url is refused: ${checked.message}`);
        const today = call.now.toISOString().slice(0, 10);
        deps.metrics.check({ ids: input.metric_ids, granularity: input.granularity, groupBy: input.group_by, from: today, to: today });
        const refusal = await deps.checkDestination?.(checked.url);
        if (refusal !== undefined) throw new AdminError('invalid_request', `url is refused: ${refusal}`);
        return { kind: 'create' as const, input };
      },
      run: async (call) => {
        const store = createSqlMetricSubscriptionStore(call.sql);
        const prepared = call.prepared;
        if (prepared.kind === 'update') {
          const { subscription_id: subscriptionId, active } = prepared.input;
          const outcome = await store.setActive(call.actor.vendorId, subscriptionId, active, call.now);
          if (outcome.kind === 'not_found') throw new AdminError('not_found', 'No such subscription.');
          if (outcome.kind === 'limit') throw limitError(outcome.breach);
          await call.audit({ action: active ? 'analytics.subscription.enable' : 'analytics.subscription.disable', targetType: 'analytics_subscription', targetId: subscriptionId, summary: { active, changed: outcome.kind === 'updated' } });
          return { body: { subscription: subscriptionView(outcome.subscription), changed: outcome.kind === 'updated' } };
        }
        const { input } = prepared;
        const subscriptionId = randomId(random);
        const { key, sealed } = createSubscriptionSigningKey(deps.masterKey, subscriptionId, random);
        const outcome = await store.create({
          subscriptionId,
          vendorId: call.actor.vendorId,
          description: input.description ?? null,
          metricIds: input.metric_ids,
          granularity: input.granularity,
          groupBy: input.group_by,
          schedule: input.schedule,
          url: input.url,
          signingKeyId: key.keyId,
          sealedSecret: sealed,
          createdAt: call.now,
        });
        if (outcome.kind === 'limit') throw limitError(outcome.breach);
        await call.audit({
          action: 'analytics.subscription.create',
          targetType: 'analytics_subscription',
          targetId: subscriptionId,
          summary: { ...auditUrl(input.url), schedule: input.schedule, metric_ids: input.metric_ids, granularity: input.granularity, group_by: input.group_by, signing_key_id: key.keyId },
        });
        return { status: 201, body: { subscription: subscriptionView(outcome.subscription), signing_secret: key.secret } };
      },
    }),
  ];
}
