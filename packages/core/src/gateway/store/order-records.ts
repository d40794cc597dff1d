import type { NewRefRecord } from './records';

/**
 * The records of order mode the {@link OrderStore} keeps: orders, and the refund intents that pay an
 * order's payer back. Amounts are atomic units as decimal strings, addresses EIP-55 checksummed, times
 * `Date`s with millisecond precision.
 *
 * @module
 */

/**
 * Where an order stands, as stored. `expired` is derived, never stored: an `unpaid` order whose
 * `expiresAt` passed reads as `expired` ({@link orderStatusAt}).
 * - `unpaid` → `paid` (a payment of its ref settled) → `partially_refunded` → `refunded`;
 * - `unpaid` → `cancelled` (only while no payment of its ref is claimed).
 */
export type StoredOrderStatus = 'unpaid' | 'paid' | 'partially_refunded' | 'refunded' | 'cancelled';

/** An order's status as answered: the stored one, or `expired` for an unpaid order past its expiry. */
export type OrderStatus = StoredOrderStatus | 'expired';

/** An order. */
export interface OrderRecord {
  /** `ord_` + 32 lowercase hex digits. */
  readonly id: string;
  readonly merchantId: string;
  /** The fixed-amount payment ref created with the order. */
  readonly refId: string;
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  readonly amount: string;
  readonly invoiceId: string | null;
  readonly label: string | null;
  readonly description: string | null;
  /** JSON object text as the merchant sent it, or `null`. */
  readonly metadataJson: string | null;
  readonly notifyUrl: string | null;
  readonly status: StoredOrderStatus;
  /** Of the settled payment, once paid. */
  readonly paymentId: string | null;
  readonly payer: string | null;
  readonly txHash: string | null;
  readonly receiptHash: string | null;
  /** Reserved by open refund intents. */
  readonly refundReserved: string;
  /** Paid back by settled refunds. */
  readonly refunded: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly paidAt: Date | null;
  readonly cancelledAt: Date | null;
  readonly updatedAt: Date;
}

/** An order to create, with its ref (a fixed-amount payment ref of the same merchant, payTo, network, asset and amount). */
export interface NewOrder {
  readonly id: string;
  readonly merchantId: string;
  readonly ref: NewRefRecord;
  readonly description: string | null;
  readonly metadataJson: string | null;
  readonly now: Date;
}

/**
 * Where a refund intent stands:
 * - `open` → `paid` (its refund ref's payment settled: the amount moves from reserved to refunded);
 * - `open` → `rejected` (by the merchant, only while no payment of its ref is claimed);
 * - `open` → `expired` (its ref expired with no payment claimed; the reservation is released).
 */
export type RefundStatus = 'open' | 'paid' | 'rejected' | 'expired';

/** A refund intent, bound to the order's settled payment. */
export interface RefundRecord {
  /** `rfd_` + 32 lowercase hex digits. */
  readonly id: string;
  readonly orderId: string;
  readonly merchantId: string;
  /** The refund ref: pays `payer` from `payTo`, bound to `originalReceiptHash`. */
  readonly refId: string;
  readonly amount: string;
  /** `sha256:<hex>` of the original payment's receipt. */
  readonly originalReceiptHash: string;
  readonly originalPaymentId: string;
  /** Who receives the refund: the order's payer. */
  readonly payer: string;
  /** Who pays it: the order's payTo. */
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  readonly reason: string | null;
  readonly status: RefundStatus;
  /** Of the settled refund payment, once paid. */
  readonly paymentId: string | null;
  readonly txHash: string | null;
  readonly receiptHash: string | null;
  readonly rejectionReason: string | null;
  /** The rejected-refund receipt (JSON text) and its signature, once rejected. */
  readonly rejectionReceiptJson: string | null;
  readonly signedRejectionReceipt: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly paidAt: Date | null;
  readonly rejectedAt: Date | null;
  readonly updatedAt: Date;
}

/**
 * A refund intent to create, with its refund ref: `kind: 'refund'`, payTo = the order's payer,
 * `refundFrom` = the order's payTo, `refundOf` = the order's receipt hash, amount = the refund amount.
 */
export interface NewRefund {
  readonly id: string;
  readonly merchantId: string;
  readonly orderId: string;
  readonly amount: string;
  readonly reason: string | null;
  readonly ref: NewRefRecord & { readonly refundOf: string; readonly refundFrom: string };
  readonly now: Date;
}

/**
 * The order's status at `now`: `expired` for an unpaid order whose expiry passed, else the stored one.
 *
 * @param order - The order (its `status` and `expiresAt`).
 * @param now - The time to judge at.
 * @returns The status to answer.
 *
 * @example
 * ```ts
 * import { orderStatusAt } from '@tollgate/core/gateway';
 * orderStatusAt(order, new Date()); // 'expired' once an unpaid order's expiry passed
 * ```
 */
export function orderStatusAt(order: Pick<OrderRecord, 'status' | 'expiresAt'>, now: Date): OrderStatus {
  return order.status === 'unpaid' && order.expiresAt.getTime() <= now.getTime() ? 'expired' : order.status;
}
