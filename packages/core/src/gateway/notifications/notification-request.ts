import { serializeNotification, type MerchantNotification } from '../../x402/notifications/order-payloads';
import { signNotification, type NotificationKey } from '../../x402/notifications/signature';
import { deriveNotifyHmacKey } from '../merchants/credentials';
import type { MerchantRecord } from '../store/records';

/**
 * The `User-Agent` of every notification request, so receivers can recognise and allow-list Tollgate.
 *
 * @example
 * ```ts
 * import { notificationUserAgent } from '@tollgate/core/gateway';
 * if (request.headers['user-agent'] !== notificationUserAgent) console.warn('not from Tollgate?');
 * ```
 */
export const notificationUserAgent = 'Tollgate-Notifier/1 (+https://github.com/tollgate-dev/tollgate)';

/**
 * Headers of a notification request besides the signature headers (`notificationHeaderNames`):
 * - `Idempotency-Key: <notification id>`: the same on every retry; deduplicate on it.
 * - `Tollgate-Event: <event>` (`payment.settled`, `order.paid`, `order.refunded`, `refund.rejected`): the
 *   event kind, so a receiver can route before parsing.
 *
 * @example
 * ```ts
 * import { notificationRequestHeaderNames } from '@tollgate/core/gateway';
 * const notificationId = request.headers.get(notificationRequestHeaderNames.idempotencyKey);
 * ```
 */
export const notificationRequestHeaderNames = { idempotencyKey: 'Idempotency-Key', event: 'Tollgate-Event' } as const;

/** The body and headers of one delivery attempt. */
export interface SignedNotificationRequest {
  /** The exact bytes the signatures cover. */
  readonly body: string;
  /** Lowercase-named headers, signatures included. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Serialises and signs a notification for one delivery attempt. The body is the same on every attempt
 * (it depends only on the notification); the timestamp and therefore the signatures are fresh each time,
 * so a retry hours later still falls inside the receiver's replay tolerance.
 *
 * @param params - The notification, the live notify keys (current first) and the Unix timestamp.
 * @returns Body and headers: `content-type`, `user-agent`, `idempotency-key`, `tollgate-event`,
 *   `tollgate-timestamp`, `tollgate-signature`.
 * @throws TypeError when no key is given (a caller bug: every merchant has a current notify key).
 * @example
 * ```ts
 * import { unixSeconds } from '@tollgate/core';
 * import { buildNotificationRequest } from '@tollgate/core/gateway';
 * const { body, headers } = buildNotificationRequest({ notification, keys: [{ id: keyId, key: notifyHmacKey }], timestamp: unixSeconds(clock) });
 * ```
 */
export function buildNotificationRequest(params: {
  notification: MerchantNotification;
  keys: readonly NotificationKey[];
  timestamp: number;
}): SignedNotificationRequest {
  const body = serializeNotification(params.notification);
  const signature = signNotification({ body, keys: params.keys, timestamp: params.timestamp });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': notificationUserAgent,
      'idempotency-key': params.notification.id,
      'tollgate-event': params.notification.event,
      ...signature,
    },
  };
}

/**
 * The merchant's live notify keys, derived from the notify root: the current key first, then the
 * previous one while it is still live (a rotation in progress). Revoked keys never sign.
 *
 * @param merchant - The merchant as the store returns it (live credentials only).
 * @param notifyRoot - `GatewayKeys.notifyRoot`.
 * @returns The keys, possibly empty when the merchant has no live notify key.
 * @example
 * ```ts
 * import { liveNotifyKeys } from '@tollgate/core/gateway';
 * const keys = liveNotifyKeys(await store.getMerchant(merchantId), gatewayKeys.notifyRoot);
 * ```
 */
export function liveNotifyKeys(merchant: Pick<MerchantRecord, 'id' | 'credentials'>, notifyRoot: Uint8Array): NotificationKey[] {
  const rank = { current: 0, previous: 1 } as const;
  return merchant.credentials
    .filter((credential) => credential.kind === 'notify' && credential.status !== 'revoked')
    .sort((a, b) => rank[a.status as keyof typeof rank] - rank[b.status as keyof typeof rank])
    .map((credential) => ({ id: credential.id, key: deriveNotifyHmacKey(notifyRoot, merchant.id, credential.id) }));
}
