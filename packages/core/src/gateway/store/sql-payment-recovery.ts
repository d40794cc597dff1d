import { createSqlJobQueue } from '../../storage/jobs/sql-job-queue';
import type { SqlClient } from '../../storage/sql-client';
import { enqueueSettlementRecovery, settlementRecoveryQueue } from '../payments/recovery-job';
import type { PaymentRecord } from './payment-records';
import { frozenClock, paymentColumns, toPayment, type PaymentRow } from './sql-payment-rows';

// The idempotency key of a payment's current recovery job, as `settlementRecoveryJobKey` spells it.
const currentJobKey = `'recovery:' || p.payment_id || CASE WHEN p.recovery_generation = 0 THEN '' ELSE ':' || p.recovery_generation::text END`;

/**
 * `PaymentStore.listStrandedPayments` in SQL: pending payments (partial index) whose current recovery
 * job is neither pending nor running, found through the jobs' unique (queue, idempotency key) index.
 */
export async function listStrandedPaymentsInSql(sql: SqlClient, params: { limit: number }): Promise<PaymentRecord[]> {
  const { rows } = await sql.query<PaymentRow>(
    `SELECT ${paymentColumns} FROM gateway_payments p
     WHERE p.state = 'pending' AND NOT EXISTS (
       SELECT 1 FROM tollgate_jobs j
       WHERE j.queue = $1 AND j.idempotency_key = ${currentJobKey} AND j.status IN ('pending', 'running'))
     ORDER BY p.updated_at, p.payment_id LIMIT $2`,
    [settlementRecoveryQueue, params.limit],
  );
  return rows.map(toPayment);
}

/**
 * `PaymentStore.renewRecovery` in SQL: the generation moves on only from the one the caller saw (so
 * concurrent sweeps renew once), and the new generation's job is enqueued in the same transaction.
 */
export function renewRecoveryInSql(sql: SqlClient, params: { paymentId: string; generation: number; now: Date }): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<{ recovery_generation: number }>(
      `UPDATE gateway_payments SET recovery_generation = recovery_generation + 1, updated_at = $3
       WHERE payment_id = $1 AND state = 'pending' AND recovery_generation = $2 RETURNING recovery_generation`,
      [params.paymentId, params.generation, params.now],
    );
    const renewed = rows[0];
    if (renewed === undefined) return false;
    await enqueueSettlementRecovery(createSqlJobQueue(tx, { clock: frozenClock(params.now) }), params.paymentId, renewed.recovery_generation);
    return true;
  });
}
