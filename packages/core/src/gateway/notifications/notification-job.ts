import type { JobQueue } from '../../storage/jobs/job-queue';
import type { MerchantNotification } from '../../x402/notifications/order-payloads';

/** The job queue merchant notifications travel through. */
export const notificationQueue = 'gateway.notifications';

/**
 * What a notification job carries: everything needed to deliver it later, on any instance, even if the
 * ref or merchant changed meanwhile. The body is fixed when the payment settles (its `id` is the
 * receiver's deduplication key); the signing keys are resolved at delivery time, so a notify-key rotation
 * between settlement and delivery signs with the keys that are live then.
 */
export interface NotificationJob {
  merchantId: string;
  refId: string;
  /**
   * The ref's `notifyUrl` when it has one. `null` means the merchant's webhook URL as registered at
   * delivery time (and no delivery at all when the merchant has none).
   */
  url: string | null;
  /** The body: `payment.settled`, or an order-mode event (`order.paid`, `order.refunded`, `refund.rejected`). */
  notification: MerchantNotification;
}

/**
 * Enqueues the notification of a settled payment, at most once per payment (the idempotency key is the
 * payment id). Call it with a queue bound to the same transaction that records the settlement, so a
 * settlement is never recorded without its notification, nor the reverse.
 *
 * @param jobs - A job queue (`createSqlJobQueue(tx, { clock })` inside the settlement transaction).
 * @param paymentId - The payment's id (deduplication across retries of the settlement write).
 * @param job - The notification and where it goes.
 * @returns Whether a new job was created (`false` when this payment's notification already exists).
 *
 * @example
 * ```ts
 * import { createSqlJobQueue } from '@tollgate/core/storage';
 * import { enqueuePaymentNotification } from '@tollgate/core/gateway';
 * await sql.transaction(async (tx) => {
 *   // … record the settlement …
 *   await enqueuePaymentNotification(createSqlJobQueue(tx, { clock }), paymentId, { merchantId, refId, url, notification });
 * });
 * ```
 */
export async function enqueuePaymentNotification(jobs: JobQueue, paymentId: string, job: NotificationJob): Promise<boolean> {
  const { queue, idempotencyKey, maxAttempts } = paymentNotificationJob(paymentId);
  const { created } = await jobs.enqueue(queue, job, { idempotencyKey, maxAttempts });
  return created;
}

/**
 * The queue, idempotency key and attempt budget of a payment's notification job: what
 * {@link enqueuePaymentNotification} uses, for stores that enqueue in the same SQL statement as the
 * settlement write.
 *
 * @param paymentId - The payment's id.
 * @returns The job's fixed fields.
 * @example
 * ```ts
 * import { paymentNotificationJob } from '@tollgate/core/gateway';
 * paymentNotificationJob('pay_123').idempotencyKey; // 'payment:pay_123'
 * ```
 */
export function paymentNotificationJob(paymentId: string): { queue: string; idempotencyKey: string; maxAttempts: number } {
  return { queue: notificationQueue, idempotencyKey: `payment:${paymentId}`, maxAttempts: 12 };
}

/** The idempotency-key prefix of each order-mode notification job (`<prefix>:<order or refund id>`). */
export const orderNotificationJobPrefixes = { 'order.paid': 'order-paid', 'order.refunded': 'order-refunded', 'refund.rejected': 'refund-rejected' } as const;

/**
 * The queue, idempotency key and attempt budget of an order-mode notification job, enqueued by the
 * stores in the same statement or transaction as the change it reports: `order-paid:<orderId>`,
 * `order-refunded:<refundId>`, `refund-rejected:<refundId>` (one job per order or refund, ever).
 *
 * @param event - The event kind.
 * @param subjectId - The order id (`order.paid`) or the refund id.
 * @returns The job's fixed fields.
 * @example
 * ```ts
 * import { orderNotificationJob } from '@tollgate/core/gateway';
 * orderNotificationJob('order.paid', 'ord_123').idempotencyKey; // 'order-paid:ord_123'
 * ```
 */
export function orderNotificationJob(
  event: keyof typeof orderNotificationJobPrefixes,
  subjectId: string,
): { queue: string; idempotencyKey: string; maxAttempts: number } {
  return { queue: notificationQueue, idempotencyKey: `${orderNotificationJobPrefixes[event]}:${subjectId}`, maxAttempts: paymentNotificationJob('').maxAttempts };
}
