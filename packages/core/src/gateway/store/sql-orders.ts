import type { SqlClient, SqlParam } from '../../storage/sql-client';
import type { NewOrder, OrderRecord } from './order-records';
import type { CancelOrderOutcome, CreateOrderOutcome, ListOrdersQuery } from './order-store';
import { claimedPaymentSql, orderColumns, orderColumnsAt, toOrder, type OrderRow } from './sql-order-rows';
import { checkPayToInTx, insertRefInTx } from './sql-refs';

// The order half of the OrderStore in SQL. Locking order, shared by every writer of order state so
// that no two of them can wait on each other: the order row first, then a refund row, then a ref row.
// The settlement statement (sql-settlement-effects.ts) takes the payment row, then the order row, then
// the refund row; the claim takes only the ref row (FOR SHARE) and inserts the payment.

const insertOrderSql = `
  INSERT INTO gateway_orders (id, merchant_id, ref_id, pay_to, network, asset, amount, invoice_id, label, description, metadata, notify_url,
    status, refund_reserved, refunded, created_at, expires_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'unpaid', 0, 0, $13, $14, $13)
  RETURNING ${orderColumns}`;

/**
 * Thrown inside a transaction to roll it back and answer `outcome` instead (the SqlClient rolls back
 * when the callback throws): how a revocation that found a claimed payment is undone.
 */
export class RollbackWith<Outcome> extends Error {
  constructor(readonly outcome: Outcome) {
    super('rolled back on purpose');
  }
}

/** Runs `fn` in a transaction; a {@link RollbackWith} it throws rolls back and becomes the answer. */
export async function transactionOr<Outcome>(sql: SqlClient, fn: (tx: SqlClient) => Promise<Outcome>): Promise<Outcome> {
  try {
    return await sql.transaction(fn);
  } catch (error) {
    if (error instanceof RollbackWith) return error.outcome as Outcome;
    throw error;
  }
}

/**
 * `OrderStore.createOrder` in SQL: one transaction with the payTo checks of `RefStore.createRef`, the
 * ref, and the order, which copies the ref's terms (payTo, network, asset, amount, invoice id, label,
 * notify URL, expiry).
 */
export function createOrderInSql(sql: SqlClient, order: NewOrder): Promise<CreateOrderOutcome> {
  const { ref } = order;
  if (ref.amount === null || (ref.kind ?? 'payment') !== 'payment' || ref.merchantId !== order.merchantId) {
    return Promise.reject(new TypeError('An order needs a fixed-amount payment ref of its own merchant.'));
  }
  return sql.transaction(async (tx): Promise<CreateOrderOutcome> => {
    const refused = await checkPayToInTx(tx, ref);
    if (refused !== undefined) return refused;
    const inserted = await insertRefInTx(tx, ref);
    if (inserted.kind !== 'created') return inserted;
    const { rows } = await tx.query<OrderRow>(insertOrderSql, [
      order.id,
      order.merchantId,
      ref.id,
      ref.payTo,
      ref.network,
      ref.asset,
      ref.amount,
      ref.invoiceId,
      ref.label,
      order.description,
      order.metadataJson,
      ref.notifyUrl,
      order.now,
      ref.expiresAt,
    ]);
    return { kind: 'created', order: toOrder(rows[0] as OrderRow) };
  });
}

/** `OrderStore.getOrder` in SQL. */
export async function getOrderInSql(sql: SqlClient, params: { merchantId: string; orderId: string; now?: Date }): Promise<OrderRecord | undefined> {
  const { rows } =
    params.now === undefined
      ? await sql.query<OrderRow>(`SELECT ${orderColumns} FROM gateway_orders WHERE id = $1 AND merchant_id = $2`, [params.orderId, params.merchantId])
      : await sql.query<OrderRow>(`SELECT ${orderColumnsAt('$3')} FROM gateway_orders o WHERE o.id = $1 AND o.merchant_id = $2`, [
          params.orderId,
          params.merchantId,
          params.now,
        ]);
  return rows[0] === undefined ? undefined : toOrder(rows[0]);
}

/**
 * `OrderStore.listOrders` in SQL: keyset pagination on `(created_at, id)`, newest first. `expired` and
 * `unpaid` split the stored `unpaid` status at `now`.
 */
export async function listOrdersInSql(sql: SqlClient, query: ListOrdersQuery): Promise<OrderRecord[]> {
  const params: SqlParam[] = [query.merchantId, query.limit, query.now];
  const where = ['merchant_id = $1'];
  if (query.status !== undefined) {
    params.push(query.status === 'expired' ? 'unpaid' : query.status);
    where.push(`status = $${params.length}`);
    if (query.status === 'expired' || query.status === 'unpaid') where.push(`expires_at ${query.status === 'expired' ? '<=' : '>'} $3::timestamptz`);
  }
  if (query.before !== undefined) {
    params.push(query.before.createdAt, query.before.orderId);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`);
  }
  const { rows } = await sql.query<OrderRow>(
    `SELECT ${orderColumnsAt('$3')} FROM gateway_orders o WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $2`,
    params,
  );
  return rows.map(toOrder);
}

/**
 * `OrderStore.cancelOrder` in SQL, one transaction: the order row locked, the ref revoked (an UPDATE:
 * it waits for a claim holding the ref's share lock to commit), then — in a later statement, whose
 * snapshot sees every claim committed before the revocation — the claimed payments of the ref: one
 * there rolls everything back (`payment_in_flight`); none there cancels the order. A claim arriving
 * after the revocation waits for this transaction and then finds the ref revoked.
 */
export function cancelOrderInSql(sql: SqlClient, params: { merchantId: string; orderId: string; now: Date }): Promise<CancelOrderOutcome> {
  return transactionOr(sql, async (tx): Promise<CancelOrderOutcome> => {
    const locked = await tx.query<OrderRow>(`SELECT ${orderColumns} FROM gateway_orders WHERE id = $1 AND merchant_id = $2 FOR UPDATE`, [
      params.orderId,
      params.merchantId,
    ]);
    const row = locked.rows[0];
    if (row === undefined) return { kind: 'not_found' };
    const order = toOrder(row);
    if (order.status === 'cancelled') return { kind: 'already_cancelled', order };
    if (order.status !== 'unpaid' || order.expiresAt.getTime() <= params.now.getTime()) return { kind: 'not_cancellable', order };
    await tx.query(`UPDATE gateway_refs SET status = 'revoked', revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id`, [order.refId, params.now]);
    const claimed = await tx.query<{ claimed: boolean }>(`SELECT ${claimedPaymentSql('$1::text')} AS claimed`, [order.refId]);
    if (claimed.rows[0]?.claimed === true) throw new RollbackWith<CancelOrderOutcome>({ kind: 'payment_in_flight', order });
    const cancelled = await tx.query<OrderRow>(
      `UPDATE gateway_orders SET status = 'cancelled', cancelled_at = $2, updated_at = $2 WHERE id = $1 RETURNING ${orderColumns}`,
      [order.id, params.now],
    );
    return { kind: 'cancelled', order: toOrder(cancelled.rows[0] as OrderRow) };
  });
}
