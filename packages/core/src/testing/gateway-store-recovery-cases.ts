import { expect, it } from 'vitest';
import { settlementRecoveryJobKey, settlementRecoveryQueue } from '../gateway/payments/recovery-job';
import type { GatewayStore } from '../gateway/store/gateway-store';
import type { JobQueue } from '../storage/jobs/job-queue';
import { at, hexId, type GatewayStoreConformanceFixture } from './gateway-store-fixture';
import { claimable, claimFor, completionFor, held, jobsOf } from './gateway-store-payment-cases';

const minute = 60_000;

/**
 * A pending payment whose recovery job of generation 0 already ended as `ended` before the payment became
 * pending: the job is enqueued first under the payment's key (so `markPaymentPending` finds it instead of
 * adding one), claimed, and failed on its only attempt (dead) or completed.
 */
async function pendingWithEndedJob(store: GatewayStore, jobs: JobQueue, ended: 'dead' | 'completed', pendingAt: Date): Promise<string> {
  const claim = claimFor(await claimable(store));
  await store.claimPayment(claim);
  await jobs.enqueue(settlementRecoveryQueue, { paymentId: claim.paymentId }, { idempotencyKey: settlementRecoveryJobKey(claim.paymentId), maxAttempts: 1 });
  const job = await jobs.claim(settlementRecoveryQueue, { leaseMs: minute });
  if (job === null) throw new Error('expected the recovery job to be claimable');
  expect(await (ended === 'dead' ? jobs.fail(job, new Error('still pending (no_rpc)')) : jobs.complete(job))).toMatchObject({ status: ended });
  await store.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: pendingAt });
  return claim.paymentId;
}

/** Registers the cases of the recovery of pending payments: stranded payments and renewed recovery jobs. */
export function defineRecoveryCases(fixture: () => GatewayStoreConformanceFixture): void {
  it('lists pending payments whose current recovery job is dead, ended or gone, least recently changed first', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const jobs = jobsOf(fixed);
    const dead = await pendingWithEndedJob(store, jobs, 'dead', at(1_000));
    const ended = await pendingWithEndedJob(store, jobs, 'completed', at(2_000));
    const live = claimFor(await claimable(store));
    await store.claimPayment(live);
    await store.markPaymentPending({ paymentId: live.paymentId, txHash: null, now: at(3_000) });
    const processing = claimFor(await claimable(store));
    await store.claimPayment(processing);
    const settled = claimFor(await claimable(store));
    const settledPayment = held(await store.claimPayment(settled));
    await store.completePayment(completionFor(settledPayment));
    const expected = [dead, ended];
    if (fixed.sql !== undefined) {
      const gone = claimFor(await claimable(store));
      await store.claimPayment(gone);
      await store.markPaymentPending({ paymentId: gone.paymentId, txHash: null, now: at(4_000) });
      await fixed.sql.query('DELETE FROM tollgate_jobs WHERE queue = $1 AND idempotency_key = $2', [settlementRecoveryQueue, settlementRecoveryJobKey(gone.paymentId)]);
      expected.push(gone.paymentId);
    }
    const ids = async (limit: number) => (await store.listStrandedPayments({ limit })).map((payment) => payment.paymentId);
    expect(await ids(10)).toEqual(expected);
    expect(await ids(1)).toEqual([dead]);
  });

  it('renews a stranded payment once, however many sweeps race: the next generation and its job, due now', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const jobs = jobsOf(fixed);
    const paymentId = await pendingWithEndedJob(store, jobs, 'dead', at(1_000));
    const renewals = await Promise.all(Array.from({ length: 5 }, () => store.renewRecovery({ paymentId, generation: 0, now: at(9_000) })));
    expect(renewals.filter(Boolean)).toHaveLength(1);
    expect(await store.getPayment(paymentId)).toMatchObject({ state: 'pending', recoveryGeneration: 1, updatedAt: at(9_000) });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toMatchObject({
      payload: { paymentId },
      idempotencyKey: settlementRecoveryJobKey(paymentId, 1),
      status: 'running',
      attempts: 1,
      runAt: at(9_000),
    });
    expect(await store.listStrandedPayments({ limit: 10 })).toEqual([]);
    expect(await store.renewRecovery({ paymentId, generation: 0, now: at(10_000) })).toBe(false);
    expect(await store.renewRecovery({ paymentId: `pay_${hexId()}`, generation: 0, now: at(10_000) })).toBe(false);
  });

  it('never renews the recovery of a payment that is not pending', async () => {
    const { store } = fixture();
    const processing = claimFor(await claimable(store));
    await store.claimPayment(processing);
    expect(await store.renewRecovery({ paymentId: processing.paymentId, generation: 0, now: at(2_000) })).toBe(false);
    const failed = claimFor(await claimable(store));
    const payment = held(await store.claimPayment(failed));
    await store.markPaymentPending({ paymentId: failed.paymentId, txHash: null, now: at(1_000) });
    await store.failPayment({ paymentId: payment.paymentId, errorReason: 'authorization_expired', txHash: null, answer: { outcome: 'failed', paymentResponse: 'e30=', body: '{}' }, now: at(3_000) });
    expect(await store.renewRecovery({ paymentId: failed.paymentId, generation: 0, now: at(4_000) })).toBe(false);
    expect(await store.getPayment(failed.paymentId)).toMatchObject({ state: 'failed', recoveryGeneration: 0 });
  });
}
