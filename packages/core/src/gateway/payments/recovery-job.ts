import type { JobQueue } from '../../storage/jobs/job-queue';

/** The job queue of pending payments waiting for chain evidence. */
export const settlementRecoveryQueue = 'gateway.settlement-recovery';

/** What a settlement-recovery job carries: the payment to finish; everything else is in the store. */
export interface SettlementRecoveryJob {
  paymentId: string;
}

/**
 * Attempts of one recovery job. With the recovery queue's backoff (full jitter under 2 s doubling,
 * capped at one hour) they span at most about 13 hours (on average half that): far beyond any
 * authorization's `validBefore` (`maxTimeoutSeconds` plus the clock skew), after which the chain settles
 * the question either way when it can be read. A job that used them all (no RPC, an RPC down for hours)
 * is dead-lettered, and the recovery sweep enqueues the payment's next generation
 * (`SettlementRecovery.sweepStranded`): a pending payment is never left without a job.
 */
export const settlementRecoveryMaxAttempts = 24;

/**
 * The idempotency key of a payment's recovery job of one generation: `recovery:<paymentId>` for the
 * first, `recovery:<paymentId>:<generation>` for the ones the sweep enqueues after a job died.
 *
 * @param paymentId - The pending payment.
 * @param generation - 0 for the job enqueued when the payment became pending.
 * @returns The key.
 *
 * @example
 * ```ts
 * import { settlementRecoveryJobKey } from '@tollgate/core/gateway';
 * settlementRecoveryJobKey('pay_0123456789abcdef', 2); // 'recovery:pay_0123456789abcdef:2'
 * ```
 */
export function settlementRecoveryJobKey(paymentId: string, generation = 0): string {
  return generation === 0 ? `recovery:${paymentId}` : `recovery:${paymentId}:${generation}`;
}

/**
 * Enqueues the recovery of a pending payment, at most once per payment and generation (idempotency key
 * {@link settlementRecoveryJobKey}), due now. Call it with a queue bound to the transaction that marks the
 * payment pending (or renews its recovery), so a pending payment always has its recovery job.
 *
 * @param jobs - A job queue (`createSqlJobQueue(tx, { clock })` inside the transaction).
 * @param paymentId - The pending payment.
 * @param generation - The payment's recovery generation (0 when it just became pending).
 * @returns Whether a new job was created.
 *
 * @example
 * ```ts
 * import { createSqlJobQueue } from '@tollgate/core/storage';
 * import { enqueueSettlementRecovery } from '@tollgate/core/gateway';
 * await sql.transaction(async (tx) => {
 *   // … mark the payment pending …
 *   await enqueueSettlementRecovery(createSqlJobQueue(tx, { clock }), paymentId);
 * });
 * ```
 */
export async function enqueueSettlementRecovery(jobs: JobQueue, paymentId: string, generation = 0): Promise<boolean> {
  const payload: SettlementRecoveryJob = { paymentId };
  const { created } = await jobs.enqueue(settlementRecoveryQueue, payload, {
    idempotencyKey: settlementRecoveryJobKey(paymentId, generation),
    maxAttempts: settlementRecoveryMaxAttempts,
  });
  return created;
}
