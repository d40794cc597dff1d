import type { SqlClient } from '../../storage/sql-client';
import { orderNotificationJob } from '../notifications/notification-job';
import type { NewRefund, OrderRecord, RefundRecord } from './order-records';
import type { CreateRefundOutcome, RefundRejection, RejectRefundOutcome } from './order-store';
import { claimedPaymentSql, orderColumns, refundColumns, refundColumnsAt, toOrder, toRefund, type OrderRow, type RefundRow } from './sql-order-rows';
import { RollbackWith, transactionOr } from './sql-orders';
import { insertRefInTx } from './sql-refs';
import { insertJobSql, notificationIdSql, onConflictSql, optionalSql } from './sql-settlement-effects';

// The refund half of the OrderStore in SQL. Every writer takes the order row first (FOR UPDATE), then
// refund and ref rows: see sql-orders.ts for the lock order shared with cancellations and settlement.

const lockOrderSql = `SELECT ${orderColumns} FROM gateway_orders WHERE id = $1 AND merchant_id = $2 FOR UPDATE`;

// Statement 1 of the release of expired intents: their refs, locked. A claim holds its ref's share lock
// until it commits, so once these locks are ours every claim of them is committed (and seen by the next
// statement's snapshot) or waits for this transaction (and then finds its ref revoked).
const lockExpiredRefsSql = `SELECT f.id FROM gateway_refunds f JOIN gateway_refs r ON r.id = f.ref_id
  WHERE f.order_id = $1 AND f.status = 'open' AND f.expires_at <= $2 FOR UPDATE OF r`;

// Statement 2: of those, the intents with no claimed payment are expired, their refs revoked and their
// amounts released from the order's reservation.
const releaseExpiredSql = `
  WITH free AS (
    SELECT f.id, f.ref_id, f.amount FROM gateway_refunds f WHERE f.id = ANY($1::text[]) AND f.status = 'open' AND NOT ${claimedPaymentSql('f.ref_id')}
  ), revoked AS (
    UPDATE gateway_refs r SET status = 'revoked', revoked_at = COALESCE(r.revoked_at, $2) FROM free WHERE r.id = free.ref_id RETURNING r.id
  ), expired AS (
    UPDATE gateway_refunds f SET status = 'expired', updated_at = $2 FROM free WHERE f.id = free.id RETURNING f.id
  )
  UPDATE gateway_orders o SET refund_reserved = o.refund_reserved - (SELECT sum(amount) FROM free), updated_at = $2
  WHERE o.id = $3 AND EXISTS (SELECT 1 FROM free)`;

// The over-refund guard: one conditional UPDATE of the order row (the table's check backs it up).
const reserveSql = `UPDATE gateway_orders SET refund_reserved = refund_reserved + $2::numeric, updated_at = $3
  WHERE id = $1 AND status IN ('paid', 'partially_refunded') AND amount - refunded - refund_reserved >= $2::numeric
  RETURNING ${orderColumns}`;

const insertRefundSql = `
  INSERT INTO gateway_refunds (id, order_id, merchant_id, ref_id, amount, original_receipt_hash, original_payment_id, payer, pay_to, network,
    asset, reason, status, created_at, expires_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'open', $13, $14, $13)
  RETURNING ${refundColumns}`;

/** Releases the order's open intents past `now` whose refund ref has no claimed payment (see the statements above). */
async function releaseExpiredInTx(tx: SqlClient, orderId: string, now: Date): Promise<void> {
  const { rows } = await tx.query<{ id: string }>(lockExpiredRefsSql, [orderId, now]);
  if (rows.length === 0) return;
  await tx.query(releaseExpiredSql, [rows.map((row) => row.id), now, orderId]);
}

/** Throws unless the refund ref pays the order's payer back from its payTo, bound to its receipt, for the refund's amount. */
function assertRefundRef(refund: NewRefund, order: OrderRecord): void {
  const { ref } = refund;
  const bound =
    ref.merchantId === order.merchantId &&
    ref.payTo === order.payer &&
    ref.refundFrom === order.payTo &&
    ref.refundOf === `sha256:${order.receiptHash ?? ''}` &&
    ref.amount === refund.amount &&
    ref.network === order.network &&
    ref.asset === order.asset &&
    ref.invoiceId === null &&
    (ref.kind ?? 'refund') === 'refund';
  if (!bound) {
    throw new TypeError(
      'A refund ref pays the order’s payer (payTo) from the order’s payTo (refundFrom), names the order’s receipt (refundOf = sha256:<receiptHash>), ' +
        'has the refund’s amount, the order’s network and asset, and no invoice id.',
    );
  }
}

/**
 * `OrderStore.createRefund` in SQL, one transaction: the order row locked; the release of its expired
 * open intents; the reservation (the over-refund guard, one conditional UPDATE); the refund ref and the
 * intent. Concurrent refunds of one order serialise on its row, so they never reserve more than was paid.
 */
export function createRefundInSql(sql: SqlClient, refund: NewRefund): Promise<CreateRefundOutcome> {
  if (!/^[1-9][0-9]*$/.test(refund.amount)) return Promise.reject(new TypeError('A refund amount is a positive integer in atomic units.'));
  return sql.transaction(async (tx): Promise<CreateRefundOutcome> => {
    const locked = await tx.query<OrderRow>(lockOrderSql, [refund.orderId, refund.merchantId]);
    if (locked.rows[0] === undefined) return { kind: 'not_found' };
    const order = toOrder(locked.rows[0]);
    if (order.status !== 'paid' && order.status !== 'partially_refunded') return { kind: 'not_refundable', order };
    assertRefundRef(refund, order);
    await releaseExpiredInTx(tx, order.id, refund.now);
    const reserved = await tx.query<OrderRow>(reserveSql, [order.id, refund.amount, refund.now]);
    if (reserved.rows[0] === undefined) {
      const current = toOrder((await tx.query<OrderRow>(lockOrderSql, [order.id, order.merchantId])).rows[0] as OrderRow);
      const remaining = BigInt(current.amount) - BigInt(current.refunded) - BigInt(current.refundReserved);
      return { kind: 'exceeds_remaining', order: current, remaining: remaining.toString() };
    }
    const inserted = await insertRefInTx(tx, { ...refund.ref, kind: 'refund' });
    if (inserted.kind !== 'created') throw new Error('A refund ref has no invoice id, so it cannot conflict.');
    const { rows } = await tx.query<RefundRow>(insertRefundSql, [
      refund.id,
      order.id,
      order.merchantId,
      refund.ref.id,
      refund.amount,
      refund.ref.refundOf,
      order.paymentId,
      order.payer,
      order.payTo,
      order.network,
      order.asset,
      refund.reason,
      refund.now,
      refund.ref.expiresAt,
    ]);
    return { kind: 'created', refund: toRefund(rows[0] as RefundRow), order: toOrder(reserved.rows[0]) };
  });
}

/** `OrderStore.getRefund` in SQL (an open intent past its expiry with no claimed payment reads as `expired`). */
export async function getRefundInSql(sql: SqlClient, params: { merchantId: string; orderId: string; refundId: string; now: Date }): Promise<RefundRecord | undefined> {
  const { rows } = await sql.query<RefundRow>(
    `SELECT ${refundColumnsAt('$4')} FROM gateway_refunds f WHERE f.id = $1 AND f.order_id = $2 AND f.merchant_id = $3`,
    [params.refundId, params.orderId, params.merchantId, params.now],
  );
  return rows[0] === undefined ? undefined : toRefund(rows[0]);
}

/** `OrderStore.listRefunds` in SQL: the order and its refunds, oldest first, in one read. */
export async function listRefundsInSql(sql: SqlClient, params: { merchantId: string; orderId: string; now: Date }): Promise<RefundRecord[] | undefined> {
  const { rows } = await sql.query<RefundRow & { order_found: string }>(
    `SELECT o.id AS order_found, ${refundColumnsAt('$3')}
     FROM gateway_orders o LEFT JOIN gateway_refunds f ON f.order_id = o.id
     WHERE o.id = $1 AND o.merchant_id = $2 ORDER BY f.created_at, f.id`,
    [params.orderId, params.merchantId, params.now],
  );
  if (rows.length === 0) return undefined;
  return rows.filter((row) => row.id !== null).map(toRefund);
}

/** `OrderStore.getRefundByRef` in SQL: the stored record (no expiry judgement: the ref's own expiry is checked by the payment). */
export async function getRefundByRefInSql(sql: SqlClient, refId: string): Promise<RefundRecord | undefined> {
  const { rows } = await sql.query<RefundRow>(`SELECT ${refundColumns} FROM gateway_refunds WHERE ref_id = $1`, [refId]);
  return rows[0] === undefined ? undefined : toRefund(rows[0]);
}

// The rejection, the release of its reservation and the `refund.rejected` job, in one statement.
const rejectSql = `
  WITH rejected AS (
    UPDATE gateway_refunds f SET status = 'rejected', rejection_reason = $2, rejection_receipt = $3, signed_rejection_receipt = $4,
      rejected_at = $5, updated_at = $5
    WHERE f.id = $1 AND f.status = 'open' RETURNING f.*
  ), released AS (
    UPDATE gateway_orders o SET refund_reserved = o.refund_reserved - f.amount, updated_at = $5 FROM rejected f WHERE o.id = f.order_id RETURNING o.*
  ), job AS (
    ${insertJobSql}
    SELECT $6, jsonb_build_object('merchantId', o.merchant_id, 'refId', f.ref_id, 'url', o.notify_url, 'notification', jsonb_build_object(
        'event', 'refund.rejected', 'id', ${notificationIdSql('refund.rejected', 'f.id')}, 'createdAt', $7::bigint, 'data',
        jsonb_build_object('orderId', o.id, 'refundId', f.id, 'refId', f.ref_id, 'amount', f.amount::text, 'payer', f.payer, 'payTo', f.pay_to,
          'network', f.network, 'reason', f.rejection_reason, 'receipt', f.rejection_receipt::jsonb, 'signedReceipt', f.signed_rejection_receipt)
        || ${optionalSql('invoiceId', 'o.invoice_id')} || ${optionalSql('metadata', 'o.metadata', '::jsonb')})),
      $8, $9, $5, $5, $5
    FROM rejected f JOIN released o ON o.id = f.order_id
    ${onConflictSql}
  )
  SELECT ${refundColumns} FROM rejected`;

/**
 * `OrderStore.rejectRefund` in SQL, one transaction: the order row and the refund row locked; the refund
 * ref revoked (it waits for a claim holding the ref's share lock); then, in a later statement, its
 * claimed payments: one there rolls everything back (`payment_in_flight`). Else the rejection with its
 * receipt, the release and the `refund.rejected` job (`refund-rejected:<refundId>`) — or, for an intent
 * already past its expiry, its release as `expired` (`not_open`).
 */
export function rejectRefundInSql(sql: SqlClient, rejection: RefundRejection): Promise<RejectRefundOutcome> {
  return transactionOr(sql, async (tx): Promise<RejectRefundOutcome> => {
    const order = await tx.query<{ id: string }>(`SELECT id FROM gateway_orders WHERE id = $1 AND merchant_id = $2 FOR UPDATE`, [rejection.orderId, rejection.merchantId]);
    if (order.rows[0] === undefined) return { kind: 'not_found' };
    const locked = await tx.query<RefundRow>(`SELECT ${refundColumns} FROM gateway_refunds WHERE id = $1 AND order_id = $2 AND merchant_id = $3 FOR UPDATE`, [
      rejection.refundId,
      rejection.orderId,
      rejection.merchantId,
    ]);
    if (locked.rows[0] === undefined) return { kind: 'not_found' };
    const refund = toRefund(locked.rows[0]);
    if (refund.status === 'rejected') return { kind: 'already_rejected', refund };
    if (refund.status !== 'open') return { kind: 'not_open', refund };
    await tx.query(`UPDATE gateway_refs SET status = 'revoked', revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id`, [refund.refId, rejection.now]);
    const claimed = await tx.query<{ claimed: boolean }>(`SELECT ${claimedPaymentSql('$1::text')} AS claimed`, [refund.refId]);
    if (claimed.rows[0]?.claimed === true) throw new RollbackWith<RejectRefundOutcome>({ kind: 'payment_in_flight', refund });
    if (refund.expiresAt.getTime() <= rejection.now.getTime()) {
      await tx.query(releaseExpiredSql, [[refund.id], rejection.now, refund.orderId]);
      const expired = await tx.query<RefundRow>(`SELECT ${refundColumns} FROM gateway_refunds WHERE id = $1`, [refund.id]);
      return { kind: 'not_open', refund: toRefund(expired.rows[0] as RefundRow) };
    }
    const job = orderNotificationJob('refund.rejected', refund.id);
    const { rows } = await tx.query<RefundRow>(rejectSql, [
      refund.id,
      rejection.reason,
      rejection.receiptJson,
      rejection.signedReceipt,
      rejection.now,
      job.queue,
      Math.floor(rejection.now.getTime() / 1000),
      job.idempotencyKey,
      job.maxAttempts,
    ]);
    return { kind: 'rejected', refund: toRefund(rows[0] as RefundRow) };
  });
}
