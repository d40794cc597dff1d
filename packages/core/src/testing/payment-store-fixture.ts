import type { NotificationJob } from '../gateway/notifications/notification-job';
import type { NewPaymentClaim, PaymentClaimOutcome, PaymentCompletion, PaymentRecord, StoredSettlementAnswer } from '../gateway/store/payment-records';
import type { JobQueue } from '../storage/jobs/job-queue';
import { createSqlJobQueue } from '../storage/jobs/sql-job-queue';
import { at, enrollMerchant, hexId, refFor, type EnrolledMerchant, type PaymentStoreConformanceFixture } from './gateway-stores-fixture';

// Helpers of the PaymentStore suite's cases.

/** One minute in milliseconds. */
export const minute = 60_000;

/** The job queue of the fixture; reads happen a day after the suite epoch, when every job is due. */
export function jobsOf(fixture: PaymentStoreConformanceFixture): JobQueue {
  if (fixture.jobs !== undefined) return fixture.jobs;
  if (fixture.sql === undefined) throw new Error('The payment cases need the fixture’s `jobs` (or `sql` for SQL stores).');
  return createSqlJobQueue(fixture.sql, { clock: { now: () => at(24 * 60 * minute).getTime() } });
}

/** An enrolled merchant with one ref that payments can be claimed for. */
export async function claimable(stores: Pick<PaymentStoreConformanceFixture, 'merchants' | 'refs'>): Promise<{ merchant: EnrolledMerchant; refId: string }> {
  const merchant = await enrollMerchant(stores.merchants);
  const ref = refFor(merchant, { notifyUrl: 'https://hooks.example.com/paid' });
  await stores.refs.createRef(ref);
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
    validAfter: String(Math.floor(at(-10 * minute).getTime() / 1000)),
    fingerprint: hexId(32),
    leaseToken: hexId(),
    leaseUntil: at(2 * minute),
    now: at(0),
    ...overrides,
  };
}

/** The payment a claim took or found; fails the test when the claim was refused (not payable, or the ref used by another payment). */
export function held(outcome: PaymentClaimOutcome): PaymentRecord {
  if (outcome.kind === 'not_payable' || outcome.kind === 'ref_used') throw new Error(`expected the claim to take or find a payment, got ${outcome.kind}`);
  return outcome.payment;
}

/** A settled answer as the settlement stores it. */
export const settledAnswer: StoredSettlementAnswer = { outcome: 'settled', paymentResponse: 'eyJzdWNjZXNzIjp0cnVlfQ==', body: '{"success":true,"note":"é ✓"}' };
/** A failed answer as the settlement stores it. */
export const failedAnswer: StoredSettlementAnswer = { outcome: 'failed', paymentResponse: 'eyJzdWNjZXNzIjpmYWxzZX0=', body: '{"x402Version":2}' };

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
