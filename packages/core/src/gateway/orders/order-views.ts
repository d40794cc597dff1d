import { epochSeconds } from '../service-deps';
import { orderStatusAt, type OrderRecord, type OrderStatus, type RefundRecord, type RefundStatus } from '../store/order-records';

/** The settled payment of an order. */
export interface OrderPaymentView {
  readonly paymentId: string;
  readonly payer: string;
  readonly txHash: string;
  /** The receipt's hash, 64 lowercase hex digits (what `refundOf=sha256:<receiptHash>` names). */
  readonly receiptHash: string;
}

/**
 * An order as every order route answers it. Times are unix seconds (like refs); amounts atomic decimal
 * strings; a field without a value is `null`, never absent.
 */
export interface OrderView {
  /** `ord_` + 32 hex digits. */
  readonly orderId: string;
  /** `expired` for an unpaid order past `expiresAt`. */
  readonly status: OrderStatus;
  readonly amount: string;
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  readonly invoiceId: string | null;
  readonly label: string | null;
  readonly description: string | null;
  readonly metadata: Record<string, string> | null;
  readonly notifyUrl: string | null;
  /** The order's fixed-amount ref (an ordinary ref: `GET /ref/:refId` shows its snapshot). */
  readonly refId: string;
  /** `<origin>/ref/<refId>`. */
  readonly refUrl: string;
  /** `<origin>/pay/<refId>`: the page a payer's wallet signs on. */
  readonly payUrl: string;
  /** `<origin>/receive/<payTo>?ref=<refId>`: where an x402 client pays. */
  readonly receiveUrl: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly paidAt: number | null;
  readonly cancelledAt: number | null;
  readonly payment: OrderPaymentView | null;
  /** Paid back by settled refunds. */
  readonly refunded: string;
  /** Held by open refund intents. */
  readonly refundReserved: string;
  /** What a new refund intent may still take: amount − refunded − reserved once paid, else `"0"`. */
  readonly refundable: string;
}

/** The settled payment of a refund (the merchant's transfer back to the payer). */
export interface RefundPaymentView {
  readonly paymentId: string;
  readonly txHash: string;
  /** The refund receipt's hash, 64 lowercase hex digits. */
  readonly receiptHash: string;
}

/** The rejection of a refund: the signed rejected-refund receipt, answered the same on every read. */
export interface RefundRejectionView {
  readonly reason: string | null;
  readonly rejectedAt: number;
  readonly receipt: unknown;
  readonly signedReceipt: string;
}

/** A refund intent as every refund route answers it (times unix seconds, `null` for no value). */
export interface RefundView {
  /** `rfd_` + 32 hex digits. */
  readonly refundId: string;
  readonly orderId: string;
  readonly status: RefundStatus;
  readonly amount: string;
  /** Who receives the refund: the order's payer. */
  readonly payer: string;
  /** Who pays it: the order's payTo (the only payer the refund ref accepts). */
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  /** `sha256:<hex>` of the order's payment receipt. */
  readonly refundOf: string;
  /** The refund ref. */
  readonly refId: string;
  /** `<origin>/receive/<payer>?ref=<refId>&refundOf=sha256:<hex>`: where the merchant pays the refund. */
  readonly receiveUrl: string;
  readonly reason: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly paidAt: number | null;
  readonly payment: RefundPaymentView | null;
  readonly rejection: RefundRejectionView | null;
}

/**
 * A receipt hash as 64 hex digits, whether stored bare or as `sha256:<hex>`.
 *
 * @param stored - The stored hash.
 * @returns The hex digits.
 * @example
 * ```ts
 * import { receiptHashHex } from '@tollgate/core/gateway';
 * receiptHashHex('sha256:ab…'); // 'ab…'
 * ```
 */
export function receiptHashHex(stored: string): string {
  return stored.startsWith('sha256:') ? stored.slice('sha256:'.length) : stored;
}

const seconds = (date: Date | null) => (date === null ? null : epochSeconds(date));

/**
 * What an order can still refund: amount − refunded − reserved when paid or partially refunded, else 0.
 *
 * @param order - The order.
 * @returns Atomic units, decimal string.
 * @example
 * ```ts
 * import { refundableOf } from '@tollgate/core/gateway';
 * refundableOf(order); // '7500'
 * ```
 */
export function refundableOf(order: Pick<OrderRecord, 'status' | 'amount' | 'refunded' | 'refundReserved'>): string {
  if (order.status !== 'paid' && order.status !== 'partially_refunded') return '0';
  const left = BigInt(order.amount) - BigInt(order.refunded) - BigInt(order.refundReserved);
  // Below zero only on an over-refunded order (a refund the chain showed after its intent was closed).
  return (left > 0n ? left : 0n).toString();
}

/**
 * The answer for an order at `now` (its derived status, URLs under `origin`).
 *
 * @param order - The stored order.
 * @param origin - The gateway's public origin.
 * @param now - The time its status is judged at.
 * @returns The view.
 * @example
 * ```ts
 * import { orderView } from '@tollgate/core/gateway';
 * const body = orderView(order, 'https://pay.example.com', new Date());
 * ```
 */
export function orderView(order: OrderRecord, origin: string, now: Date): OrderView {
  const paid = order.paymentId !== null && order.payer !== null && order.txHash !== null && order.receiptHash !== null;
  return {
    orderId: order.id,
    status: orderStatusAt(order, now),
    amount: order.amount,
    payTo: order.payTo,
    network: order.network,
    asset: order.asset,
    invoiceId: order.invoiceId,
    label: order.label,
    description: order.description,
    metadata: order.metadataJson === null ? null : (JSON.parse(order.metadataJson) as Record<string, string>),
    notifyUrl: order.notifyUrl,
    refId: order.refId,
    refUrl: `${origin}/ref/${order.refId}`,
    payUrl: `${origin}/pay/${order.refId}`,
    receiveUrl: `${origin}/receive/${order.payTo}?ref=${order.refId}`,
    createdAt: epochSeconds(order.createdAt),
    expiresAt: epochSeconds(order.expiresAt),
    paidAt: seconds(order.paidAt),
    cancelledAt: seconds(order.cancelledAt),
    payment: paid
      ? { paymentId: order.paymentId as string, payer: order.payer as string, txHash: order.txHash as string, receiptHash: receiptHashHex(order.receiptHash as string) }
      : null,
    refunded: order.refunded,
    refundReserved: order.refundReserved,
    refundable: refundableOf(order),
  };
}

/**
 * The receive URL of a refund: `<origin>/receive/<payer>?ref=<refId>&refundOf=<sha256:hex>`.
 *
 * @param origin - The gateway's public origin.
 * @param refund - The payer, the refund ref and the original receipt's hash.
 * @returns The URL.
 * @example
 * ```ts
 * import { refundReceiveUrl } from '@tollgate/core/gateway';
 * refundReceiveUrl('https://pay.example.com', { payer, refId, refundOf: `sha256:${hash}` });
 * ```
 */
export function refundReceiveUrl(origin: string, refund: { readonly payer: string; readonly refId: string; readonly refundOf: string }): string {
  return `${origin}/receive/${refund.payer}?ref=${refund.refId}&refundOf=${refund.refundOf}`;
}

/**
 * The answer for a refund intent.
 *
 * @param refund - The stored refund (its status already judged by the store).
 * @param origin - The gateway's public origin.
 * @returns The view.
 * @example
 * ```ts
 * import { refundView } from '@tollgate/core/gateway';
 * const body = refundView(refund, 'https://pay.example.com');
 * ```
 */
export function refundView(refund: RefundRecord, origin: string): RefundView {
  const refundOf = `sha256:${receiptHashHex(refund.originalReceiptHash)}`;
  const paid = refund.paymentId !== null && refund.txHash !== null && refund.receiptHash !== null;
  const rejected = refund.rejectedAt !== null && refund.rejectionReceiptJson !== null && refund.signedRejectionReceipt !== null;
  return {
    refundId: refund.id,
    orderId: refund.orderId,
    status: refund.status,
    amount: refund.amount,
    payer: refund.payer,
    payTo: refund.payTo,
    network: refund.network,
    asset: refund.asset,
    refundOf,
    refId: refund.refId,
    receiveUrl: refundReceiveUrl(origin, { payer: refund.payer, refId: refund.refId, refundOf }),
    reason: refund.reason,
    createdAt: epochSeconds(refund.createdAt),
    expiresAt: epochSeconds(refund.expiresAt),
    paidAt: seconds(refund.paidAt),
    payment: paid ? { paymentId: refund.paymentId as string, txHash: refund.txHash as string, receiptHash: receiptHashHex(refund.receiptHash as string) } : null,
    rejection: rejected
      ? {
          reason: refund.rejectionReason,
          rejectedAt: epochSeconds(refund.rejectedAt as Date),
          receipt: JSON.parse(refund.rejectionReceiptJson as string) as unknown,
          signedReceipt: refund.signedRejectionReceipt as string,
        }
      : null,
  };
}
