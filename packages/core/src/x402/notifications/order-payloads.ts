import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import type { PaymentSettledNotification } from './payload';

/**
 * The merchant notifications of order mode (gateway orders and refund intents). Like `payment.settled`
 * they are POSTed as JSON to the order's `notifyUrl` (its ref's) or the merchant's webhook URL, signed
 * with `signNotification`, with `Idempotency-Key: <id>` and `Tollgate-Event: <event>`. The gateway
 * builds them in the same database statement or transaction as the state change they report, so a
 * merchant is notified of every paid order, paid refund and rejected refund exactly as stored.
 *
 * Amounts are atomic units of the asset as decimal strings; addresses are EIP-55 checksummed as the
 * gateway stored them; `createdAt` is Unix seconds of the state change.
 *
 * @module
 */

/** The event kinds of merchant notifications. */
export const merchantNotificationEvents = ['payment.settled', 'order.paid', 'order.refunded', 'refund.rejected'] as const;

/** One of {@link merchantNotificationEvents}. */
export type MerchantNotificationEvent = (typeof merchantNotificationEvents)[number];

/** What `order.paid` and `order.refunded` say about the payment that settled. */
export interface OrderPaymentData {
  /** The order (`ord_…`). */
  orderId: string;
  /** The ref the payment settled through: the order's ref (`order.paid`) or the refund ref (`order.refunded`). */
  refId: string;
  /** The settled payment's id. */
  paymentId: string;
  /** The order's invoice id, when it has one. */
  invoiceId?: string;
  /** What this payment moved: the order's amount (`order.paid`) or the refund's (`order.refunded`). */
  amount: string;
  /** The order's payer: who paid the order, and who receives its refunds. */
  payer: string;
  /** The order's payTo: who was paid, and who pays its refunds back. */
  payTo: string;
  /** The gateway network name (`base`, `local`). */
  network: string;
  /** The settlement transaction of this payment. */
  txHash: string;
  /** Hex hash of this payment's receipt (`receipt` below): a payment receipt, or a refund receipt. */
  receiptHash: string;
  /** The receipt as issued (a payment receipt for `order.paid`, an `x402.refund.receipt` for `order.refunded`). */
  receipt: Record<string, unknown>;
  /** The gateway's signature over `receiptHash` (verify it like any Tollgate receipt). */
  signedReceipt: string;
  /** The order's metadata object, when it has one. */
  metadata?: Record<string, unknown>;
}

/** `order.paid`: the order's payment settled; the order is `paid`. */
export interface OrderPaidNotification {
  event: 'order.paid';
  /** `ntf_` + 32 hex: {@link orderNotificationId}(`order.paid`, orderId), the same on every retry. */
  id: string;
  /** Unix seconds when the payment was recorded settled. */
  createdAt: number;
  data: OrderPaymentData;
}

/** `order.refunded`: a refund intent's payment settled; the order is `partially_refunded` or `refunded`. */
export interface OrderRefundedNotification {
  event: 'order.refunded';
  /** {@link orderNotificationId}(`order.refunded`, refundId). */
  id: string;
  createdAt: number;
  data: OrderPaymentData & {
    /** The refund intent (`rfd_…`). */
    refundId: string;
    /** What the order has been refunded in all, this refund included. */
    refunded: string;
    /** What can still be refunded: amount − refunded − reserved by open intents. */
    remaining: string;
    /** The order's status after this refund. */
    status: 'partially_refunded' | 'refunded';
  };
}

/** `refund.rejected`: the merchant rejected a refund intent; its reservation is released. */
export interface RefundRejectedNotification {
  event: 'refund.rejected';
  /** {@link orderNotificationId}(`refund.rejected`, refundId). */
  id: string;
  /** Unix seconds of the rejection. */
  createdAt: number;
  data: {
    orderId: string;
    refundId: string;
    /** The refund ref, revoked by the rejection. */
    refId: string;
    invoiceId?: string;
    /** The amount that was asked for. */
    amount: string;
    payer: string;
    payTo: string;
    network: string;
    /** The merchant's reason, or `null`. */
    reason: string | null;
    /** The signed rejected-refund receipt (`x402.refund.rejected`) the payer can be given. */
    receipt: Record<string, unknown>;
    signedReceipt: string;
    metadata?: Record<string, unknown>;
  };
}

/** Any merchant notification the gateway delivers. */
export type MerchantNotification = PaymentSettledNotification | OrderPaidNotification | OrderRefundedNotification | RefundRejectedNotification;

/**
 * The id of an order-mode notification: `ntf_` + the first 32 hex digits of
 * sha256(`tollgate/notification/v1:<event>:<subject id>`), the subject being the order (`order.paid`)
 * or the refund intent (`order.refunded`, `refund.rejected`). The stores compute the same in SQL.
 *
 * @param event - The event kind.
 * @param subjectId - The order id or refund id.
 * @returns The notification id.
 * @example
 * ```ts
 * import { orderNotificationId } from '@tollgate/core/x402';
 * orderNotificationId('order.paid', 'ord_7d5d747be160e280504c099d984bcfe0'); // 'ntf_…'
 * ```
 */
export function orderNotificationId(event: Exclude<MerchantNotificationEvent, 'payment.settled'>, subjectId: string): string {
  return `ntf_${hexEncode(sha256(utf8Encode(`tollgate/notification/v1:${event}:${subjectId}`))).slice(0, 32)}`;
}

/**
 * The notification's JSON body. Sign and send exactly these bytes: the signature covers the raw body.
 *
 * @param notification - The notification (any event kind).
 * @returns Its JSON text.
 *
 * @example
 * ```ts
 * import { serializeNotification } from '@tollgate/core/x402';
 * const body = serializeNotification(notification);
 * ```
 */
export function serializeNotification(notification: MerchantNotification): string {
  return JSON.stringify(notification);
}
