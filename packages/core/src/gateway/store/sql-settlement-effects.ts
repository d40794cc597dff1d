import type { SqlParam } from '../../storage/sql-client';
import { orderNotificationJobPrefixes, paymentNotificationJob } from '../notifications/notification-job';
import type { PaymentCompletion } from './payment-records';
import { paymentColumns } from './sql-payment-rows';

// The completion of a payment as ONE statement: the payment's settled state, its notification, and the
// order-mode effects. A data-modifying CTE is atomic on its own, and one round trip instead of a
// transaction's several matters on the settlement path. Each effect reads `moved` (the payment row, only
// when this call moved it), so a repeated or concurrent completion applies nothing twice.
//
// Two statements, routed by the payment's `exclusive` flag (set by the claim exactly for payments of an
// order's ref or a refund ref, and never changed): planning the statement with the order-mode effects
// costs about ten times the plain one (~0.4 ms against ~0.04 ms on PostgreSQL 15, measured with
// EXPLAIN over warm caches), more than a local round trip. So every completion first runs the plain
// statement, which moves only a payment that is not exclusive; when it moves nothing, the full
// statement runs (and moves an exclusive payment with its effects, or nothing). A payment of neither
// kind pays nothing extra on its completion; an order or refund payment pays one cheap extra round
// trip; a repeated completion (which moves nothing) one more statement before it reads the payment.
//
// Lock order: the payment row (moved), then the order row, then the refund row (paid_refund joins the
// order update's output, so it cannot lock first). Every other writer of orders takes the order row first
// (sql-orders.ts), so none of them can wait on this statement while it waits on them.

/** `ntf_` + 32 hex of sha256(`tollgate/notification/v1:<event>:<id>`), as `orderNotificationId` computes it. */
export function notificationIdSql(event: keyof typeof orderNotificationJobPrefixes, idColumn: string): string {
  return `'ntf_' || left(encode(sha256(convert_to('tollgate/notification/v1:${event}:' || ${idColumn}, 'UTF8')), 'hex'), 32)`;
}

/** `{ "<key>": value }` when `column` is not null, else `{}` (optional fields are left out, never null). */
export function optionalSql(key: string, column: string, cast = ''): string {
  return `CASE WHEN ${column} IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('${key}', ${column}${cast}) END`;
}

/**
 * The `data` of `order.paid` / `order.refunded` (`OrderPaymentData`), from order row `o` and payment `m`.
 * The metadata cast cannot fail: the table's check keeps `metadata` a JSON object text.
 */
function paymentDataSql(amountColumn: string): string {
  return `jsonb_build_object('orderId', o.id, 'refId', m.ref_id, 'paymentId', m.payment_id, 'amount', ${amountColumn}::text,
      'payer', o.payer, 'payTo', o.pay_to, 'network', o.network, 'txHash', m.tx_hash, 'receiptHash', m.receipt_hash,
      'receipt', m.receipt::jsonb, 'signedReceipt', m.signed_receipt)
    || ${optionalSql('invoiceId', 'o.invoice_id')} || ${optionalSql('metadata', 'o.metadata', '::jsonb')}`;
}

/** A notification job row (`NotificationJob`) for `tollgate_jobs`, to the order's notify URL (else the merchant's webhook). */
function jobPayloadSql(event: keyof typeof orderNotificationJobPrefixes, subjectColumn: string, refIdColumn: string, data: string): string {
  return `jsonb_build_object('merchantId', o.merchant_id, 'refId', ${refIdColumn}, 'url', o.notify_url, 'notification', jsonb_build_object(
      'event', '${event}', 'id', ${notificationIdSql(event, subjectColumn)}, 'createdAt', $15::bigint, 'data', ${data}))`;
}

/** The head of a job insert into `tollgate_jobs`. */
export const insertJobSql = 'INSERT INTO tollgate_jobs (queue, payload, idempotency_key, max_attempts, run_at, created_at, updated_at)';
/** An enqueue that finds its idempotency key taken inserts nothing. */
export const onConflictSql = 'ON CONFLICT (queue, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING';

const moveSql = `UPDATE gateway_payments SET state = 'settled', lease_token = NULL, lease_until = NULL, tx_hash = $2, block_number = $3,
      receipt_hash = $4, receipt = $5, signed_receipt = $6, answer_outcome = $7, answer_header = $8, answer_body = $9,
      error_reason = NULL, updated_at = $10, completed_at = $10
    WHERE payment_id = $1 AND state IN ('processing', 'pending')`;

const notifySql = `${insertJobSql}
    SELECT $11, $12::jsonb, $13, $14, $10, $10, $10 FROM moved WHERE $12::jsonb IS NOT NULL
    ${onConflictSql}`;

/**
 * The completion of a payment that is not `exclusive` (parameters: the first 14 of
 * {@link completePaymentParams}): the statement of a payment of neither kind, nothing more. No row back
 * means the payment is exclusive, or already final, or unknown: {@link completePaymentSql} tells.
 */
export const completePlainPaymentSql = `
  WITH moved AS (
    ${moveSql} AND NOT exclusive RETURNING ${paymentColumns}
  ), notified AS (
    ${notifySql}
  )
  SELECT * FROM moved`;

/** The completion of an `exclusive` payment, with the order-mode effects (parameters: {@link completePaymentParams}). */
export const completePaymentSql = `
  WITH moved AS (
    ${moveSql} RETURNING ${paymentColumns}
  ), notified AS (
    ${notifySql}
  ), paid_order AS (
    -- The chain is the truth: a settled payment of the order's ref makes it paid from unpaid, expired
    -- (unpaid past its expiry) or cancelled alike (the claim protocol keeps the last from happening).
    UPDATE gateway_orders o SET status = 'paid', payment_id = m.payment_id, payer = m.payer, tx_hash = m.tx_hash,
      receipt_hash = m.receipt_hash, paid_at = $10, cancelled_at = NULL, updated_at = $10
    FROM moved m WHERE o.ref_id = m.ref_id AND o.status IN ('unpaid', 'cancelled')
    RETURNING o.*
  ), order_paid_job AS (
    ${insertJobSql}
    SELECT $11, ${jobPayloadSql('order.paid', 'o.id', 'o.ref_id', paymentDataSql('o.amount'))},
      '${orderNotificationJobPrefixes['order.paid']}:' || o.id, $14, $10, $10, $10
    FROM paid_order o CROSS JOIN moved m
    ${onConflictSql}
  ), refund_intent AS (
    -- An open intent's amount moves from reserved to refunded. A rejected or expired one (closed after
    -- the merchant's refund was mined: recovery claims it, see 008_recorded_after_close.sql) released
    -- its reservation already: its amount is only added to refunded, and an order that then holds more
    -- than its amount in refunds and reservations is marked over-refunded, never refused.
    SELECT f.id, f.order_id, f.amount, CASE WHEN f.status = 'open' THEN f.amount ELSE 0 END AS released
    FROM gateway_refunds f JOIN moved m ON f.ref_id = m.ref_id WHERE f.status IN ('open', 'rejected', 'expired')
  ), refunded_order AS (
    UPDATE gateway_orders o SET refund_reserved = o.refund_reserved - i.released, refunded = o.refunded + i.amount,
      status = CASE WHEN o.refunded + i.amount >= o.amount THEN 'refunded' ELSE 'partially_refunded' END,
      over_refunded_at = CASE WHEN o.refunded + i.amount + o.refund_reserved - i.released > o.amount THEN COALESCE(o.over_refunded_at, $10)
        ELSE o.over_refunded_at END,
      updated_at = $10
    FROM refund_intent i WHERE o.id = i.order_id AND o.status IN ('paid', 'partially_refunded', 'refunded')
    RETURNING o.*, i.id AS refund_id, i.amount AS refund_amount
  ), paid_refund AS (
    UPDATE gateway_refunds f SET status = 'paid', payment_id = m.payment_id, tx_hash = m.tx_hash, receipt_hash = m.receipt_hash,
      paid_at = $10, updated_at = $10
    FROM refunded_order o CROSS JOIN moved m WHERE f.id = o.refund_id
    RETURNING f.id
  ), order_refunded_job AS (
    ${insertJobSql}
    SELECT $11, ${jobPayloadSql(
      'order.refunded',
      'o.refund_id',
      'm.ref_id',
      `${paymentDataSql('o.refund_amount')} || jsonb_build_object('refundId', o.refund_id, 'refunded', o.refunded::text,
        'remaining', GREATEST(o.amount - o.refunded - o.refund_reserved, 0)::text, 'status', o.status)`,
    )},
      '${orderNotificationJobPrefixes['order.refunded']}:' || o.refund_id, $14, $10, $10, $10
    FROM refunded_order o CROSS JOIN moved m
    ${onConflictSql}
  )
  SELECT * FROM moved`;

/**
 * The parameters of {@link completePaymentSql}: the completion, its `payment.settled` job (when any) and
 * the notification time in Unix seconds.
 */
export function completePaymentParams(completion: PaymentCompletion): SqlParam[] {
  const { answer } = completion;
  const job = paymentNotificationJob(completion.paymentId);
  return [
    completion.paymentId,
    completion.txHash,
    completion.blockNumber,
    completion.receiptHash,
    completion.receiptJson,
    completion.signedReceipt,
    answer.outcome,
    answer.paymentResponse,
    answer.body,
    completion.now,
    job.queue,
    completion.notification === null ? null : JSON.stringify(completion.notification),
    job.idempotencyKey,
    job.maxAttempts,
    Math.floor(completion.now.getTime() / 1000),
  ];
}
