import * as v from 'valibot';
import { unixSeconds, type Clock } from '../../time/clock';
import { merchantNotificationEvents } from '../../x402/notifications/order-payloads';
import type { GatewayKeys } from '../secrets';
import type { MerchantStore } from '../store/merchant-store';
import type { NotificationJob } from './notification-job';
import { buildNotificationRequest, liveNotifyKeys } from './notification-request';
import type { NotificationTransport } from '../../webhooks/notification-transport';
import { checkNotificationUrl, type NotificationUrlPolicy } from '../../webhooks/notification-url';
import { classifyWebhookFailure, classifyWebhookStatus, webhookHost, type NotificationDeliveryOutcome } from '../../webhooks/webhook-classification';

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
