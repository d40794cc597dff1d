import { NotificationTransportError, type NotificationTransport } from '../../../webhooks/notification-transport';
import { checkNotificationUrl, type NotificationUrlPolicy } from '../../../webhooks/notification-url';
import { webhookHost } from '../../../webhooks/webhook-classification';
import { utf8Encode } from '../../../crypto/utf8';
import { AdminError } from '../../../errors/admin';
import { unixSeconds, type Clock } from '../../../time/clock';
import { signNotification } from '../../../x402/notifications/signature';
import type { ClaimedDelivery } from './delivery-store';
import { subscriptionPeriodDays } from './subscription-schedule';
import { openSubscriptionSigningKey } from './subscription-secret';

/** The `Tollgate-Event` (and body `type`) of a metric subscription delivery. */
export const subscriptionDeliveryEvent = 'license.analytics_metrics';

/** The largest delivery body: a bigger one is given up at once (narrow the subscription's group_by). */
export const maxSubscriptionBodyBytes = 1024 * 1024;

/** A metric query of a subscription for one period (inclusive UTC days), as the analytics API takes it. */
export interface SubscriptionMetricQuery {
  readonly ids: readonly string[];
  readonly granularity: string;
  readonly groupBy: readonly string[];
  /** First day `YYYY-MM-DD`. */
  readonly from: string;
  /** Last day `YYYY-MM-DD` (inclusive). */
  readonly to: string;
}

/**
 * Port: the analytics metric API, as subscriptions use it (the server adapts the analytics query code
 * to it, so a delivery carries exactly what `GET /analytics/metrics` answers for the same query).
 */
export interface SubscriptionMetrics {
  /** Refuses a query the metric API would refuse (throws `AdminError` `invalid_request` with the reason). */
  check(query: SubscriptionMetricQuery): void;
  /** The JSON-ready series of one vendor. */
  series(vendorId: string, query: SubscriptionMetricQuery): Promise<unknown>;
  /** Whether the metrics through `lastDay` are final (rolled up). Absent: due time alone decides. */
  ready?(lastDay: string): Promise<boolean>;
}

/**
 * How one delivery attempt went. `errorClass` is what the status shows: a transport failure reason
 * (`dns_failure`, `non_public_address`, `unsafe_url`, `connect_timeout`, `timeout`, `connection_failed`,
 * `aborted`, `transport_error`), `http_status` (with the status), `metrics_unavailable`,
 * `signing_key_unavailable`, and the final ones `payload_too_large` and `metrics_refused` (retrying
 * cannot change them).
 */
export type SubscriptionAttemptOutcome =
  | { readonly kind: 'delivered'; readonly httpStatus: number }
  | { readonly kind: 'failed'; readonly errorClass: string; readonly httpStatus: number | null; readonly final: boolean; readonly message: string }
  | { readonly kind: 'not_ready' };

/** Dependencies of {@link createSubscriptionDeliverer}. */
export interface SubscriptionDelivererDeps extends NotificationUrlPolicy {
  readonly masterKey: Uint8Array;
  readonly metrics: SubscriptionMetrics;
  readonly transport: NotificationTransport;
  readonly clock: Clock;
  /** Freezes the body the first attempt computes (`DeliveryStore.freezeBody`). */
  freezeBody(delivery: ClaimedDelivery, body: string): Promise<string>;
  /** Deadline of one attempt in ms. Default 10 000. */
  readonly timeoutMs?: number;
}

/**
 * The webhook body of a delivery (snake_case JSON): computed once per period and then sent byte for
 * byte on every attempt.
 *
 * @param delivery - The claimed delivery.
 * @param metrics - The metric API's answer for the period.
 * @param generatedAt - When it was computed.
 * @returns The JSON text.
 * @example
 * ```ts
 * import { subscriptionDeliveryBody } from '@tollgate/core/license';
 * const body = subscriptionDeliveryBody(delivery, answer, new Date());
 * ```
 */
export function subscriptionDeliveryBody(delivery: ClaimedDelivery, metrics: unknown, generatedAt: Date): string {
  const days = subscriptionPeriodDays({ start: delivery.periodStart.getTime(), end: delivery.periodEnd.getTime() });
  return JSON.stringify({
    type: subscriptionDeliveryEvent,
    id: delivery.deliveryId,
    subscription_id: delivery.subscriptionId,
    schedule: delivery.schedule,
    period: { start: delivery.periodStart.toISOString(), end: delivery.periodEnd.toISOString(), from: days.from, to: days.to },
    query: { ids: delivery.metricIds, granularity: delivery.granularity, group_by: delivery.groupBy },
    metrics,
    generated_at: generatedAt.toISOString(),
  });
}

function transportFailure(error: unknown, host: string): SubscriptionAttemptOutcome {
  if (error instanceof NotificationTransportError) return { kind: 'failed', errorClass: error.reason, httpStatus: null, final: false, message: error.message };
  const name = error instanceof Error ? error.name : typeof error;
  return { kind: 'failed', errorClass: 'transport_error', httpStatus: null, final: false, message: `Sending to ${host} failed (${name}).` };
}

/**
 * One attempt of a claimed delivery:
 * 1. waits (`not_ready`) while the period's metrics are not final;
 * 2. computes the body once (`metrics.series` for the period's days) and freezes it;
 * 3. re-checks the URL (`checkNotificationUrl`) and opens the sealed signing key;
 * 4. signs the body like every Tollgate webhook (`Tollgate-Timestamp`, `Tollgate-Signature:
 *    t=<unix>,<keyId>=<hex HMAC-SHA-256 of "<t>.<body>">`) with `Idempotency-Key` = the delivery id;
 * 5. posts through the SSRF-safe transport, which resolves the host, refuses any non-public address and
 *    pins the connection to the verified one.
 *
 * Every failure is retried with backoff (a refused address too: no connection is ever made to it, and
 * DNS may be fixed), except an oversized body. Never throws for a delivery problem.
 *
 * @param deps - Master key, metrics port, transport, clock, body freezer.
 * @returns `attempt(delivery)`.
 * @example
 * ```ts
 * import { createSubscriptionDeliverer, createSqlDeliveryStore } from '@tollgate/core/license';
 * const store = createSqlDeliveryStore(sql);
 * const deliverer = createSubscriptionDeliverer({ masterKey, metrics, transport, clock, freezeBody: store.freezeBody });
 * ```
 */
export function createSubscriptionDeliverer(deps: SubscriptionDelivererDeps): { attempt(delivery: ClaimedDelivery, options?: { signal?: AbortSignal }): Promise<SubscriptionAttemptOutcome> } {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const policy: NotificationUrlPolicy = deps.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const failed = (errorClass: string, message: string, final = false): SubscriptionAttemptOutcome => ({ kind: 'failed', errorClass, httpStatus: null, final, message });
  return {
    async attempt(delivery, options = {}) {
      const host = webhookHost(delivery.url);
      let body = delivery.body;
      if (body === null) {
        const days = subscriptionPeriodDays({ start: delivery.periodStart.getTime(), end: delivery.periodEnd.getTime() });
        let answer: unknown;
        try {
          if (deps.metrics.ready !== undefined && !(await deps.metrics.ready(days.to))) return { kind: 'not_ready' };
          answer = await deps.metrics.series(delivery.vendorId, { ids: delivery.metricIds, granularity: delivery.granularity, groupBy: delivery.groupBy, ...days });
        } catch (error) {
          // A query the metric API refuses (say, more series than it answers) is refused every time.
          if (error instanceof AdminError && error.code === 'invalid_request') return failed('metrics_refused', error.message, true);
          return failed('metrics_unavailable', `The metrics could not be computed (${error instanceof Error ? error.name : typeof error}).`);
        }
        const computed = subscriptionDeliveryBody(delivery, answer, new Date(deps.clock.now()));
        if (utf8Encode(computed).length > maxSubscriptionBodyBytes) return failed('payload_too_large', `The payload exceeds ${maxSubscriptionBodyBytes} bytes; narrow the subscription's group_by.`, true);
        body = await deps.freezeBody(delivery, computed);
      }
      const checked = checkNotificationUrl(delivery.url, policy);
      if (!checked.ok) return failed('unsafe_url', `The webhook URL for ${host} is refused: ${checked.message}`);
      let secret: string;
      try {
        secret = openSubscriptionSigningKey(deps.masterKey, delivery.subscriptionId, delivery.signingKeyId, delivery.sealedSecret).secret;
      } catch {
        return failed('signing_key_unavailable', 'The signing secret does not open under this LICENSE_MASTER_KEY.');
      }
      const signature = signNotification({ body, keys: [{ id: delivery.signingKeyId, key: secret }], timestamp: unixSeconds(deps.clock) });
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Tollgate-Analytics/1',
        'idempotency-key': delivery.deliveryId,
        'tollgate-event': subscriptionDeliveryEvent,
        'tollgate-delivery': delivery.deliveryId,
        ...signature,
      };
      let status: number;
      try {
        ({ status } = await deps.transport.post(checked.url, { body, headers, timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) }));
      } catch (error) {
        return transportFailure(error, host);
      }
      if (status >= 200 && status < 300) return { kind: 'delivered', httpStatus: status };
      return { kind: 'failed', errorClass: 'http_status', httpStatus: status, final: false, message: `${host} answered HTTP ${status}.` };
    },
  };
}
