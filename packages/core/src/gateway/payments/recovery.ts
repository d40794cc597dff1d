import { randomId } from '../../crypto/random';
import type { Job } from '../../storage/jobs/job-queue';
import type { PaymentRecord } from '../store/payment-records';
import type { PaymentDeps, PaymentSettings } from './payment-deps';
import { createPaymentEvidence, type SettlementEvidenceVerdict, type TransferConfirmation } from './payment-evidence';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecoveryJob } from './recovery-job';

/**
 * What taking over a claim whose lease ended did: `held` (settle never started; the caller now holds the
 * claim with `leaseToken`), `pending` (settle had started: the payment was made pending, the chain
 * decides) or `lost` (another holder took it first, or it moved on; `payment` as it now stands).
 */
export type ClaimTakeover =
  | { readonly kind: 'held'; readonly payment: PaymentRecord; readonly leaseToken: string }
  | { readonly kind: 'pending'; readonly payment: PaymentRecord }
  | { readonly kind: 'lost'; readonly payment: PaymentRecord | undefined };

/**
 * What relieving an abandoned claim did: made it `pending` (settle had started: the chain decides),
 * `released` it (settle never started: nothing can be on chain, the claim is gone), or `lost` it to
 * another caller (`payment` as it now stands).
 */
export type AbandonedClaimRelief =
  | { readonly kind: 'pending'; readonly payment: PaymentRecord }
  | { readonly kind: 'released' }
  | { readonly kind: 'lost'; readonly payment: PaymentRecord | undefined };

/** Finishes payments from chain evidence; never calls the facilitator. */
export interface SettlementRecovery {
  /** Reads the chain about a payment (see `PaymentEvidence.inspect`; only the search's progress is written). */
  inspect(payment: PaymentRecord): Promise<SettlementEvidenceVerdict>;
  /**
   * Records what the chain said about a `processing` or `pending` payment: `settled` (receipt, answer and
   * notification in one transaction) or `failed`; an `unknown` verdict changes nothing. Returns the payment
   * as it then stands (a payment another instance finished first keeps that outcome).
   */
  apply(payment: PaymentRecord, verdict: SettlementEvidenceVerdict): Promise<PaymentRecord>;
  /** Checks a facilitator-reported settlement on chain (see `PaymentEvidence.confirmTransfer`). */
  confirmTransfer(payment: PaymentRecord, txHash: string): Promise<TransferConfirmation>;
  /**
   * Finishes a `pending` payment when the chain has the answer ({@link SettlementRecovery.inspect}, then
   * {@link SettlementRecovery.apply}). Returns the payment as it then stands (still `pending` when the
   * chain cannot tell yet). Other states are returned as they are.
   */
  resolve(payment: PaymentRecord): Promise<PaymentRecord>;
  /**
   * Takes over a `processing` claim whose lease ended (its holder died or hung). Settle may have run once
   * it started, so such a claim becomes `pending` (settle is never called again); an earlier one is handed
   * to the caller (`held`). Atomic: of concurrent callers, one takes it, the others get `lost`.
   */
  takeOver(payment: PaymentRecord): Promise<ClaimTakeover>;
  /**
   * Relieves one `processing` claim whose lease ended (its holder died), without settling: a claim whose
   * settle had started becomes `pending` (with its recovery job; settle is never called again), one whose
   * settle never started is released. Atomic like {@link SettlementRecovery.takeOver}.
   */
  relieve(payment: PaymentRecord): Promise<AbandonedClaimRelief>;
  /**
   * The handler of a `gateway.settlement-recovery` job: resolves the payment. Throws while the payment
   * is still unresolved, so the queue retries it with backoff.
   */
  runJob(job: Job<SettlementRecoveryJob>): Promise<void>;
  /**
   * Relieves claims whose holder died (lease ended at the clock's now): a claim whose settle had started
   * becomes `pending` (with its recovery job: the chain decides, settle is never called again); one whose
   * settle never started is released. Safe on every instance at once (takeovers are atomic).
   *
   * @param limit - Most claims handled per call (default 20).
   * @returns How many claims this call took over.
   */
  sweepAbandoned(limit?: number): Promise<number>;
  /**
   * Gives `pending` payments whose recovery job died (it used all its attempts: no RPC, or an RPC down for
   * hours) or went missing a new job, of their next recovery generation. Safe on every instance at once
   * (a generation is renewed once).
   *
   * @param limit - Most payments handled per call (default 20).
   * @returns How many payments got a new recovery job.
   */
  sweepStranded(limit?: number): Promise<number>;
}

/**
 * Creates the recovery of payments whose outcome only the chain can tell. Verdicts come from
 * `createPaymentEvidence` (the authorization's `authorizationState`, then its `AuthorizationUsed` event and
 * the matching `Transfer`, searched within the blocks the authorization could execute in, with the search's
 * progress kept on the payment so it always finishes): settled, failed (expired unused, canceled, another
 * transfer) or still unknown (not executed yet, event not found yet, no RPC, RPC down). Settle is never
 * called again for a payment here.
 *
 * @param deps - Ref and payment stores, networks, chain clients, clock, the issuer and the settings.
 * @returns The recovery.
 *
 * @example
 * ```ts
 * import { settlementRecoveryQueue } from '@tollgate/core';
 * import { runWorker } from '@tollgate/core/storage';
 * import { createSettlementRecovery } from '@tollgate/core/gateway';
 * const recovery = createSettlementRecovery({ ...deps, issuer }, settings);
 * runWorker({ queue: settlementRecoveryQueue, jobs, handler: (job) => recovery.runJob(job), signal });
 * ```
 */
export function createSettlementRecovery(deps: PaymentDeps & { readonly issuer: ReceiptIssuer }, settings: PaymentSettings): SettlementRecovery {
  const { refs, payments } = deps.stores;
  const now = () => new Date(deps.clock.now());
  const event = (type: Parameters<NonNullable<PaymentDeps['onEvent']>>[0]['type'], payment: PaymentRecord, extra: { txHash?: string; reason?: string } = {}) =>
    deps.onEvent?.({ type, paymentId: payment.paymentId, refId: payment.refId, ...extra });

  const evidence = createPaymentEvidence(deps, settings);

  const failureMessages = {
    authorization_expired: 'The authorization expired without being executed on chain; nothing was transferred.',
    authorization_canceled: 'The payer canceled the authorization on chain; nothing was transferred.',
    settlement_mismatch: 'The authorization’s nonce was used by a transfer that does not match this payment.',
  } as const;

  async function apply(payment: PaymentRecord, verdict: SettlementEvidenceVerdict): Promise<PaymentRecord> {
    const network = deps.networks.byName(payment.network);
    if (verdict.status === 'unknown' || network === undefined) return payment;
    if (verdict.status === 'settled') {
      const ref = await refs.getRef(payment.refId);
      if (ref === undefined) throw new Error(`The ref ${payment.refId} of payment ${payment.paymentId} is missing.`);
      const completion = await deps.issuer.completion({ payment, ref, network, txHash: verdict.txHash, blockNumber: verdict.blockNumber, now: now() });
      const done = await payments.completePayment(completion);
      if (done?.changed) event('settled', payment, { txHash: completion.txHash, reason: 'chain_evidence' });
      return done?.payment ?? payment;
    }
    const answer = deps.issuer.failure({ payment, network, reason: verdict.reason, message: failureMessages[verdict.reason], txHash: verdict.txHash });
    const failed = await payments.failPayment({ paymentId: payment.paymentId, errorReason: verdict.reason, txHash: verdict.txHash, answer, now: now() });
    if (failed?.changed) event('failed', payment, { reason: verdict.reason });
    return failed?.payment ?? payment;
  }

  /** Resolves a pending payment; also returns why it is still pending, when it is. */
  async function settleFromChain(payment: PaymentRecord): Promise<{ payment: PaymentRecord; unknown?: string }> {
    if (payment.state !== 'pending') return { payment };
    const verdict = await evidence.inspect(payment);
    return { payment: await apply(payment, verdict), ...(verdict.status === 'unknown' ? { unknown: verdict.reason } : {}) };
  }

  async function takeOver(payment: PaymentRecord): Promise<ClaimTakeover> {
    const leaseToken = randomId();
    const taken = await payments.takeOverPayment({ paymentId: payment.paymentId, leaseToken, leaseUntil: new Date(deps.clock.now() + settings.leaseMs), now: now() });
    if (taken === undefined) return { kind: 'lost', payment: await payments.getPayment(payment.paymentId) };
    event('taken_over', taken);
    if (taken.settleStartedAt === null) return { kind: 'held', payment: taken, leaseToken };
    // Settle may have run: never call it again, let the chain tell.
    const pending = await payments.markPaymentPending({ paymentId: payment.paymentId, txHash: null, now: now() });
    if (pending?.changed) event('pending', taken, { reason: 'lease_expired_during_settle' });
    return pending === undefined ? { kind: 'lost', payment: undefined } : { kind: 'pending', payment: pending.payment };
  }

  async function relieve(payment: PaymentRecord): Promise<AbandonedClaimRelief> {
    const takeover = await takeOver(payment);
    if (takeover.kind !== 'held') return takeover;
    // Settle never started: nothing can be on chain, so the payer may simply pay again.
    if (!(await payments.releasePayment({ paymentId: payment.paymentId, leaseToken: takeover.leaseToken }))) {
      return { kind: 'lost', payment: await payments.getPayment(payment.paymentId) };
    }
    event('released', payment, { reason: 'abandoned_before_settle' });
    return { kind: 'released' };
  }

  return {
    inspect: (payment) => evidence.inspect(payment),
    apply,
    confirmTransfer: (payment, txHash) => evidence.confirmTransfer(payment, txHash),
    resolve: async (payment) => (await settleFromChain(payment)).payment,
    takeOver,
    relieve,

    async runJob(job) {
      // Only `markPaymentPending` and `renewRecovery` enqueue this job, both for a pending payment, and a
      // payment never returns to `processing`.
      const payment = await payments.getPayment(job.payload.paymentId);
      if (payment === undefined || payment.state !== 'pending') return;
      const resolved = await settleFromChain(payment);
      if (resolved.payment.state === 'pending') throw new Error(`The payment is still pending (${resolved.unknown ?? 'unknown'}).`);
    },

    async sweepAbandoned(limit = 20) {
      const abandoned = await payments.listAbandonedPayments({ now: now(), limit });
      let taken = 0;
      for (const payment of abandoned) if ((await relieve(payment)).kind !== 'lost') taken += 1;
      return taken;
    },

    async sweepStranded(limit = 20) {
      const stranded = await payments.listStrandedPayments({ limit });
      let renewed = 0;
      for (const payment of stranded) {
        if (!(await payments.renewRecovery({ paymentId: payment.paymentId, generation: payment.recoveryGeneration, now: now() }))) continue;
        renewed += 1;
        event('recovery_renewed', payment, { reason: `generation_${payment.recoveryGeneration + 1}` });
      }
      return renewed;
    },
  };
}
