import type { NewOrder, NewRefund, OrderRecord, OrderStatus, RefundRecord } from './order-records';

/** What {@link OrderStore.createOrder} did (the ref outcomes are those of `RefStore.createRef`). */
export type CreateOrderOutcome =
  | { readonly kind: 'created'; readonly order: OrderRecord }
  | { readonly kind: 'payto_not_found' }
  | { readonly kind: 'payto_retired' }
  | { readonly kind: 'invoice_taken'; readonly refId: string };

/** What {@link OrderStore.cancelOrder} did. */
export type CancelOrderOutcome =
  | { readonly kind: 'cancelled'; readonly order: OrderRecord }
  /** Already cancelled: the same answer again (idempotent). */
  | { readonly kind: 'already_cancelled'; readonly order: OrderRecord }
  /** Paid, refunded, or expired: nothing changed. */
  | { readonly kind: 'not_cancellable'; readonly order: OrderRecord }
  /** A payment of its ref is claimed (in flight, pending or settled): nothing changed. */
  | { readonly kind: 'payment_in_flight'; readonly order: OrderRecord }
  | { readonly kind: 'not_found' };

/** What {@link OrderStore.createRefund} did. */
export type CreateRefundOutcome =
  | { readonly kind: 'created'; readonly refund: RefundRecord; readonly order: OrderRecord }
  /** The order is not paid or partially refunded (unpaid, cancelled, refunded). */
  | { readonly kind: 'not_refundable'; readonly order: OrderRecord }
  /** More than what is left: `remaining` = amount − refunded − reserved (after releasing expired intents). */
  | { readonly kind: 'exceeds_remaining'; readonly order: OrderRecord; readonly remaining: string }
  | { readonly kind: 'not_found' };

/** What {@link OrderStore.rejectRefund} did. */
export type RejectRefundOutcome =
  | { readonly kind: 'rejected'; readonly refund: RefundRecord }
  /** Already rejected: the stored receipt again (idempotent). */
  | { readonly kind: 'already_rejected'; readonly refund: RefundRecord }
  /** Paid or expired: nothing changed. */
  | { readonly kind: 'not_open'; readonly refund: RefundRecord }
  /** A payment of its refund ref is claimed: nothing changed. */
  | { readonly kind: 'payment_in_flight'; readonly refund: RefundRecord }
  | { readonly kind: 'not_found' };

/** A page request of {@link OrderStore.listOrders}: newest first, strictly after `before` when given. */
export interface ListOrdersQuery {
  readonly merchantId: string;
  /** Only orders with this status at `now` (`expired`: unpaid past expiry; `unpaid`: unpaid not yet expired). */
  readonly status?: OrderStatus;
  readonly now: Date;
  readonly limit: number;
  readonly before?: { readonly createdAt: Date; readonly orderId: string };
}

/** The rejected-refund receipt to store with a rejection (built and signed by the caller). */
export interface RefundRejection {
  readonly merchantId: string;
  readonly orderId: string;
  readonly refundId: string;
  readonly reason: string | null;
  readonly receiptJson: string;
  readonly signedReceipt: string;
  readonly now: Date;
}

/**
 * Port: the order aggregate — orders and their refund intents, over the same database as refs and
 * payments. Implementation: `createSqlOrderStore(sql)`; check others with `describeOrderStoreConformance`.
 *
 * Contract:
 * - **Tenancy.** Every method matches on the merchant id (and a refund on its order id too) and treats
 *   another merchant's order or refund exactly like a missing one.
 * - **Atomic creation.** `createOrder` inserts the ref and the order in one transaction (with the
 *   ref's payTo checks of `RefStore.createRef`); `createRefund` inserts the refund ref, the intent and
 *   the order's reservation in one transaction.
 * - **No over-refund, ever.** `createRefund` reserves its amount on the order row in one conditional
 *   statement (amount − refunded − reserved ≥ the refund), so concurrent intents serialise on the row;
 *   the table's check makes reserved + refunded ≤ amount whatever any statement does.
 * - **Payments and intents cannot cross.** `cancelOrder` and `rejectRefund` (and the release of an
 *   expired intent) revoke the ref first, under its row lock, and then look for a claimed payment of
 *   it, refusing with `payment_in_flight` if there is one; `PaymentStore.claimPayment` takes a share
 *   lock on the ref it claims against. So a payment is either claimed before (and the cancel or
 *   rejection refused) or refused after (the ref is revoked): never both.
 * - **Settlement drives the state**, in the same statement as `PaymentStore.completePayment`: a payment
 *   of an order's ref moves it to `paid` (whatever it was: the chain is the truth); a payment of a
 *   refund ref moves the intent to `paid` and its amount from reserved to refunded, and the order to
 *   `partially_refunded` or `refunded`. Both enqueue the merchant notification (`order.paid`,
 *   `order.refunded`) with the payment's.
 * - **One payment per order or refund ref.** `PaymentStore.claimPayment` lets one payment of an order's
 *   ref or a refund ref be claimed at a time (`ref_used` for any other); a failed payment frees it.
 * - **Expiry.** An `open` intent past its expiry with no claimed payment reads as `expired` in
 *   `getRefund`/`listRefunds`; it is released (stored `expired`, its ref revoked, its amount no longer
 *   reserved) by the next `createRefund` or `rejectRefund` of its order, under the same protocol as a
 *   rejection. Until then the order's `refundReserved` still counts it.
 * - **Idempotency.** Cancelling a cancelled order and rejecting a rejected refund answer the stored
 *   record again without change.
 * - **Ordering.** `listOrders` newest first by `(createdAt, id)`; `listRefunds` oldest first.
 */
export interface OrderStore {
  /**
   * Creates an order and its ref (see the contract). The ref must be a fixed-amount payment ref of the
   * order's merchant and `metadataJson` a JSON object text (else the promise rejects: a caller bug). The
   * order takes the ref's payTo, network, asset, amount, invoice id, label, notify URL and expiry.
   */
  createOrder(order: NewOrder): Promise<CreateOrderOutcome>;
  /**
   * The merchant's order. With `now`, `refundReserved` leaves out what open intents past their expiry
   * with no claimed payment still hold (they are released, and stored so, by the next write on the
   * order); without it, the stored value.
   */
  getOrder(params: { merchantId: string; orderId: string; now?: Date }): Promise<OrderRecord | undefined>;
  /** A page of the merchant's orders (`refundReserved` as {@link OrderStore.getOrder} reads it at `now`). */
  listOrders(query: ListOrdersQuery): Promise<OrderRecord[]>;
  /** Cancels an unpaid, unexpired order whose ref has no claimed payment, and revokes its ref. */
  cancelOrder(params: { merchantId: string; orderId: string; now: Date }): Promise<CancelOrderOutcome>;
  /**
   * Creates a refund intent and its refund ref, reserving its amount (see the contract). The refund ref
   * must pay the order's payer (`payTo`) from the order's payTo (`refundFrom`), name the order's receipt
   * (`refundOf` = `sha256:<receiptHash>`), carry the refund's amount, the order's network and asset and no
   * invoice id (else the promise rejects: a caller bug). The intent expires with its ref.
   */
  createRefund(refund: NewRefund): Promise<CreateRefundOutcome>;
  /** The merchant's refund of the order (an `open` intent past its expiry with no claimed payment reads as `expired`). */
  getRefund(params: { merchantId: string; orderId: string; refundId: string; now: Date }): Promise<RefundRecord | undefined>;
  /** The order's refunds, oldest first (`undefined` when the merchant has no such order). */
  listRefunds(params: { merchantId: string; orderId: string; now: Date }): Promise<RefundRecord[] | undefined>;
  /** Rejects an open refund whose ref has no claimed payment: revokes the ref, releases the reservation, stores the receipt. */
  rejectRefund(rejection: RefundRejection): Promise<RejectRefundOutcome>;
  /** The refund intent whose refund ref is `refId` (any merchant): what a refund payment is checked against. */
  getRefundByRef(refId: string): Promise<RefundRecord | undefined>;
}
