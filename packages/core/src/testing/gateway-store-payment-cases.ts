import { expect, it } from 'vitest';
import type { NotificationJob } from '../gateway/notifications/notification-job';
import { notificationQueue } from '../gateway/notifications/notification-job';
import { settlementRecoveryQueue } from '../gateway/payments/recovery-job';
import type { GatewayStore } from '../gateway/store/gateway-store';
import type { NewPaymentClaim, PaymentClaimOutcome, PaymentCompletion, PaymentRecord, StoredSettlementAnswer } from '../gateway/store/payment-records';
import type { JobQueue } from '../storage/jobs/job-queue';
import { createSqlJobQueue } from '../storage/jobs/sql-job-queue';
import { at, enrollMerchant, hexId, refFor, type EnrolledMerchant, type GatewayStoreConformanceFixture } from './gateway-store-fixture';

const minute = 60_000;

/** The job queue of the fixture; reads happen a day after the suite epoch, when every job is due. */
export function jobsOf(fixture: GatewayStoreConformanceFixture): JobQueue {
  if (fixture.jobs !== undefined) return fixture.jobs;
  if (fixture.sql === undefined) throw new Error('The payment cases need the fixture’s `jobs` (or `sql` for SQL stores).');
  return createSqlJobQueue(fixture.sql, { clock: { now: () => at(24 * 60 * minute).getTime() } });
}

/** An enrolled merchant with one ref that payments can be claimed for. */
export async function claimable(store: GatewayStore): Promise<{ merchant: EnrolledMerchant; refId: string }> {
  const merchant = await enrollMerchant(store);
  const ref = refFor(merchant, { notifyUrl: 'https://hooks.example.com/paid' });
  await store.createRef(ref);
  return { merchant, refId: ref.id };
}

/** A new claim of a fresh payment for `target`'s ref, due at the suite epoch. */
export function claimFor(target: { merchant: EnrolledMerchant; refId: string }, overrides: Partial<NewPaymentClaim> = {}): NewPaymentClaim {
  const payer = `0x${hexId(20)}`;
  const nonce = `0x${hexId(32)}`;
  return {
    paymentId: `pay_${hexId()}`,
    refId: target.refId,
    merchantId: target.merchant.merchantId,
    network: 'base',
    chainId: 8453,
    payTo: target.merchant.payTo,
    payer,
    amount: '10000',
    nonce,
    validBefore: String(Math.floor(at(5 * minute).getTime() / 1000)),
    fingerprint: hexId(32),
    leaseToken: hexId(),
    leaseUntil: at(2 * minute),
    now: at(0),
    ...overrides,
  };
}

/** The payment a claim took or found; fails the test when the claim was refused as not payable. */
export function held(outcome: PaymentClaimOutcome): PaymentRecord {
  if (outcome.kind === 'not_payable') throw new Error('expected the claim to take or find a payment, got not_payable');
  return outcome.payment;
}

const settledAnswer: StoredSettlementAnswer = { outcome: 'settled', paymentResponse: 'eyJzdWNjZXNzIjp0cnVlfQ==', body: '{"success":true,"note":"é ✓"}' };
const failedAnswer: StoredSettlementAnswer = { outcome: 'failed', paymentResponse: 'eyJzdWNjZXNzIjpmYWxzZX0=', body: '{"x402Version":2}' };

/** A completion of `payment` with a fresh receipt and its notification. */
export function completionFor(payment: PaymentRecord, overrides: Partial<PaymentCompletion> = {}): PaymentCompletion {
  const notification: NotificationJob = {
    merchantId: payment.merchantId,
    refId: payment.refId,
    url: 'https://hooks.example.com/paid',
    notification: {
      event: 'payment.settled',
      id: `ntf_${hexId()}`,
      createdAt: 1_772_366_400,
      data: { refId: payment.refId, receipt: { paymentId: payment.paymentId } as never, receiptHash: hexId(32), signedReceipt: `0x${hexId(65)}` },
    },
  };
  return {
    paymentId: payment.paymentId,
    txHash: `0x${hexId(32)}`,
    blockNumber: '123',
    receiptHash: hexId(32),
    receiptJson: JSON.stringify({ type: 'x402.payment.receipt', paymentId: payment.paymentId }),
    signedReceipt: `0x${hexId(65)}`,
    answer: settledAnswer,
    notification,
    now: at(3_000),
    ...overrides,
  };
}

/** Registers the payment cases of the GatewayStore suite. */
export function definePaymentCases(fixture: () => GatewayStoreConformanceFixture): void {
  it('reads a ref with its payTo status, and the two statuses alone', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const read = await store.getPaymentTarget(target.refId);
    expect(read).toEqual({ ref: await store.getRef(target.refId), payToStatus: 'active' });
    expect(await store.getPaymentStatus(target.refId)).toEqual({ refStatus: 'active', payToStatus: 'active' });
    await store.revokeRef({ merchantId: target.merchant.merchantId, refId: target.refId, now: at(500) });
    await store.retirePayTo({ merchantId: target.merchant.merchantId, address: target.merchant.payTo, now: at(1_000) });
    expect((await store.getPaymentTarget(target.refId))?.payToStatus).toBe('retired');
    expect(await store.getPaymentStatus(target.refId)).toEqual({ refStatus: 'revoked', payToStatus: 'retired' });
    expect(await store.getPaymentTarget(hexId())).toBeUndefined();
    expect(await store.getPaymentStatus(hexId())).toBeUndefined();
  });

  it('lists processing payments whose lease ended, oldest lease first', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const late = claimFor(target, { leaseUntil: at(3 * minute) });
    const early = claimFor(target, { leaseUntil: at(2 * minute) });
    const live = claimFor(target, { leaseUntil: at(10 * minute) });
    const pending = claimFor(target, { leaseUntil: at(minute) });
    for (const claim of [late, early, live, pending]) await store.claimPayment(claim);
    await store.markPaymentPending({ paymentId: pending.paymentId, txHash: null, now: at(1_000) });
    const ids = async (now: Date, limit = 10) => (await store.listAbandonedPayments({ now, limit })).map((payment) => payment.paymentId);
    expect(await ids(at(5 * minute))).toEqual([early.paymentId, late.paymentId]);
    expect(await ids(at(5 * minute), 1)).toEqual([early.paymentId]);
    expect(await ids(at(2 * minute))).toEqual([early.paymentId]);
    expect(await ids(at(minute))).toEqual([]);
  });

  it('refuses a new claim on a revoked ref or a retired payTo, but still finds an earlier claim', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const earlier = claimFor(target);
    await store.claimPayment(earlier);
    await store.revokeRef({ merchantId: target.merchant.merchantId, refId: target.refId, now: at(1_000) });
    expect(await store.claimPayment(claimFor(target))).toEqual({ kind: 'not_payable', status: { refStatus: 'revoked', payToStatus: 'active' } });
    expect(held(await store.claimPayment({ ...earlier, leaseToken: hexId() })).paymentId).toBe(earlier.paymentId);

    const other = await claimable(store);
    await store.retirePayTo({ merchantId: other.merchant.merchantId, address: other.merchant.payTo, now: at(1_000) });
    expect(await store.claimPayment(claimFor(other))).toEqual({ kind: 'not_payable', status: { refStatus: 'active', payToStatus: 'retired' } });
    expect(await store.claimPayment(claimFor({ ...other, refId: hexId() }))).toEqual({ kind: 'not_payable', status: undefined });
  });

  it('claims a payment once; its id and its authorization both find it', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    const outcome = await store.claimPayment(claim);
    expect(outcome.kind).toBe('claimed');
    const { leaseToken, leaseUntil, now, ...identity } = claim;
    const expected: PaymentRecord = {
      ...identity,
      state: 'processing',
      leaseToken,
      leaseUntil,
      settleStartedAt: null,
      settleHeadBlock: null,
      recoveryGeneration: 0,
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
    expect(await store.claimPayment({ ...claim, leaseToken: hexId(), fingerprint: hexId(32) })).toEqual({ kind: 'existing', payment: expected });
    expect(await store.claimPayment({ ...claim, paymentId: `pay_${hexId()}` })).toEqual({ kind: 'existing', payment: expected });
    expect(await store.getPayment(claim.paymentId)).toEqual(expected);
    expect(await store.findPayment({ paymentId: 'pay_unknown_0000000000', chainId: 8453, payer: claim.payer, nonce: claim.nonce })).toEqual(expected);
    expect(await store.findPayment({ ...claim, chainId: 84532, payer: `0x${hexId(20)}` })).toEqual(expected);
    expect(await store.findPayment({ paymentId: 'pay_unknown_0000000000', chainId: 84532, payer: claim.payer, nonce: claim.nonce })).toBeUndefined();
  });

  it('prefers the payment holding the id over the one holding the authorization', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const first = claimFor(target);
    const second = claimFor(target);
    await store.claimPayment(first);
    await store.claimPayment(second);
    const crossed = await store.claimPayment({ ...claimFor(target), paymentId: second.paymentId, payer: first.payer, nonce: first.nonce });
    expect(crossed.kind === 'existing' && crossed.payment.paymentId).toBe(second.paymentId);
  });

  it('lets exactly one of 20 parallel claims of one payment id win, on any connection', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.claimPayment({ ...claim, leaseToken: hexId() })));
    const claimed = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(claimed).toHaveLength(1);
    const winner = claimed[0]?.payment.leaseToken;
    expect(outcomes.every((outcome) => held(outcome).leaseToken === winner)).toBe(true);
  });

  it('lets exactly one of 20 parallel claims of one authorization win, whatever their payment ids', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.claimPayment({ ...claim, paymentId: `pay_${hexId()}` })));
    const claimed = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(claimed).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => held(outcome).paymentId))).toEqual(new Set([claimed[0] && held(claimed[0]).paymentId]));
  });

  it('fences the lease: only its live holder starts settle or releases, and only before settle started', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    await store.claimPayment(claim);
    const { paymentId, leaseToken } = claim;
    expect(await store.startSettle({ paymentId, leaseToken: hexId(), headBlock: '7', now: at(1_000) })).toBe(false);
    expect(await store.startSettle({ paymentId, leaseToken, headBlock: '7', now: claim.leaseUntil })).toBe(false);
    expect(await store.releasePayment({ paymentId, leaseToken: hexId() })).toBe(false);
    expect(await store.startSettle({ paymentId, leaseToken, headBlock: '31415926535', now: at(1_000) })).toBe(true);
    expect(await store.getPayment(paymentId)).toMatchObject({ settleStartedAt: at(1_000), settleHeadBlock: '31415926535' });
    // The first settle mark and its head block are kept.
    expect(await store.startSettle({ paymentId, leaseToken, headBlock: '31415926600', now: at(1_500) })).toBe(true);
    expect(await store.getPayment(paymentId)).toMatchObject({ settleStartedAt: at(1_000), settleHeadBlock: '31415926535' });
    expect(await store.releasePayment({ paymentId, leaseToken })).toBe(false);
    expect((await store.getPayment(paymentId))?.state).toBe('processing');
  });

  it('releases a claim whose settle never started, so the same payment can be claimed again', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    await store.claimPayment(claim);
    expect(await store.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken })).toBe(true);
    expect(await store.getPayment(claim.paymentId)).toBeUndefined();
    expect((await store.claimPayment({ ...claim, leaseToken: hexId() })).kind).toBe('claimed');
  });

  it('hands over an expired lease only, to exactly one of several takers', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    await store.claimPayment(claim);
    const taker = (now: Date) => ({ paymentId: claim.paymentId, leaseToken: hexId(), leaseUntil: new Date(now.getTime() + 2 * minute), now });
    expect(await store.takeOverPayment(taker(at(minute)))).toBeUndefined();
    const attempts = await Promise.all(Array.from({ length: 5 }, () => taker(claim.leaseUntil)).map((params) => store.takeOverPayment(params).then((won) => ({ won, params }))));
    const winners = attempts.filter((attempt) => attempt.won !== undefined);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(winner.won).toMatchObject({ state: 'processing', leaseToken: winner.params.leaseToken, leaseUntil: winner.params.leaseUntil });
    expect(await store.startSettle({ paymentId: claim.paymentId, leaseToken: claim.leaseToken, headBlock: null, now: claim.leaseUntil })).toBe(false);
    expect(await store.startSettle({ paymentId: claim.paymentId, leaseToken: winner.params.leaseToken, headBlock: null, now: claim.leaseUntil })).toBe(true);
    expect((await store.getPayment(claim.paymentId))?.settleHeadBlock).toBeNull();
  });

  it('marks a payment pending once, with one recovery job, keeping the first known transaction hash', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const target = await claimable(store);
    const claim = claimFor(target);
    await store.claimPayment(claim);
    const first = await store.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(5_000) });
    expect(first).toMatchObject({ changed: true, payment: { state: 'pending', leaseToken: null, leaseUntil: null, txHash: null, settleStartedAt: at(5_000) } });
    const hash = `0x${hexId(32)}`;
    const again = await store.markPaymentPending({ paymentId: claim.paymentId, txHash: hash, now: at(6_000) });
    expect(again).toMatchObject({ changed: false, payment: { state: 'pending', txHash: hash } });
    expect((await store.markPaymentPending({ paymentId: claim.paymentId, txHash: `0x${hexId(32)}`, now: at(7_000) }))?.payment.txHash).toBe(hash);
    expect(await store.markPaymentPending({ paymentId: 'pay_unknown_0000000000', txHash: null, now: at(7_000) })).toBeUndefined();
    const jobs = jobsOf(fixed);
    const job = await jobs.claim(settlementRecoveryQueue, { leaseMs: minute });
    expect(job).toMatchObject({ payload: { paymentId: claim.paymentId }, runAt: at(5_000), idempotencyKey: `recovery:${claim.paymentId}` });
    expect(await jobs.claim(settlementRecoveryQueue, { leaseMs: minute })).toBeNull();
  });

  it('completes a payment with its receipt, answer and exactly one notification job; the first outcome wins', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const target = await claimable(store);
    const claim = claimFor(target);
    const payment = held(await store.claimPayment(claim));
    await store.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(1_000) });
    const completion = completionFor(payment);
    const done = await store.completePayment(completion);
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
    const later = await store.completePayment(completionFor(payment, { answer: { ...settledAnswer, body: '{}' }, now: at(9_000) }));
    expect(later).toEqual({ changed: false, payment: done?.payment });
    expect(await store.failPayment({ paymentId: claim.paymentId, errorReason: 'late', txHash: null, answer: failedAnswer, now: at(9_000) })).toEqual({ changed: false, payment: done?.payment });
    expect(await store.markPaymentPending({ paymentId: claim.paymentId, txHash: null, now: at(9_000) })).toEqual({ changed: false, payment: done?.payment });
    const jobs = jobsOf(fixed);
    const job = await jobs.claim(notificationQueue, { leaseMs: minute });
    expect(job?.payload).toEqual(completion.notification);
    expect(job?.idempotencyKey).toBe(`payment:${claim.paymentId}`);
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).toBeNull();
  });

  it('never records a settlement without its notification: a failing enqueue rolls the completion back', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const target = await claimable(store);
    const claim = claimFor(target);
    const payment = held(await store.claimPayment(claim));
    const broken = completionFor(payment);
    // A bigint cannot be serialised as JSON: the enqueue throws inside the transaction.
    const unserialisable = { ...broken, notification: { ...broken.notification, refId: 1n as unknown as string } };
    await expect(store.completePayment(unserialisable)).rejects.toThrow();
    expect(await store.getPayment(claim.paymentId)).toEqual(payment);
    expect(await jobsOf(fixed).claim(notificationQueue, { leaseMs: minute })).toBeNull();
    expect((await store.completePayment(broken))?.changed).toBe(true);
  });

  it('fails a payment for good: later outcomes change nothing', async () => {
    const { store } = fixture();
    const target = await claimable(store);
    const claim = claimFor(target);
    const payment = held(await store.claimPayment(claim));
    const reverted = `0x${hexId(32)}`;
    const failed = await store.failPayment({ paymentId: claim.paymentId, errorReason: 'invalid_exact_evm_transaction_failed', txHash: reverted, answer: failedAnswer, now: at(2_000) });
    expect(failed).toMatchObject({
      changed: true,
      payment: { state: 'failed', errorReason: 'invalid_exact_evm_transaction_failed', txHash: reverted, answer: failedAnswer, completedAt: at(2_000), leaseToken: null },
    });
    expect(await store.completePayment(completionFor(payment))).toEqual({ changed: false, payment: failed?.payment });
    expect(await store.releasePayment({ paymentId: claim.paymentId, leaseToken: claim.leaseToken })).toBe(false);
    expect(await store.failPayment({ paymentId: 'pay_unknown_0000000000', errorReason: 'x', txHash: null, answer: failedAnswer, now: at(2_000) })).toBeUndefined();
  });

  it('lets one of 10 parallel completions win and every caller see the same stored answer', async () => {
    const fixed = fixture();
    const { store } = fixed;
    const target = await claimable(store);
    const payment = held(await store.claimPayment(claimFor(target)));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => store.completePayment(completionFor(payment, { answer: { ...settledAnswer, body: `{"n":${n}}` } }))),
    );
    expect(results.filter((result) => result?.changed)).toHaveLength(1);
    expect(new Set(results.map((result) => result?.payment.answer?.body)).size).toBe(1);
    const jobs = jobsOf(fixed);
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).not.toBeNull();
    expect(await jobs.claim(notificationQueue, { leaseMs: minute })).toBeNull();
  });
}
