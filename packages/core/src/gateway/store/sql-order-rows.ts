import type { OrderRecord, RefundRecord, RefundStatus, StoredOrderStatus } from './order-records';

// Row shapes of gateway_orders and gateway_refunds as the SqlClient decodes them (numeric → string,
// timestamptz → Date) and their mapping to records.

/** Columns of `gateway_orders` in select order (qualified by `o.` where a query joins). */
export const orderColumns = `id, merchant_id, ref_id, pay_to, network, asset, amount, invoice_id, label, description, metadata, notify_url, status,
  payment_id, payer, tx_hash, receipt_hash, refund_reserved, refunded, created_at, expires_at, paid_at, cancelled_at, updated_at`;

/**
 * {@link orderColumns} of `gateway_orders o` as read at `nowParam`: `refund_reserved` leaves out what
 * open intents past their expiry with no claimed payment hold (they are released, and stored so, by the
 * next write on the order), so a read never shows a reservation that no longer binds anything.
 */
export function orderColumnsAt(nowParam: string): string {
  const expiredHeld = `COALESCE((SELECT sum(f.amount) FROM gateway_refunds f WHERE f.order_id = o.id AND f.status = 'open'
    AND f.expires_at <= ${nowParam}::timestamptz AND NOT ${claimedPaymentSql('f.ref_id')}), 0)`;
  return orderColumns
    .split(',')
    .map((column) => column.trim())
    .map((column) => (column === 'refund_reserved' ? `o.refund_reserved - ${expiredHeld} AS refund_reserved` : `o.${column}`))
    .join(', ');
}

/** A column list (such as {@link refundColumns}), each column prefixed with `alias.`. */
export function qualifiedColumns(columns: string, alias: string): string {
  return columns
    .split(',')
    .map((column) => `${alias}.${column.trim()}`)
    .join(', ');
}

/** A `gateway_orders` row. */
export interface OrderRow {
  id: string;
  merchant_id: string;
  ref_id: string;
  pay_to: string;
  network: string;
  asset: string;
  amount: string;
  invoice_id: string | null;
  label: string | null;
  description: string | null;
  metadata: string | null;
  notify_url: string | null;
  status: StoredOrderStatus;
  payment_id: string | null;
  payer: string | null;
  tx_hash: string | null;
  receipt_hash: string | null;
  refund_reserved: string;
  refunded: string;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  cancelled_at: Date | null;
  updated_at: Date;
  [column: string]: unknown;
}

/** Maps an order row. */
export function toOrder(row: OrderRow): OrderRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    refId: row.ref_id,
    payTo: row.pay_to,
    network: row.network,
    asset: row.asset,
    amount: row.amount,
    invoiceId: row.invoice_id,
    label: row.label,
    description: row.description,
    metadataJson: row.metadata,
    notifyUrl: row.notify_url,
    status: row.status,
    paymentId: row.payment_id,
    payer: row.payer,
    txHash: row.tx_hash,
    receiptHash: row.receipt_hash,
    refundReserved: row.refund_reserved,
    refunded: row.refunded,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    paidAt: row.paid_at,
    cancelledAt: row.cancelled_at,
    updatedAt: row.updated_at,
  };
}

/** Columns of `gateway_refunds` in select order. */
export const refundColumns = `id, order_id, merchant_id, ref_id, amount, original_receipt_hash, original_payment_id, payer, pay_to, network, asset,
  reason, status, payment_id, tx_hash, receipt_hash, rejection_reason, rejection_receipt, signed_rejection_receipt, created_at, expires_at,
  paid_at, rejected_at, updated_at`;

/** A `gateway_refunds` row. */
export interface RefundRow {
  id: string;
  order_id: string;
  merchant_id: string;
  ref_id: string;
  amount: string;
  original_receipt_hash: string;
  original_payment_id: string;
  payer: string;
  pay_to: string;
  network: string;
  asset: string;
  reason: string | null;
  status: RefundStatus;
  payment_id: string | null;
  tx_hash: string | null;
  receipt_hash: string | null;
  rejection_reason: string | null;
  rejection_receipt: string | null;
  signed_rejection_receipt: string | null;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  rejected_at: Date | null;
  updated_at: Date;
  [column: string]: unknown;
}

/** Maps a refund row. */
export function toRefund(row: RefundRow): RefundRecord {
  return {
    id: row.id,
    orderId: row.order_id,
    merchantId: row.merchant_id,
    refId: row.ref_id,
    amount: row.amount,
    originalReceiptHash: row.original_receipt_hash,
    originalPaymentId: row.original_payment_id,
    payer: row.payer,
    payTo: row.pay_to,
    network: row.network,
    asset: row.asset,
    reason: row.reason,
    status: row.status,
    paymentId: row.payment_id,
    txHash: row.tx_hash,
    receiptHash: row.receipt_hash,
    rejectionReason: row.rejection_reason,
    rejectionReceiptJson: row.rejection_receipt,
    signedRejectionReceipt: row.signed_rejection_receipt,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    paidAt: row.paid_at,
    rejectedAt: row.rejected_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Whether ref `<alias>.ref_id` has a claimed payment that can still end up on chain (processing,
 * pending) or is there (settled). A failed payment never changes again, so it blocks nothing.
 */
export function claimedPaymentSql(refIdColumn: string): string {
  return `EXISTS (SELECT 1 FROM gateway_payments p WHERE p.ref_id = ${refIdColumn} AND p.state <> 'failed')`;
}

/**
 * A refund's status as read at `$now` (parameter `nowParam`): an open intent past its expiry with no
 * claimed payment reads as `expired` (it is released, and stored so, by the next write on its order).
 */
export function refundStatusAtSql(alias: string, nowParam: string): string {
  return `CASE WHEN ${alias}.status = 'open' AND ${alias}.expires_at <= ${nowParam}::timestamptz AND NOT ${claimedPaymentSql(`${alias}.ref_id`)}
    THEN 'expired' ELSE ${alias}.status END`;
}

/** {@link refundColumns} of alias `f` with the status as read at `nowParam` ({@link refundStatusAtSql}). */
export function refundColumnsAt(nowParam: string): string {
  return qualifiedColumns(refundColumns, 'f').replace('f.status', `${refundStatusAtSql('f', nowParam)} AS status`);
}
