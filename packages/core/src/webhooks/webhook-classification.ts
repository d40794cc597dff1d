import { NotificationTransportError, type NotificationTransportFailure } from './notification-transport';

/**
 * How a webhook delivery attempt is judged, shared by every Tollgate webhook (the gateway's merchant
 * notifications, the license service's alerts and analytics deliveries): the outcome type, the status
 * and failure classification, and the host name used in messages.
 *
 * @module
 */

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
