import { createSqlJobQueue } from '../../storage/jobs/sql-job-queue';
import type { SqlClient } from '../../storage/sql-client';
import { enqueueSettlementRecovery } from '../payments/recovery-job';
import type {
  EvidenceScan,
  NewPaymentClaim,
  PaymentClaimOutcome,
  PaymentCompletion,
  PaymentFailure,
  PaymentLookup,
  PaymentRecord,
  PaymentTransition,
} from './payment-records';
import { frozenClock, paymentColumns, toPayment, type PaymentRow } from './sql-payment-rows';
import { completePaymentParams, completePaymentSql, completePlainPaymentSql } from './sql-settlement-effects';
import { getPaymentStatusInSql, payToJoinSql, payToStatusSql } from './sql-refs';

// The row holding the id wins over the row holding the authorization: a replay is recognised by its id.
const findSql = `SELECT ${paymentColumns} FROM gateway_payments
  WHERE payment_id = $1 OR (chain_id = $2 AND payer = $3 AND nonce = $4)
  ORDER BY (payment_id = $1) DESC LIMIT 1`;

// The claim is taken only while the ref is active and its payTo is not retired, read in the same
// statement: no separate status read, and no window between checking and claiming. FOR SHARE holds the
// ref row until the claim commits: a cancel or rejection revokes the ref (UPDATE, so it waits for the
// claim) before it looks for claims, and a claim that waited on a revocation re-reads the ref's status
// and inserts nothing. So a payment and a cancel or rejection never both succeed (see OrderStore).
// A transfer the chain shows mined at $17 (recovery only; NULL otherwise) is also claimed on a ref revoked,
// or a payTo retired, at or after that time: revoking or retiring blocks future payments only, and never
// un-records one already mined (a payer's authorization executed directly on chain before an order was
// cancelled; a refund the merchant executed before rejecting it).
const payableSql = (minedAt: string) =>
  `(r.status = 'active' OR r.revoked_at >= ${minedAt}::timestamptz)
   AND (${payToStatusSql} = 'active' OR p.retired_at >= ${minedAt}::timestamptz)`;

// A payment of a refund ref or of an order's ref is `exclusive`: the partial unique index on
// (ref_id) WHERE exclusive AND state <> 'failed' lets one at a time be claimed (007_exclusive_refs.sql).
const insertSql = `INSERT INTO gateway_payments (payment_id, ref_id, merchant_id, network, chain_id, pay_to, payer, amount, nonce,
    valid_before, fingerprint, state, lease_token, lease_until, created_at, updated_at, valid_after, settle_started_at, exclusive)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'processing', $12, $13, $14, $14, $15, CASE WHEN $16::boolean THEN $14::timestamptz END,
    r.kind = 'refund' OR EXISTS (SELECT 1 FROM gateway_orders o WHERE o.ref_id = r.id)
  FROM gateway_refs r ${payToJoinSql}
  WHERE r.id = $2 AND ${payableSql('$17')}
  FOR SHARE OF r
  ON CONFLICT DO NOTHING
  RETURNING ${paymentColumns}`;

/** `PaymentStore.findPayment` in SQL. */
export async function findPaymentInSql(sql: SqlClient, lookup: PaymentLookup): Promise<PaymentRecord | undefined> {
  const { rows } = await sql.query<PaymentRow>(findSql, [lookup.paymentId, lookup.chainId, lookup.payer, lookup.nonce]);
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/** `PaymentStore.getPayment` in SQL. */
export async function getPaymentInSql(sql: SqlClient, paymentId: string): Promise<PaymentRecord | undefined> {
  const { rows } = await sql.query<PaymentRow>(`SELECT ${paymentColumns} FROM gateway_payments WHERE payment_id = $1`, [paymentId]);
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/**
 * `PaymentStore.claimPayment` in SQL: `INSERT … SELECT … ON CONFLICT DO NOTHING` (a concurrent insert of
 * the same id or authorization, or of another payment of the same exclusive ref, waits for the first to
 * commit, then inserts nothing), then the holder is read in a new snapshot: the payment holding the id or
 * authorization (`existing`), else a ref no longer payable (statuses only ever move away from `active`),
 * else the payment holding the exclusive ref (`ref_used`). A holder released in between is retried.
 */
export async function claimPaymentInSql(sql: SqlClient, claim: NewPaymentClaim): Promise<PaymentClaimOutcome> {
  const values = [
    claim.paymentId,
    claim.refId,
    claim.merchantId,
    claim.network,
    claim.chainId,
    claim.payTo,
    claim.payer,
    claim.amount,
    claim.nonce,
    claim.validBefore,
    claim.fingerprint,
    claim.leaseToken,
    claim.leaseUntil,
    claim.now,
    claim.validAfter,
    claim.settleStarted === true,
    claim.minedAt ?? null,
  ];
  for (let attempt = 0; attempt < 5; attempt++) {
    const inserted = await sql.query<PaymentRow>(insertSql, values);
    if (inserted.rows[0] !== undefined) return { kind: 'claimed', payment: toPayment(inserted.rows[0]) };
    const existing = await findPaymentInSql(sql, claim);
    if (existing !== undefined) return { kind: 'existing', payment: existing };
    const status = await getPaymentStatusInSql(sql, claim.refId);
    if (status === undefined || status.refStatus !== 'active' || status.payToStatus !== 'active') {
      if (claim.minedAt === undefined || !(await payableWhenMined(sql, claim.refId, claim.minedAt))) return { kind: 'not_payable', status };
    }
    const holder = await sql.query<PaymentRow>(
      `SELECT ${paymentColumns} FROM gateway_payments WHERE ref_id = $1 AND exclusive AND state <> 'failed' LIMIT 1`,
      [claim.refId],
    );
    if (holder.rows[0] !== undefined) return { kind: 'ref_used', holder: toPayment(holder.rows[0]) };
  }
  throw new Error('The payment claim kept conflicting with claims that were released at once.');
}

/** Whether the ref was still open (not revoked, its payTo not retired) when a transfer was mined at `minedAt`. */
async function payableWhenMined(sql: SqlClient, refId: string, minedAt: Date): Promise<boolean> {
  const { rows } = await sql.query(`SELECT 1 FROM gateway_refs r ${payToJoinSql} WHERE r.id = $1 AND ${payableSql('$2')}`, [refId, minedAt]);
  return rows.length > 0;
}

/** `PaymentStore.startSettle` in SQL. */
export async function startSettleInSql(sql: SqlClient, params: { paymentId: string; leaseToken: string; now: Date }): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE gateway_payments SET settle_started_at = COALESCE(settle_started_at, $3), updated_at = $3
     WHERE payment_id = $1 AND state = 'processing' AND lease_token = $2 AND lease_until > $3`,
    [params.paymentId, params.leaseToken, params.now],
  );
  return rowCount === 1;
}

/** `PaymentStore.recordTxHash` in SQL: the first hash stays. */
export async function recordTxHashInSql(sql: SqlClient, params: { paymentId: string; txHash: string; now: Date }): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE gateway_payments SET tx_hash = $2, updated_at = $3
     WHERE payment_id = $1 AND state IN ('processing', 'pending') AND tx_hash IS NULL`,
    [params.paymentId, params.txHash, params.now],
  );
  return rowCount === 1;
}

/** `PaymentStore.recordEvidenceScan` in SQL: the window's bounds are kept once known, the scanned range is replaced. */
export async function recordEvidenceScanInSql(sql: SqlClient, params: { paymentId: string; scan: EvidenceScan }): Promise<boolean> {
  const { scan } = params;
  const { rowCount } = await sql.query(
    `UPDATE gateway_payments SET
       evidence_window_low = COALESCE(evidence_window_low, $2::bigint),
       evidence_window_high = COALESCE(evidence_window_high, $3::bigint),
       evidence_scanned_low = $4::bigint, evidence_scanned_high = $5::bigint
     WHERE payment_id = $1 AND state IN ('processing', 'pending')`,
    [params.paymentId, scan.windowLow, scan.windowHigh, scan.scanned?.low ?? null, scan.scanned?.high ?? null],
  );
  return rowCount === 1;
}

/** `PaymentStore.listAbandonedPayments` in SQL (served by the partial index on processing leases). */
export async function listAbandonedPaymentsInSql(sql: SqlClient, params: { now: Date; limit: number }): Promise<PaymentRecord[]> {
  const { rows } = await sql.query<PaymentRow>(
    `SELECT ${paymentColumns} FROM gateway_payments WHERE state = 'processing' AND lease_until <= $1 ORDER BY lease_until, payment_id LIMIT $2`,
    [params.now, params.limit],
  );
  return rows.map(toPayment);
}

/** `PaymentStore.releasePayment` in SQL. */
export async function releasePaymentInSql(sql: SqlClient, params: { paymentId: string; leaseToken: string; settleNeverCalled?: boolean }): Promise<boolean> {
  const { rowCount } = await sql.query(
    `DELETE FROM gateway_payments WHERE payment_id = $1 AND state = 'processing' AND lease_token = $2 AND (settle_started_at IS NULL OR $3)`,
    [params.paymentId, params.leaseToken, params.settleNeverCalled === true],
  );
  return rowCount === 1;
}

/** `PaymentStore.takeOverPayment` in SQL. */
export async function takeOverPaymentInSql(
  sql: SqlClient,
  params: { paymentId: string; leaseToken: string; leaseUntil: Date; now: Date },
): Promise<PaymentRecord | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    `UPDATE gateway_payments SET lease_token = $2, lease_until = $3, updated_at = $4
     WHERE payment_id = $1 AND state = 'processing' AND lease_until <= $4 RETURNING ${paymentColumns}`,
    [params.paymentId, params.leaseToken, params.leaseUntil, params.now],
  );
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/** `PaymentStore.markPaymentPending` in SQL: the transition and the recovery job in one transaction. */
export function markPaymentPendingInSql(sql: SqlClient, params: { paymentId: string; txHash: string | null; now: Date }): Promise<PaymentTransition | undefined> {
  return sql.transaction(async (tx) => {
    const moved = await tx.query<PaymentRow>(
      `UPDATE gateway_payments SET state = 'pending', lease_token = NULL, lease_until = NULL,
         settle_started_at = COALESCE(settle_started_at, $3), tx_hash = COALESCE(tx_hash, $2), updated_at = $3
       WHERE payment_id = $1 AND state = 'processing' RETURNING ${paymentColumns}`,
      [params.paymentId, params.txHash, params.now],
    );
    if (moved.rows[0] !== undefined) {
      await enqueueSettlementRecovery(createSqlJobQueue(tx, { clock: frozenClock(params.now) }), params.paymentId);
      return { changed: true, payment: toPayment(moved.rows[0]) };
    }
    // Already pending: a hash learnt later (a replay's facilitator answer) is still worth keeping.
    const pending = await tx.query<PaymentRow>(
      `UPDATE gateway_payments SET tx_hash = COALESCE(tx_hash, $2)
       WHERE payment_id = $1 AND state = 'pending' RETURNING ${paymentColumns}`,
      [params.paymentId, params.txHash],
    );
    if (pending.rows[0] !== undefined) return { changed: false, payment: toPayment(pending.rows[0]) };
    const current = await getPaymentInSql(tx, params.paymentId);
    return current === undefined ? undefined : { changed: false, payment: current };
  });
}

/**
 * `PaymentStore.completePayment` in SQL: the settled state, receipt and answer, the notification job, and
 * the order-mode effects (an order paid, a refund intent paid and its amount moved from reserved to
 * refunded, their notification jobs), in one statement; which statement depends on the payment's
 * `exclusive` flag (see sql-settlement-effects.ts).
 */
export async function completePaymentInSql(sql: SqlClient, completion: PaymentCompletion): Promise<PaymentTransition | undefined> {
  const params = completePaymentParams(completion);
  const plain = await sql.query<PaymentRow>(completePlainPaymentSql, params.slice(0, 14));
  if (plain.rows[0] !== undefined) return { changed: true, payment: toPayment(plain.rows[0]) };
  const full = await sql.query<PaymentRow>(completePaymentSql, params);
  if (full.rows[0] !== undefined) return { changed: true, payment: toPayment(full.rows[0]) };
  const current = await getPaymentInSql(sql, completion.paymentId);
  return current === undefined ? undefined : { changed: false, payment: current };
}

/** `PaymentStore.failPayment` in SQL. */
export async function failPaymentInSql(sql: SqlClient, failure: PaymentFailure): Promise<PaymentTransition | undefined> {
  const { answer } = failure;
  const moved = await sql.query<PaymentRow>(
    `UPDATE gateway_payments SET state = 'failed', lease_token = NULL, lease_until = NULL, tx_hash = COALESCE($3, tx_hash),
       answer_outcome = $4, answer_header = $5, answer_body = $6, error_reason = $2, updated_at = $7, completed_at = $7
     WHERE payment_id = $1 AND state IN ('processing', 'pending') RETURNING ${paymentColumns}`,
    [failure.paymentId, failure.errorReason, failure.txHash, answer.outcome, answer.paymentResponse, answer.body, failure.now],
  );
  if (moved.rows[0] !== undefined) return { changed: true, payment: toPayment(moved.rows[0]) };
  const current = await getPaymentInSql(sql, failure.paymentId);
  return current === undefined ? undefined : { changed: false, payment: current };
}
