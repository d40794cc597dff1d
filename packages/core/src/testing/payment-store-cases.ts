import { raceCase } from './race-case';
import { expect, it } from 'vitest';
import { notificationQueue, type NotificationJob } from '../gateway/notifications/notification-job';
import { settlementRecoveryQueue } from '../gateway/payments/recovery-job';
import type { NewPaymentClaim, PaymentRecord } from '../gateway/store/payment-records';
import { at, hexId, type PaymentStoreConformanceFixture } from './gateway-stores-fixture';
import { claimable, claimFor, completionFor, failedAnswer, held, jobsOf, minute, settledAnswer } from './payment-store-fixture';

/** A taker of `claim`'s lease at `now`, leasing it for two minutes. */
function takerOf(claim: NewPaymentClaim, now: Date) {
  return { paymentId: claim.paymentId, leaseToken: hexId(), leaseUntil: new Date(now.getTime() + 2 * minute), now };
}

/** Registers the payment cases of the PaymentStore suite. */
export function definePaymentCases(fixture: () => PaymentStoreConformanceFixture): void {
  it('lists processing payments whose lease ended, oldest lease first', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const late = claimFor(target, { leaseUntil: at(3 * minute) });
    const early = claimFor(target, { leaseUntil: at(2 * minute) });
    const live = claimFor(target, { leaseUntil: at(10 * minute) });
    const pending = claimFor(target, { leaseUntil: at(minute) });
    for (const claim of [late, early, live, pending]) await payments.claimPayment(claim);
    await payments.markPaymentPending({ paymentId: pending.paymentId, txHash: null, now: at(1_000) });
    const ids = async (now: Date, limit = 10) => (await payments.listAbandonedPayments({ now, limit })).map((payment) => payment.paymentId);
    expect(await ids(at(5 * minute))).toEqual([early.paymentId, late.paymentId]);
    expect(await ids(at(5 * minute), 1)).toEqual([early.paymentId]);
    expect(await ids(at(2 * minute))).toEqual([early.paymentId]);
    expect(await ids(at(minute))).toEqual([]);
  });

  it('refuses a new claim on a revoked ref or a retired payTo, but still finds an earlier claim', async () => {
    const fixed = fixture();
    const { merchants, payments, refs } = fixed;
    const target = await claimable(fixed);
    const earlier = claimFor(target);
    await payments.claimPayment(earlier);
    await refs.revokeRef({ merchantId: target.merchant.merchantId, refId: target.refId, now: at(1_000) });
    expect(await payments.claimPayment(claimFor(target))).toEqual({ kind: 'not_payable', status: { refStatus: 'revoked', payToStatus: 'active' } });
    expect(held(await payments.claimPayment({ ...earlier, leaseToken: hexId() })).paymentId).toBe(earlier.paymentId);

    const other = await claimable(fixed);
    await merchants.retirePayTo({ merchantId: other.merchant.merchantId, address: other.merchant.payTo, now: at(1_000) });
    expect(await payments.claimPayment(claimFor(other))).toEqual({ kind: 'not_payable', status: { refStatus: 'active', payToStatus: 'retired' } });
    expect(await payments.claimPayment(claimFor({ ...other, refId: hexId() }))).toEqual({ kind: 'not_payable', status: undefined });
  });

  it('claims a payment once; its id and its authorization both find it', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const outcome = await payments.claimPayment(claim);
    expect(outcome.kind).toBe('claimed');
    const { leaseToken, leaseUntil, now, ...identity } = claim;
    const expected: PaymentRecord = {
      ...identity,
      state: 'processing',
      leaseToken,
      leaseUntil,
      settleStartedAt: null,
      recoveryGeneration: 0,
      evidence: { windowLow: null, windowHigh: null, scanned: null },
      txHash: null,
      blockNumber: null,
      receiptHash: null,
      receiptJson: null,
      signedReceipt: null,
      answer: null,
      errorReason: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    expect(held(outcome)).toEqual(expected);
    expect(await payments.claimPayment({ ...claim, leaseToken: hexId(), fingerprint: hexId(32) })).toEqual({ kind: 'existing', payment: expected });
    expect(await payments.claimPayment({ ...claim, paymentId: `pay_${hexId()}` })).toEqual({ kind: 'existing', payment: expected });
    expect(await payments.getPayment(claim.paymentId)).toEqual(expected);
    expect(await payments.findPayment({ paymentId: 'pay_unknown_0000000000', chainId: 8453, payer: claim.payer, nonce: claim.nonce })).toEqual(expected);
    expect(await payments.findPayment({ ...claim, chainId: 84532, payer: `0x${hexId(20)}` })).toEqual(expected);
    expect(await payments.findPayment({ paymentId: 'pay_unknown_0000000000', chainId: 84532, payer: claim.payer, nonce: claim.nonce })).toBeUndefined();
  });

  it('prefers the payment holding the id over the one holding the authorization', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const first = claimFor(target);
    const second = claimFor(target);
    await payments.claimPayment(first);
    await payments.claimPayment(second);
    const crossed = await payments.claimPayment({ ...claimFor(target), paymentId: second.paymentId, payer: first.payer, nonce: first.nonce });
    expect(crossed.kind === 'existing' && crossed.payment.paymentId).toBe(second.paymentId);
  });

  raceCase('lets exactly one of 20 parallel claims of one payment id win, on any connection', fixture, async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => payments.claimPayment({ ...claim, leaseToken: hexId() })));
    const claimed = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(claimed).toHaveLength(1);
    const winner = claimed[0]?.payment.leaseToken;
    expect(outcomes.every((outcome) => held(outcome).leaseToken === winner)).toBe(true);
  });

  raceCase('lets exactly one of 20 parallel claims of one authorization win, whatever their payment ids', fixture, async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => payments.claimPayment({ ...claim, paymentId: `pay_${hexId()}` })));
    const claimed = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(claimed).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => held(outcome).paymentId))).toEqual(new Set([claimed[0] && held(claimed[0]).paymentId]));
  });

  it('fences the lease: only its live holder starts settle or releases, and only before settle started', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    await payments.claimPayment(claim);
    const { paymentId, leaseToken } = claim;
    expect(await payments.startSettle({ paymentId, leaseToken: hexId(), now: at(1_000) })).toBe(false);
    expect(await payments.startSettle({ paymentId, leaseToken, now: claim.leaseUntil })).toBe(false);
    expect(await payments.releasePayment({ paymentId, leaseToken: hexId() })).toBe(false);
    expect(await payments.startSettle({ paymentId, leaseToken, now: at(1_000) })).toBe(true);
    expect(await payments.getPayment(paymentId)).toMatchObject({ settleStartedAt: at(1_000) });
    // The first settle mark is kept.
    expect(await payments.startSettle({ paymentId, leaseToken, now: at(1_500) })).toBe(true);
    expect(await payments.getPayment(paymentId)).toMatchObject({ settleStartedAt: at(1_000) });
    expect(await payments.releasePayment({ paymentId, leaseToken })).toBe(false);
    expect((await payments.getPayment(paymentId))?.state).toBe('processing');
  });

  it('releases a claim taken with its settle mark only on its holder\'s word that settle was never called', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = { ...claimFor(target), settleStarted: true };
    await payments.claimPayment(claim);
    expect(await payments.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken })).toBe(false);
    expect(await payments.releasePayment({ paymentId: claim.paymentId, leaseToken: hexId(), settleNeverCalled: true })).toBe(false);
    expect((await payments.getPayment(claim.paymentId))?.state).toBe('processing');
    expect(await payments.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken, settleNeverCalled: true })).toBe(true);
    expect(await payments.getPayment(claim.paymentId)).toBeUndefined();
  });

  it('releases a claim whose settle never started, so the same payment can be claimed again', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    await payments.claimPayment(claim);
    expect(await payments.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken })).toBe(true);
    expect(await payments.getPayment(claim.paymentId)).toBeUndefined();
    expect((await payments.claimPayment({ ...claim, leaseToken: hexId() })).kind).toBe('claimed');
  });

  it('hands over an expired lease only, and fences the previous holder out of settle', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const claim = claimFor(await claimable(fixed));
    await payments.claimPayment(claim);
    expect(await payments.takeOverPayment(takerOf(claim, at(minute)))).toBeUndefined();
    const taker = takerOf(claim, claim.leaseUntil);
    expect(await payments.takeOverPayment(taker)).toMatchObject({ state: 'processing', leaseToken: taker.leaseToken, leaseUntil: taker.leaseUntil });
    expect(await payments.startSettle({ paymentId: claim.paymentId, leaseToken: claim.leaseToken, now: claim.leaseUntil })).toBe(false);
    expect(await payments.startSettle({ paymentId: claim.paymentId, leaseToken: taker.leaseToken, now: claim.leaseUntil })).toBe(true);
  });

  raceCase('hands over an expired lease to exactly one of several racing takers', fixture, async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const claim = claimFor(await claimable(fixed));
    await payments.claimPayment(claim);
    const attempts = await Promise.all(Array.from({ length: 5 }, () => takerOf(claim, claim.leaseUntil)).map((params) => payments.takeOverPayment(params).then((won) => ({ won, params }))));
    const winners = attempts.filter((attempt) => attempt.won !== undefined);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(winner.won).toMatchObject({ state: 'processing', leaseToken: winner.params.leaseToken, leaseUntil: winner.params.leaseUntil });
    expect(await payments.startSettle({ paymentId: claim.paymentId, leaseToken: claim.leaseToken, now: claim.leaseUntil })).toBe(false);
    expect(await payments.startSettle({ paymentId: claim.paymentId, leaseToken: winner.params.leaseToken, now: claim.leaseUntil })).toBe(true);
  });

  it('marks a payment pending once, with one recovery job, keeping the first known transaction hash', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    await payments.claimPayment(claim);
    const first = await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(5_000) });
    expect(first).toMatchObject({ changed: true, payment: { state: 'pending', leaseToken: null, leaseUntil: null, txHash: null, settleStartedAt: at(5_000) } });
    const hash = `0x${hexId(32)}`;
    const again = await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: hash, now: at(6_000) });
    expect(again).toMatchObject({ changed: false, payment: { state: 'pending', txHash: hash } });
    expect((await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: `0x${hexId(32)}`, now: at(7_000) }))?.payment.txHash).toBe(hash);
    expect(await payments.markPaymentPending({ paymentId: 'pay_unknown_0000000000', txHash: null, now: at(7_000) })).toBeUndefined();
    const jobs = jobsOf(fixed);
    const job = await jobs.claim(settlementRecoveryQueue, { leaseMs: minute });
    expect(job).toMatchObject({ payload: { paymentId: claim.paymentId }, runAt: at(5_000), idempotencyKey: `recovery:${claim.paymentId}` });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toBeNull();
  });

  it('completes a payment with its receipt, answer and exactly one notification job; the first outcome wins', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const payment = held(await payments.claimPayment(claim));
    await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(1_000) });
    const completion = completionFor(payment);
    const done = await payments.completePayment(completion);
    expect(done).toMatchObject({
      changed: true,
      payment: {
        state: 'settled',
        txHash: completion.txHash,
        blockNumber: '123',
        receiptHash: completion.receiptHash,
        receiptJson: completion.receiptJson,
        signedReceipt: completion.signedReceipt,
        answer: settledAnswer,
        completedAt: completion.now,
        leaseToken: null,
      },
    });
    const later = await payments.completePayment(completionFor(payment, { answer: { ...settledAnswer, body: '{}' }, now: at(9_000) }));
    expect(later).toEqual({ changed: false, payment: done?.payment });
    expect(await payments.failPayment({ paymentId: claim.paymentId, errorReason: 'late', txHash: null, answer: failedAnswer, now: at(9_000) })).toEqual({ changed: false, payment: done?.payment });
    expect(await payments.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(9_000) })).toEqual({ changed: false, payment: done?.payment });
    const jobs = jobsOf(fixed);
    const job = await jobs.claim(notificationQueue, { leaseMs: minute });
    expect(job?.payload).toEqual(completion.notification);
    expect(job?.idempotencyKey).toBe(`payment:${claim.paymentId}`);
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).toBeNull();
  });

  it('never records a settlement without its notification: a failing enqueue rolls the completion back', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const payment = held(await payments.claimPayment(claim));
    const broken = completionFor(payment);
    // Valid JSON that PostgreSQL's jsonb refuses (a NUL character): the store sends it, and the database
    // fails the notification insert itself, after the payment's update in the same statement or transaction.
    const refused = { ...broken, notification: { ...(broken.notification as NotificationJob), refId: `${payment.refId}\u0000` } };
    await expect(payments.completePayment(refused)).rejects.toThrow();
    expect(await payments.getPayment(claim.paymentId)).toEqual(payment);
    expect(await jobsOf(fixed).claim(notificationQueue, { leaseMs: minute })).toBeNull();
    expect((await payments.completePayment(broken))?.changed).toBe(true);
  });

  it('fails a payment for good: later outcomes change nothing', async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const claim = claimFor(target);
    const payment = held(await payments.claimPayment(claim));
    const reverted = `0x${hexId(32)}`;
    const failed = await payments.failPayment({ paymentId: claim.paymentId, errorReason: 'invalid_exact_evm_transaction_failed', txHash: reverted, answer: failedAnswer, now: at(2_000) });
    expect(failed).toMatchObject({
      changed: true,
      payment: { state: 'failed', errorReason: 'invalid_exact_evm_transaction_failed', txHash: reverted, answer: failedAnswer, completedAt: at(2_000), leaseToken: null },
    });
    expect(await payments.completePayment(completionFor(payment))).toEqual({ changed: false, payment: failed?.payment });
    expect(await payments.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken })).toBe(false);
    expect(await payments.failPayment({ paymentId: 'pay_unknown_0000000000', errorReason: 'x', txHash: null, answer: failedAnswer, now: at(2_000) })).toBeUndefined();
  });

  raceCase('lets one of 10 parallel completions win and every caller see the same stored answer', fixture, async () => {
    const fixed = fixture();
    const { payments } = fixed;
    const target = await claimable(fixed);
    const payment = held(await payments.claimPayment(claimFor(target)));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => payments.completePayment(completionFor(payment, { answer: { ...settledAnswer, body: `{"n":${n}}` } }))),
    );
    expect(results.filter((result) => result?.changed)).toHaveLength(1);
    expect(new Set(results.map((result) => result?.payment.answer?.body)).size).toBe(1);
    const jobs = jobsOf(fixed);
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).not.toBeNull();
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).toBeNull();
  });
}
