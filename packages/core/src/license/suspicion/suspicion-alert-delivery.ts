import * as v from 'valibot';
import { hexEncode } from '../../crypto/hex';
import { hmacSha256, sha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';
import { classifyWebhookFailure, classifyWebhookStatus, webhookHost, type NotificationDeliveryOutcome } from '../../webhooks/webhook-classification';
import type { NotificationTransport } from '../../webhooks/notification-transport';
import { checkNotificationUrl, type NotificationUrlPolicy } from '../../webhooks/notification-url';
import type { SqlClient } from '../../storage/sql-client';
import { unixSeconds, type Clock } from '../../time/clock';
import { signNotification } from '../../x402/notifications/signature';
import { suspicionKinds, type SuspicionAlert } from './suspicion-signals';

/** The `Tollgate-Event` of an alert delivery. */
export const suspicionAlertEvent = 'license.suspicion_alert';

/** The product's alert signing key and its id (what a receiver configures to verify deliveries). */
export interface SuspicionAlertKey {
  /** `ak_` + the first 16 hex digits of SHA-256 of the key: names the key in `Tollgate-Signature`. */
  readonly keyId: string;
  /**
   * 64 hex characters. Like a merchant's `notifyHmacKey`, the text itself is the HMAC-SHA-256 key
   * (`verifyNotification({ keys: { [keyId]: secret } })`).
   */
  readonly secret: string;
}

/**
 * The alert signing key of a product: `HMAC-SHA-256(signingRoot, "tollgate/license/alert-webhook/v1/" ||
 * productId)`, so each product's receiver holds its own key and one leak says nothing about the others.
 * `signingRoot` is the license master key's `alertSigning` subkey.
 *
 * @param signingRoot - 32-byte subkey of `LICENSE_MASTER_KEY`.
 * @param productId - The product.
 * @returns Key id and secret.
 * @example
 * ```ts
 * import { suspicionAlertKey } from '@tollgate/core/license';
 * const { keyId, secret } = suspicionAlertKey(alertRoot, productId);
 * ```
 */
export function suspicionAlertKey(signingRoot: Uint8Array, productId: string): SuspicionAlertKey {
  if (!(signingRoot instanceof Uint8Array) || signingRoot.length !== 32) throw new TypeError('The alert signing root must be 32 bytes.');
  const key = hmacSha256(signingRoot, utf8Encode(`tollgate/license/alert-webhook/v1/${productId}`));
  return { keyId: `ak_${hexEncode(sha256(key)).slice(0, 16)}`, secret: hexEncode(key) };
}

const alertSchema = v.object({
  alertId: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}-[1-9][0-9]{0,18}$/)),
  productId: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  score: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
  windowSeconds: v.pipe(v.number(), v.integer(), v.minValue(1)),
  signals: v.record(v.picklist(suspicionKinds), v.pipe(v.number(), v.integer(), v.minValue(0))),
  licenses: v.array(v.object({ licenseId: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)), score: v.number() })),
  raisedAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/**
 * The webhook body of an alert (snake_case JSON, documented in the README): the same bytes on every
 * attempt, so the `Idempotency-Key` and the body always agree.
 *
 * @param alert - The queued alert.
 * @returns The JSON text.
 * @example
 * ```ts
 * import { suspicionAlertBody } from '@tollgate/core/license';
 * const body = suspicionAlertBody(job.payload);
 * ```
 */
export function suspicionAlertBody(alert: SuspicionAlert): string {
  return JSON.stringify({
    type: suspicionAlertEvent,
    id: alert.alertId,
    product_id: alert.productId,
    score: alert.score,
    threshold: alert.threshold,
    window_seconds: alert.windowSeconds,
    signals: alert.signals,
    licenses: alert.licenses.map((license) => ({ license_id: license.licenseId, score: license.score })),
    raised_at: alert.raisedAt,
  });
}

/** Dependencies of {@link createSuspicionAlertDeliverer}. */
export interface SuspicionAlertDelivererDeps extends NotificationUrlPolicy {
  /** Reads the product's webhook URL at delivery time. */
  readonly sql: SqlClient;
  /** The `alertSigning` subkey of the license master key. */
  readonly signingRoot: Uint8Array;
  readonly clock: Clock;
  /** The SSRF-safe transport (`createNodeNotificationTransport`). */
  readonly transport: NotificationTransport;
  /** Deadline of one attempt in ms. Default 10 000. */
  readonly timeoutMs?: number;
}

/**
 * Delivers queued suspicion alerts, one attempt per call: reads the product's alert webhook URL as it is
 * now (none any more → `skipped`), re-checks it (`checkNotificationUrl`), signs the body with the
 * product's key exactly like merchant notifications (`Tollgate-Timestamp`, `Tollgate-Signature:
 * t=<unix>,<keyId>=<hex HMAC-SHA-256 of "<t>.<body>">`; receivers verify with `verifyNotification`), and
 * posts through the transport, which pins a verified public address. Outcomes as for merchant
 * notifications: `retry` is thrown by the worker so the job queue backs off.
 *
 * @param deps - Database, signing root, clock, transport.
 * @returns `deliver(alert)`.
 * @example
 * ```ts
 * import { createSuspicionAlertDeliverer } from '@tollgate/core/license';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const deliverer = createSuspicionAlertDeliverer({ sql, signingRoot, clock: systemClock, transport: createNodeNotificationTransport() });
 * const outcome = await deliverer.deliver(job.payload);
 * ```
 */
export function createSuspicionAlertDeliverer(deps: SuspicionAlertDelivererDeps): { deliver(alert: unknown, options?: { signal?: AbortSignal }): Promise<NotificationDeliveryOutcome> } {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const policy: NotificationUrlPolicy = deps.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  return {
    async deliver(payload, options = {}) {
      const parsed = v.safeParse(alertSchema, payload);
      if (!parsed.success) return { kind: 'abandoned', reason: 'malformed_job', message: 'The alert job is malformed.' };
      const alert = parsed.output as SuspicionAlert;
      const product = await deps.sql.query<{ alert_webhook_url: string | null }>('SELECT alert_webhook_url FROM license_products WHERE product_id = $1', [alert.productId]);
      const target = product.rows[0]?.alert_webhook_url ?? null;
      if (target === null) return { kind: 'skipped', reason: 'no_url' };
      const host = webhookHost(target);
      const checked = checkNotificationUrl(target, policy);
      if (!checked.ok) return { kind: 'abandoned', reason: 'unsafe_url', host, message: `The alert webhook URL is refused: ${checked.message}` };
      const key = suspicionAlertKey(deps.signingRoot, alert.productId);
      const body = suspicionAlertBody(alert);
      const signature = signNotification({ body, keys: [{ id: key.keyId, key: key.secret }], timestamp: unixSeconds(deps.clock) });
      const headers = { 'content-type': 'application/json', 'user-agent': 'Tollgate-Alerts/1', 'idempotency-key': alert.alertId, 'tollgate-event': suspicionAlertEvent, ...signature };
      let status: number;
      try {
        ({ status } = await deps.transport.post(checked.url, { body, headers, timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) }));
      } catch (error) {
        return classifyWebhookFailure(error, host);
      }
      return classifyWebhookStatus(status, host) ?? { kind: 'delivered', host, status, keyIds: [key.keyId] };
    },
  };
}
