import { GatewayError } from '../../errors/gateway';
import { facilitatorRefusalKind } from '../../x402/facilitator/failure-reasons';
import { settlementOutcome } from '../../x402/facilitator/port';
import type { PaymentPayload } from '../../x402/wire';
import type { PaymentRecord } from '../store/payment-records';
import type { PaymentContext } from './payment-context';
import type { PaymentDeps, PaymentEvent } from './payment-deps';
import type { SettlementEvidenceVerdict } from './payment-evidence';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecovery } from './recovery';

/**
 * Where a settlement goes next (see `createSettlement`'s loop): take the claim, follow an earlier
 * submission, do the claim holder's work (`run`, `settle`, `refused`), or answer.
 */
export type SettlementStep =
  | { readonly kind: 'claim' }
  | { readonly kind: 'follow'; readonly payment: PaymentRecord }
  /** A claim whose verify has not run (taken over): verify, mark, settle. */
  | { readonly kind: 'run'; readonly payment: PaymentRecord; readonly leaseToken: string }
  /** A claim taken with its settle mark, verify passed: settle. */
  | { readonly kind: 'settle'; readonly payment: PaymentRecord }
  /** A claim taken with its settle mark while verify refused the payment with `reason` (settle never called). */
  | { readonly kind: 'refused'; readonly payment: PaymentRecord; readonly leaseToken: string; readonly reason: string }
  | { readonly kind: 'done'; readonly payment: PaymentRecord };

/** The claim holder's work: facilitator verify, settle, and recording the outcome exactly once. */
export interface ClaimHolder {
  /** For a claim whose verify has not run (taken over from a holder that died before settle): verify, mark, settle. */
  run(payment: PaymentRecord, leaseToken: string, payload: PaymentPayload, context: PaymentContext): Promise<SettlementStep>;
  /** For a claim taken with its settle mark whose verify passed: settle and record the outcome. */
  settle(payment: PaymentRecord, payload: PaymentPayload, context: PaymentContext): Promise<SettlementStep>;
  /**
   * For a claim taken after the facilitator's verify refused the payment with `reason`: a refusal of the
   * payload releases the claim and is thrown; any other refusal asks the chain first.
   */
  refused(payment: PaymentRecord, leaseToken: string, reason: string): Promise<SettlementStep>;
  /**
   * Gives up a claim this holder never called settle for (nothing can be on chain for it), also when
   * the claim was written with its settle mark while the facilitator verified, then throws `error`. A
   * claim no longer held (taken over as pending while this holder waited for verify) is followed
   * instead: the payer's retry would meet it, so "retry" would be a lie.
   */
  release(payment: PaymentRecord, leaseToken: string, reason: string, error: unknown): Promise<SettlementStep>;
}

type EventType = PaymentEvent['type'];

/**
 * Creates the claim holder's work. The chain is consulted wherever a facilitator's word could hide a
 * transfer that happened: a verify refusal that does not refuse the payload itself (a payment executed
 * elsewhere first answers "nonce already used"), every settle failure but a payload refusal, and — unless
 * `confirmTransfers` is off — a settle success, whose transaction must hold this authorization's transfer
 * before a receipt is signed.
 *
 * @param deps - Payment dependencies plus the receipt issuer and recovery.
 * @returns The claim holder.
 *
 * @example
 * ```ts
 * import { createClaimHolder } from '@tollgate/core/gateway';
 * const holder = createClaimHolder({ ...deps, issuer, recovery });
 * const next = await holder.run(payment, leaseToken, payload, context);
 * ```
 */
export function createClaimHolder(deps: PaymentDeps & { readonly issuer: ReceiptIssuer; readonly recovery: SettlementRecovery }): ClaimHolder {
  const { payments } = deps.stores;
  const { issuer, recovery } = deps;
  const now = () => new Date(deps.clock.now());
  const event = (type: EventType, payment: PaymentRecord, extra: { txHash?: string; reason?: string } = {}) =>
    deps.onEvent?.({ type, paymentId: payment.paymentId, refId: payment.refId, ...extra });

  async function release(payment: PaymentRecord, leaseToken: string, reason: string, error: unknown): Promise<SettlementStep> {
    // Every caller is the lease holder on a path where it has not called settle.
    if (await payments.releasePayment({ paymentId: payment.paymentId, leaseToken, settleNeverCalled: true })) {
      event('released', payment, { reason });
      throw error;
    }
    const current = await payments.getPayment(payment.paymentId);
    return current === undefined ? { kind: 'claim' } : { kind: 'follow', payment: current };
  }

  /** Settle may have run, or the chain shows the authorization used: from now on only the chain decides. */
  async function markPending(payment: PaymentRecord, txHash: string | null, reason: string): Promise<SettlementStep> {
    const pending = await payments.markPaymentPending({ paymentId: payment.paymentId, txHash, now: now() });
    if (pending?.changed) event('pending', payment, { reason, ...(txHash === null ? {} : { txHash }) });
    // The transfer is often already mined (the facilitator only missed the receipt): finish it now.
    return { kind: 'done', payment: await recovery.resolve(pending?.payment ?? payment) };
  }

  /**
   * A verify refusal that may mean "already executed": the chain says whether this authorization's
   * transfer happened (then the payment is settled, with its receipt), whether it can never happen
   * (canceled: failed), or that it has not happened (the refusal stands and the claim is released, so
   * the payer may retry).
   */
  async function checkRefusal(payment: PaymentRecord, leaseToken: string, reason: string, verdict: SettlementEvidenceVerdict): Promise<SettlementStep> {
    const refused = () =>
      new GatewayError('payment_verification_failed', `The facilitator refused the payment (${reason}).`, {
        details: { field: 'facilitator', reason, paymentId: payment.paymentId },
      });
    switch (verdict.status) {
      case 'settled':
        return { kind: 'done', payment: await recovery.apply(payment, verdict) };
      case 'failed':
        if (verdict.reason !== 'authorization_expired') return { kind: 'done', payment: await recovery.apply(payment, verdict) };
        return release(payment, leaseToken, reason, refused());
      case 'unknown':
        if (verdict.reason === 'searching' || verdict.reason === 'evidence_missing') return markPending(payment, null, 'executed_before_settle');
        if (verdict.reason === 'rpc_unavailable') {
          const unreadable = new GatewayError('rpc_unavailable', `The facilitator refused the payment (${reason}) and the chain cannot be read to tell whether it was already executed; retry the same payment later.`, {
            details: { reason, paymentId: payment.paymentId },
            retryAfterSeconds: 5,
          });
          return release(payment, leaseToken, reason, unreadable);
        }
        return release(payment, leaseToken, reason, refused());
    }
  }

  async function finish(payment: PaymentRecord, context: PaymentContext, txHash: string): Promise<SettlementStep> {
    // Overlapped: the hash is kept on the row (a crash from here on cannot lose it), the chain is asked
    // whether the transaction holds this transfer, and the receipt is signed meanwhile.
    const [, confirmation, completion] = await Promise.all([
      payments.recordTxHash({ paymentId: payment.paymentId, txHash, now: now() }),
      deps.confirmTransfers === false ? Promise.resolve(undefined) : recovery.confirmTransfer(payment, txHash),
      issuer.completion({ payment, ref: context.ref, network: context.network, txHash, now: now() }),
    ]);
    // Not backed by the chain: no receipt on the facilitator's word; chain evidence decides.
    if (confirmation?.status === 'unconfirmed') return markPending(payment, txHash, `settlement_${confirmation.reason}`);
    const done = await payments.completePayment(completion);
    if (done?.changed) event('settled', payment, { txHash });
    return { kind: 'done', payment: done?.payment ?? payment };
  }

  async function refused(payment: PaymentRecord, leaseToken: string, reason: string): Promise<SettlementStep> {
    if (facilitatorRefusalKind(reason) === 'payload') {
      const error = new GatewayError('payment_verification_failed', `The facilitator refused the payment (${reason}).`, {
        details: { field: 'facilitator', reason, paymentId: payment.paymentId },
      });
      return release(payment, leaseToken, reason, error);
    }
    return checkRefusal(payment, leaseToken, reason, await recovery.inspect(payment));
  }

  /** Settle is called once, its settle mark already recorded: from here on only the outcome is written. */
  async function settle(payment: PaymentRecord, payload: PaymentPayload, context: PaymentContext): Promise<SettlementStep> {
    const facilitator = deps.facilitator;
    if (facilitator === undefined) throw new Error('A claim holder needs a facilitator.');
    let response;
    try {
      response = await facilitator.settle(payload, context.requirements);
    } catch (error) {
      // No answer after settle: the transfer may be on chain. Never settle again; the chain decides.
      return markPending(payment, null, error instanceof Error ? error.name : 'settle_error');
    }
    const outcome = settlementOutcome(response);
    switch (outcome.status) {
      case 'settled':
        return finish(payment, context, outcome.transaction);
      case 'pending':
        return markPending(payment, outcome.transaction === '' ? null : outcome.transaction, outcome.errorReason ?? 'settlement_pending');
      case 'failed': {
        const answer = issuer.failure({ payment, network: context.network, reason: outcome.errorReason, message: `Settlement failed (${outcome.errorReason}).`, txHash: null });
        const failed = await payments.failPayment({ paymentId: payment.paymentId, errorReason: outcome.errorReason, txHash: null, answer, now: now() });
        if (failed?.changed) event('failed', payment, { reason: outcome.errorReason });
        return { kind: 'done', payment: failed?.payment ?? payment };
      }
    }
  }

  return {
    release,
    refused,
    settle,
    async run(payment, leaseToken, payload, context) {
      const facilitator = deps.facilitator;
      if (facilitator === undefined) throw new Error('A claim holder needs a facilitator.');
      let verdict;
      try {
        verdict = await facilitator.verify(payload, context.requirements);
      } catch (error) {
        return release(payment, leaseToken, 'facilitator_unavailable', error);
      }
      if (!verdict.isValid) return refused(payment, leaseToken, verdict.invalidReason ?? 'invalid_payment');
      // (A claim taken over unmarked.) Recorded only once verify passed, so a claim whose holder dies while
      // verifying is taken over and settled normally; from here on settle may run, and it never runs twice.
      if (!(await payments.startSettle({ paymentId: payment.paymentId, leaseToken, now: now() }))) {
        // The lease ended while verifying and someone else holds the claim now.
        const current = await payments.getPayment(payment.paymentId);
        return current === undefined ? { kind: 'claim' } : { kind: 'follow', payment: current };
      }
      return settle(payment, payload, context);
    },
  };
}
