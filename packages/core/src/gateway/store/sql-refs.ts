import type { SqlClient, SqlParam } from '../../storage/sql-client';
import type { PaymentStatus, PaymentTarget } from './payment-records';
import type { NewRefRecord, PayToStatus, RefRecord, RefStatus } from './records';
import type { CreateRefOutcome, ListRefsQuery } from './ref-store';
import { refColumns, toRef, type RefRow } from './sql-rows';

// ON CONFLICT names the partial unique index by its columns and predicate: a second active ref with
// the same invoice id inserts nothing (after waiting for a concurrent insert to commit or roll back).
const insertRefSql = `
  INSERT INTO gateway_refs (id, kind, refund_of, refund_from, merchant_id, pay_to, network, asset, amount, invoice_id, label, notify_url,
    snapshot, status, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'active', $14, $15)
  ON CONFLICT (merchant_id, invoice_id) WHERE invoice_id IS NOT NULL AND status = 'active' DO NOTHING
  RETURNING ${refColumns}`;

/** The insert's parameters; a ref that leaves out its kind is a payment ref. */
export function refInsertValues(ref: NewRefRecord): SqlParam[] {
  return [
    ref.id,
    ref.kind ?? 'payment',
    ref.refundOf ?? null,
    ref.refundFrom ?? null,
    ref.merchantId,
    ref.payTo,
    ref.network,
    ref.asset,
    ref.amount,
    ref.invoiceId,
    ref.label,
    ref.notifyUrl,
    ref.snapshotJson,
    ref.createdAt,
    ref.expiresAt,
  ];
}

/**
 * Inserts a ref inside the caller's transaction, keeping `invoiceId` unique among the merchant's active
 * refs. The caller checks the payTo first (a payment ref) or needs none (a refund ref pays the payer).
 *
 * @param tx - A transaction-scoped client.
 * @param ref - The ref to insert.
 * @returns The created ref, or the active ref holding its invoice id.
 */
export async function insertRefInTx(tx: SqlClient, ref: NewRefRecord): Promise<Extract<CreateRefOutcome, { kind: 'created' | 'invoice_taken' }>> {
  const values = refInsertValues(ref);
  // The holder of the invoice id can be revoked between the conflict and the read: insert again then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await tx.query<RefRow>(insertRefSql, values);
    const row = inserted.rows[0];
    if (row !== undefined) return { kind: 'created', ref: toRef(row) };
    const holder = await tx.query<{ id: string }>(
      `SELECT id FROM gateway_refs WHERE merchant_id = $1 AND invoice_id = $2 AND status = 'active'`,
      [ref.merchantId, ref.invoiceId],
    );
    const refId = holder.rows[0]?.id;
    if (refId !== undefined) return { kind: 'invoice_taken', refId };
  }
  throw new Error('The invoice id kept changing hands while creating the ref.');
}

/**
 * The payTo checks of a payment ref inside the caller's transaction: a `FOR SHARE` lock on the payTo
 * row (so a concurrent retirement waits or is waited for), then ownership and status.
 *
 * @param tx - A transaction-scoped client.
 * @param ref - The merchant and payTo of the ref to create.
 * @returns `undefined` when the payTo is the merchant's and active, else the refusal.
 */
export async function checkPayToInTx(
  tx: SqlClient,
  ref: Pick<NewRefRecord, 'merchantId' | 'payTo'>,
): Promise<Extract<CreateRefOutcome, { kind: 'payto_not_found' | 'payto_retired' }> | undefined> {
  const payTo = await tx.query<{ merchant_id: string; status: string }>('SELECT merchant_id, status FROM gateway_pay_tos WHERE address = $1 FOR SHARE', [
    ref.payTo,
  ]);
  const owner = payTo.rows[0];
  if (owner === undefined || owner.merchant_id !== ref.merchantId) return { kind: 'payto_not_found' };
  if (owner.status !== 'active') return { kind: 'payto_retired' };
  return undefined;
}

/**
 * `RefStore.createRef` in SQL: in one transaction, the payTo checks ({@link checkPayToInTx}), then the
 * insert ({@link insertRefInTx}). Refund refs are created by `OrderStore.createRefund` only.
 *
 * @param sql - Database with the gateway migrations.
 * @param ref - The ref to create.
 * @returns What happened.
 */
export function createRefInSql(sql: SqlClient, ref: NewRefRecord): Promise<CreateRefOutcome> {
  if (ref.kind === 'refund') return Promise.reject(new TypeError('Refund refs are created with their refund intent (OrderStore.createRefund).'));
  return sql.transaction(async (tx) => (await checkPayToInTx(tx, ref)) ?? (await insertRefInTx(tx, ref)));
}

/** `RefStore.getRef` in SQL. */
export async function getRefInSql(sql: SqlClient, id: string): Promise<RefRecord | undefined> {
  const { rows } = await sql.query<RefRow>(`SELECT ${refColumns} FROM gateway_refs WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : toRef(rows[0]);
}

/**
 * `RefStore.listRefs` in SQL: keyset pagination on `(created_at, id)`, newest first. Refund refs are
 * left out: they pay an order's payer back (their payTo is the payer's address), they are not refs the
 * merchant receives on; the merchant reads them through its order's refunds.
 */
export async function listRefsInSql(sql: SqlClient, query: ListRefsQuery): Promise<RefRecord[]> {
  const params: SqlParam[] = [query.merchantId, query.payTo, query.limit];
  let after = '';
  if (query.before !== undefined) {
    params.push(query.before.createdAt, query.before.refId);
    after = 'AND (created_at, id) < ($4::timestamptz, $5::text)';
  }
  const { rows } = await sql.query<RefRow>(
    `SELECT ${refColumns} FROM gateway_refs WHERE merchant_id = $1 AND pay_to = $2 AND kind = 'payment' ${after}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    params,
  );
  return rows.map(toRef);
}

/** `RefStore.revokeRef` in SQL: idempotent, keeps the first revocation time. */
export async function revokeRefInSql(sql: SqlClient, params: { merchantId: string; refId: string; now: Date }): Promise<RefRecord | undefined> {
  const { rows } = await sql.query<RefRow>(
    // An order's ref and a refund ref change state only with their order or intent (cancel, reject).
    `UPDATE gateway_refs SET status = 'revoked', revoked_at = COALESCE(revoked_at, $3)
     WHERE id = $1 AND merchant_id = $2 AND kind = 'payment' AND NOT EXISTS (SELECT 1 FROM gateway_orders o WHERE o.ref_id = gateway_refs.id)
     RETURNING ${refColumns}`,
    [params.refId, params.merchantId, params.now],
  );
  return rows[0] === undefined ? undefined : toRef(rows[0]);
}

// A refund ref pays the order's payer, an address no merchant registered: it has no payTo row, and its
// payTo counts as active (the payer cannot retire anything; the refund's sender is checked by refundFrom).
/** The payTo status of ref `r` joined by {@link payToJoinSql}: a refund ref's counts as active. */
export const payToStatusSql = `CASE WHEN r.kind = 'refund' THEN 'active' ELSE p.status END`;
/** Joins ref `r` to its payTo row `p` (none for a refund ref). */
export const payToJoinSql = `LEFT JOIN gateway_pay_tos p ON p.address = r.pay_to AND r.kind = 'payment'`;

/** `RefStore.getPaymentTarget` in SQL: the ref and its payTo's status, one indexed join. */
export async function getPaymentTargetInSql(sql: SqlClient, refId: string): Promise<PaymentTarget | undefined> {
  const { rows } = await sql.query<RefRow & { pay_to_status: PayToStatus }>(
    `SELECT ${refColumns.split(', ').map((column) => `r.${column}`).join(', ')}, ${payToStatusSql} AS pay_to_status
     FROM gateway_refs r ${payToJoinSql} WHERE r.id = $1`,
    [refId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { ref: toRef(row), payToStatus: row.pay_to_status };
}

/** `RefStore.getPaymentStatus` in SQL: two status columns, one indexed join. */
export async function getPaymentStatusInSql(sql: SqlClient, refId: string): Promise<PaymentStatus | undefined> {
  const { rows } = await sql.query<{ ref_status: RefStatus; pay_to_status: PayToStatus }>(
    `SELECT r.status AS ref_status, ${payToStatusSql} AS pay_to_status FROM gateway_refs r ${payToJoinSql} WHERE r.id = $1`,
    [refId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { refStatus: row.ref_status, payToStatus: row.pay_to_status };
}
