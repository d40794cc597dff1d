import type { JobQueue } from '../../storage/jobs/job-queue';

/** The job queue of pending payments waiting for chain evidence. */
export const settlementRecoveryQueue = 'gateway.settlement-recovery';

/** What a settlement-recovery job carries: the payment to finish; everything else is in the store. */
export interface SettlementRecoveryJob {
  paymentId: string;
}

/**
 * Attempts of one recovery job. With the recovery queue's backoff (2 s doubling, capped at one hour)
 * they span about a day: far beyond any authorization's `validBefore`, after which the job settles the
 * question either way.
 */
export const settlementRecoveryMaxAttempts = 24;

/**
 * Enqueues the recovery of a pending payment, at most once per payment (idempotency key
 * `recovery:<paymentId>`), due now. Call it with a queue bound to the transaction that marks the payment
 * pending, so a pending payment always has its recovery job.
 *
 * @param jobs - A job queue (`createSqlJobQueue(tx, { clock })` inside the transaction).
 * @param paymentId - The pending payment.
 * @returns Whether a new job was created.
 *
 * @example
 * ```ts
 * import { createSqlJobQueue, enqueueSettlementRecovery } from '@tollgate/core';
 * await sql.transaction(async (tx) => {
 *   // … mark the payment pending …
 *   await enqueueSettlementRecovery(createSqlJobQueue(tx, { clock }), paymentId);
 * });
 * ```
 */
export async function enqueueSettlementRecovery(jobs: JobQueue, paymentId: string): Promise<boolean> {
  const payload: SettlementRecoveryJob = { paymentId };
  const { created } = await jobs.enqueue(settlementRecoveryQueue, payload, {
    idempotencyKey: `recovery:${paymentId}`,
    maxAttempts: settlementRecoveryMaxAttempts,
  });
  return created;
}
