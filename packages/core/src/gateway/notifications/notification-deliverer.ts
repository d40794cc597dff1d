import * as v from 'valibot';
import { unixSeconds, type Clock } from '../../time/clock';
import { merchantNotificationEvents } from '../../x402/notifications/order-payloads';
import type { GatewayKeys } from '../secrets';
import type { MerchantStore } from '../store/merchant-store';
import type { NotificationJob } from './notification-job';
import { buildNotificationRequest, liveNotifyKeys } from './notification-request';
import { NotificationTransportError, type NotificationTransport, type NotificationTransportFailure } from './notification-transport';
import { checkNotificationUrl, type NotificationUrlPolicy } from './notification-url';

/** Why an attempt failed in a way that a later attempt may fix. */
export type NotificationRetryReason = 'http_status' | Exclude<NotificationTransportFailure, 'unsafe_url' | 'non_public_address'> | 'transport_error';

/** Why a notification is given up at once: retrying could not change the answer. */
export type NotificationAbandonReason = 'malformed_job' | 'merchant_not_found' | 'no_notify_key' | 'unsafe_url' | 'non_public_address' | 'gone';

/**
 * The outcome of one delivery attempt. `host` is the destination's host name (never the path or query,
 * which may carry the receiver's own secrets).
 * - `delivered`: the receiver answered 2xx.
 * - `skipped`: nowhere to deliver (no ref `notifyUrl` and no merchant webhook URL): done, nothing sent.
 * - `retry`: try again later (a 3xx, 4xx other than 410, 5xx, timeout, connection or DNS failure).
 * - `abandoned`: never try again (see {@link NotificationAbandonReason}).
 */
export type NotificationDeliveryOutcome =
  | { readonly kind: 'delivered'; readonly host: string; readonly status: number; readonly keyIds: readonly string[] }
  | { readonly kind: 'skipped'; readonly reason: 'no_url' }
  | { readonly kind: 'retry'; readonly reason: NotificationRetryReason; readonly host: string; readonly status?: number; readonly message: string }
  | { readonly kind: 'abandoned'; readonly reason: NotificationAbandonReason; readonly host?: string; readonly status?: number; readonly message: string };

/** Dependencies of {@link createNotificationDeliverer}. */
export interface NotificationDelivererDeps extends NotificationUrlPolicy {
  /** `merchants` reads the merchant (webhook URL, live notify key ids) at delivery time. */
  readonly stores: { readonly merchants: Pick<MerchantStore, 'getMerchant'> };
  /** The gateway's subkeys; only `notifyRoot` is used, to derive the notify keys. */
  readonly keys: Pick<GatewayKeys, 'notifyRoot'>;
  /** The signature timestamp of each attempt. */
  readonly clock: Clock;
  readonly transport: NotificationTransport;
  /** Deadline of one attempt, in milliseconds. Default 10 000. */
  readonly timeoutMs?: number;
}

/** Delivers notification jobs, one attempt per call. */
export interface NotificationDeliverer {
  /**
   * Makes one delivery attempt of `job` and classifies it. The job is checked again at run time (it
   * comes back from the database), a malformed one is `abandoned`. Never throws for a delivery problem
   * (that is an outcome); rejects only when the store cannot be read, which callers treat as retryable.
   */
  deliver(job: NotificationJob, options?: { signal?: AbortSignal }): Promise<NotificationDeliveryOutcome>;
}

const jobSchema = v.object({
  merchantId: v.pipe(v.string(), v.minLength(1)),
  refId: v.pipe(v.string(), v.minLength(1)),
  url: v.nullable(v.string()),
  notification: v.looseObject({ event: v.picklist(merchantNotificationEvents), id: v.pipe(v.string(), v.minLength(1)), createdAt: v.number(), data: v.looseObject({}) }),
});

/**
 * The host name of a URL for messages (never its path or query), or `<not a URL>`.
 *
 * @param url - The URL text.
 * @returns The host name.
 * @example
 * ```ts
 * import { webhookHost } from '@tollgate/core/gateway';
 * webhookHost('https://hooks.example.com/x?token=secret'); // 'hooks.example.com'
 * ```
 */
export function webhookHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '<not a URL>';
  }
}

/**
 * How an HTTP answer of a webhook receiver is judged: `undefined` for 2xx (delivered), `abandoned` for
 * 410 Gone, `retry` for anything else (shared by every Tollgate webhook: merchant notifications, license alerts).
 *
 * @param status - The receiver's HTTP status.
 * @param host - The destination host (for the message).
 * @returns The failed outcome, or `undefined` when delivered.
 * @example
 * ```ts
 * import { classifyWebhookStatus } from '@tollgate/core/gateway';
 * classifyWebhookStatus(503, 'hooks.example.com')?.kind; // 'retry'
 * ```
 */
export function classifyWebhookStatus(status: number, host: string): NotificationDeliveryOutcome | undefined {
  if (status >= 200 && status < 300) return undefined;
  // 410 is the receiver saying the endpoint is gone for good; any other status may be temporary or
  // fixable on the receiver's side (a deploy, a key rollover, a misrouted redirect), so it is retried.
  if (status === 410) return { kind: 'abandoned', reason: 'gone', host, status, message: `${host} answered 410 Gone: the endpoint was removed.` };
  const why = status >= 300 && status < 400 ? ` (redirects are not followed: configure the final URL)` : '';
  return { kind: 'retry', reason: 'http_status', host, status, message: `${host} answered HTTP ${status}${why}.` };
}

/**
 * How a transport failure is judged: refused destinations are `abandoned`, everything else `retry`.
 *
 * @param error - What the transport threw.
 * @param host - The destination host (for the message).
 * @returns The outcome.
 * @example
 * ```ts
 * import { classifyWebhookFailure } from '@tollgate/core/gateway';
 * const outcome = classifyWebhookFailure(error, 'hooks.example.com');
 * ```
 */
export function classifyWebhookFailure(error: unknown, host: string): NotificationDeliveryOutcome {
  if (error instanceof NotificationTransportError) {
    if (error.reason === 'unsafe_url' || error.reason === 'non_public_address') return { kind: 'abandoned', reason: error.reason, host, message: error.message };
    return { kind: 'retry', reason: error.reason, host, message: error.message };
  }
  // An unexpected transport failure is treated as temporary; its message is kept short and host-only.
  const name = error instanceof Error ? error.name : typeof error;
  return { kind: 'retry', reason: 'transport_error', host, message: `Sending to ${host} failed (${name}).` };
}

/**
 * The delivery step of merchant notifications (the worker calls it for each claimed
 * `gateway.notifications` job):
 * 1. resolves the URL: the job's (the ref's `notifyUrl`), else the merchant's webhook URL **as it is
 *    now**; none → `skipped`;
 * 2. re-checks it with `checkNotificationUrl` (it was checked when stored, but rules and records
 *    change): refused → `abandoned`;
 * 3. derives the merchant's live notify keys (current, then previous during a rotation);
 * 4. signs the exact body bytes with each of them and a fresh timestamp, and posts through the
 *    transport, which re-checks every resolved address (DNS) and pins the connection;
 * 5. classifies the answer (see {@link NotificationDeliveryOutcome}).
 *
 * @param deps - Merchant store, gateway keys, clock, transport, attempt deadline, test policy.
 * @returns The deliverer.
 * @example
 * ```ts
 * import { createNotificationDeliverer } from '@tollgate/core';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const deliverer = createNotificationDeliverer({ stores: { merchants }, keys, clock: systemClock, transport: createNodeNotificationTransport() });
 * const outcome = await deliverer.deliver(job.payload);
 * if (outcome.kind === 'retry') throw new Error(outcome.message);
 * ```
 */
export function createNotificationDeliverer(deps: NotificationDelivererDeps): NotificationDeliverer {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const policy: NotificationUrlPolicy = deps.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  return {
    async deliver(job, options = {}) {
      const parsed = v.safeParse(jobSchema, job);
      if (!parsed.success) {
        const path = v.getDotPath(parsed.issues[0] as v.BaseIssue<unknown>) ?? 'payload';
        return { kind: 'abandoned', reason: 'malformed_job', message: `The notification job is malformed (at ${path}).` };
      }
      const merchant = await deps.stores.merchants.getMerchant(job.merchantId);
      if (merchant === undefined) return { kind: 'abandoned', reason: 'merchant_not_found', message: 'The merchant of this notification no longer exists.' };
      const target = job.url ?? merchant.webhookUrl;
      if (target === null) return { kind: 'skipped', reason: 'no_url' };
      const host = webhookHost(target);
      const checked = checkNotificationUrl(target, policy);
      if (!checked.ok) return { kind: 'abandoned', reason: 'unsafe_url', host, message: `The notification URL is refused: ${checked.message}` };
      const keys = liveNotifyKeys(merchant, deps.keys.notifyRoot);
      if (keys.length === 0) return { kind: 'abandoned', reason: 'no_notify_key', host, message: 'The merchant has no live notify key to sign with.' };

      const { body, headers } = buildNotificationRequest({ notification: job.notification, keys, timestamp: unixSeconds(deps.clock) });
      let status: number;
      try {
        ({ status } = await deps.transport.post(checked.url, { body, headers, timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) }));
      } catch (error) {
        return classifyWebhookFailure(error, host);
      }
      return classifyWebhookStatus(status, host) ?? { kind: 'delivered', host, status, keyIds: keys.map((key) => key.id) };
    },
  };
}
