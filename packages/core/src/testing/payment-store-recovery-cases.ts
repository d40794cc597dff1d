import { raceCase } from './race-case';
import { expect, it } from 'vitest';
import { settlementRecoveryJobKey, settlementRecoveryQueue } from '../gateway/payments/recovery-job';
import type { JobQueue } from '../storage/jobs/job-queue';
import { at, hexId, type PaymentStoreConformanceFixture } from './gateway-stores-fixture';
import { claimable, claimFor, completionFor, failedAnswer, held, jobsOf, minute } from './payment-store-fixture';

/**
 * A pending payment whose recovery job of generation 0 already ended as `ended` before the payment became
 * pending: the job is enqueued first under the payment's key (so `markPaymentPending` finds it instead of
 * adding one), claimed, and failed on its only attempt (dead) or completed.
 */
async function pendingWithEndedJob(fixed: PaymentStoreConformanceFixture, jobs: JobQueue, ended: 'dead' | 'completed', pendingAt: Date): Promise<string> {
  const claim = claimFor(await claimable(fixed));
  await fixed.payments.claimPayment(claim);
  await jobs.enqueue(settlementRecoveryQueue, { paymentId: claim.paymentId }, { idempotencyKey: settlementRecoveryJobKey(claim.paymentId), maxAttempts: 1 });
  const job = await jobs.claim(settlementRecoveryQueue, { leaseMs: minute });
  if (job === null) throw new Error('expected the recovery job to be claimable');
  expect(await (ended === 'dead' ? jobs.fail(job, new Error('still pending (no_rpc)')) : jobs.complete(job))).toMatchObject({ status: ended });
  await fixed.payments.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: pendingAt });
  return claim.paymentId;
}

/** Registers the cases of the recovery of pending payments: stranded payments and renewed recovery jobs. */
export function defineRecoveryCases(fixture: () => PaymentStoreConformanceFixture): void {
  it('lists pending payments whose current recovery job is dead, ended or gone, least recently changed first', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const jobs = jobsOf(fixed);
    const dead = await pendingWithEndedJob(fixed, jobs, 'dead', at(1_000));
    const ended = await pendingWithEndedJob(fixed, jobs, 'completed', at(2_000));
    const live = claimFor(await claimable(fixed));
    await payments.claimPayment(live);
    await payments.markPaymentPending({ paymentId: live.paymentId, txHash: null, now: at(3_000) });
    const processing = claimFor(await claimable(fixed));
    await payments.claimPayment(processing);
    const settled = claimFor(await claimable(fixed));
    const settledPayment = held(await payments.claimPayment(settled));
    await payments.completePayment(completionFor(settledPayment));
    const expected = [dead, ended];
    if (fixed.sql !== undefined) {
      const gone = claimFor(await claimable(fixed));
      await payments.claimPayment(gone);
      await payments.markPaymentPending({ paymentId: gone.paymentId, txHash: null, now: at(4_000) });
      await fixed.sql.query('DELETE FROM tollgate_jobs WHERE queue = $1 AND idempotency_key = $2', [settlementRecoveryQueue, settlementRecoveryJobKey(gone.paymentId)]);
      expected.push(gone.paymentId);
    }
    const ids = async (limit: number) => (await payments.listStrandedPayments({ limit })).map((payment) => payment.paymentId);
    expect(await ids(10)).toEqual(expected);
    expect(await ids(1)).toEqual([dead]);
  });

  it('renews a stranded payment: the next generation and its job, due now; a stale generation renews nothing', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const jobs = jobsOf(fixed);
    const paymentId = await pendingWithEndedJob(fixed, jobs, 'dead', at(1_000));
    expect(await payments.renewRecovery({ paymentId, generation: 0, now: at(9_000) })).toBe(true);
    expect(await payments.getPayment(paymentId)).toMatchObject({ state: 'pending', recoveryGeneration: 1, updatedAt: at(9_000) });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toMatchObject({
      payload: { paymentId },
      idempotencyKey: settlementRecoveryJobKey(paymentId, 1),
      status: 'running',
      attempts: 1,
      runAt: at(9_000),
    });
    expect(await payments.listStrandedPayments({ limit: 10 })).toEqual([]);
    expect(await payments.renewRecovery({ paymentId, generation: 0, now: at(10_000) })).toBe(false);
    expect(await payments.renewRecovery({ paymentId: `pay_${hexId()}`, generation: 0, now: at(10_000) })).toBe(false);
  });

  raceCase('renews a stranded payment once, however many sweeps race: one next generation and one job', fixture, async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const jobs = jobsOf(fixed);
    const paymentId = await pendingWithEndedJob(fixed, jobs, 'dead', at(1_000));
    const renewals = await Promise.all(Array.from({ length: 5 }, () => payments.renewRecovery({ paymentId, generation: 0, now: at(9_000) })));
    expect(renewals.filter(Boolean)).toHaveLength(1);
    expect(await payments.getPayment(paymentId)).toMatchObject({ state: 'pending', recoveryGeneration: 1, updatedAt: at(9_000) });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toMatchObject({ payload: { paymentId }, idempotencyKey: settlementRecoveryJobKey(paymentId, 1) });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toBeNull();
  });

  it('never renews the recovery of a payment that is not pending', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const processing = claimFor(await claimable(fixed));
    await payments.claimPayment(processing);
    expect(await payments.renewRecovery({ paymentId: processing.paymentId, generation: 0, now: at(2_000) })).toBe(false);
    const failed = claimFor(await claimable(fixed));
    const payment = held(await payments.claimPayment(failed));
    await payments.markPaymentPending({ paymentId: failed.paymentId, txHash: null, now: at(1_000) });
    await payments.failPayment({ paymentId: payment.paymentId, errorReason: 'authorization_expired', txHash: null, answer: { outcome: 'failed', paymentResponse: 'e30=', body: '{}' }, now: at(3_000) });
    expect(await payments.renewRecovery({ paymentId: failed.paymentId, generation: 0, now: at(4_000) })).toBe(false);
    expect(await payments.getPayment(failed.paymentId)).toMatchObject({ state: 'failed', recoveryGeneration: 0 });
  });
  it('keeps the first transaction hash a facilitator answered, on processing and pending payments only', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const claim = claimFor(await claimable(fixed));
    await payments.claimPayment(claim);
    const first = `0x${hexId(32)}`;
    expect(await payments.recordTxHash({ paymentId: claim.paymentId, txHash: first, now: at(1_000) })).toBe(true);
    expect(await payments.recordTxHash({ paymentId: claim.paymentId, txHash: `0x${hexId(32)}`, now: at(1_100) })).toBe(false);
    expect(await payments.getPayment(claim.paymentId)).toMatchObject({ state: 'processing', txHash: first });
    await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(1_200) });
    expect((await payments.getPayment(claim.paymentId))?.txHash).toBe(first);
    await payments.failPayment({ paymentId: claim.paymentId, errorReason: 'authorization_expired', txHash: null, answer: failedAnswer, now: at(1_300) });
    expect(await payments.recordTxHash({ paymentId: claim.paymentId, txHash: `0x${hexId(32)}`, now: at(1_400) })).toBe(false);
    expect(await payments.recordTxHash({ paymentId: 'pay_unknown_0000000000', txHash: first, now: at(1_400) })).toBe(false);
  });

  it('keeps the evidence search progress: window bounds once known, the scanned range replaced', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const claim = claimFor(await claimable(fixed));
    await payments.claimPayment(claim);
    const { paymentId } = claim;
    expect(await payments.recordEvidenceScan({ paymentId, scan: { windowLow: null, windowHigh: null, scanned: { low: 9_000_000_001n, high: 9_000_020_000n } } })).toBe(true);
    expect((await payments.getPayment(paymentId))?.evidence).toEqual({ windowLow: null, windowHigh: null, scanned: { low: 9_000_000_001n, high: 9_000_020_000n } });
    expect(await payments.recordEvidenceScan({ paymentId, scan: { windowLow: 8_999_999_000n, windowHigh: 9_000_030_000n, scanned: { low: 8_999_999_000n, high: 9_000_030_000n } } })).toBe(true);
    // A later attempt cannot move known bounds; it may drop the scanned range (to search again).
    expect(await payments.recordEvidenceScan({ paymentId, scan: { windowLow: 1n, windowHigh: 2n, scanned: null } })).toBe(true);
    expect((await payments.getPayment(paymentId))?.evidence).toEqual({ windowLow: 8_999_999_000n, windowHigh: 9_000_030_000n, scanned: null });
    await payments.completePayment(completionFor(held(await payments.claimPayment(claim)), { now: at(2_000) }));
    expect(await payments.recordEvidenceScan({ paymentId, scan: { windowLow: null, windowHigh: null, scanned: { low: 1n, high: 2n } } })).toBe(false);
  });
}
