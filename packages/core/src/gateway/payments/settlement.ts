import { randomId } from '../../crypto/random';
import type { ExactSignatureStatus } from '../../x402/exact-payment';
import { facilitatorRefusalKind } from '../../x402/facilitator/failure-reasons';
import type { VerifyResponse } from '../../x402/wire';
import { GatewayError } from '../../errors/gateway';
import { PaymentVerificationError } from '../../x402/errors';
import { decodePaymentSignatureHeader } from '../../x402/headers';
import { extractPaymentIdentifier } from '../../x402/payment-identifier';
import type { PaymentPayload } from '../../x402/wire';
import type { PaymentClaimOutcome, PaymentRecord, StoredSettlementAnswer } from '../store/payment-records';
import { createClaimHolder, type SettlementStep } from './claim-holder';
import { createPaymentChecks } from './payment-checks';
import { paymentClaim, type PaymentContext, type PaymentContexts, type ReceiveRequest } from './payment-context';
import { defaultSleep, type PaymentDeps, type PaymentSettings } from './payment-deps';
import { assertSamePaymentOrTwin, identifyPayment, paymentConflict, type PaymentIdentity } from './payment-identity';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecovery } from './recovery';

/** A receive request carrying a payment. */
export interface SettlementRequest extends ReceiveRequest {
  /** The raw `PAYMENT-SIGNATURE` header value (base64 or base64url). */
  readonly paymentSignature: string;
}

/**
 * The outcome of a settlement request: a `final` stored answer (`settled` → HTTP 200, `failed` → 402
 * `settlement_failed`), identical bytes for every submission of the payment, or `pending` (202
 * `settlement_pending`): settle was called but the chain has not told yet.
 */
export type SettlementResult = FinalSettlementResult | PendingSettlementResult;

/** A payment's stored answer, the same bytes for every submission (and every recovery) of it. */
export interface FinalSettlementResult {
  readonly kind: 'final';
  readonly paymentId: string;
  readonly answer: StoredSettlementAnswer;
}

/** Settle was called but the chain has not told yet: ask again, never pay again. */
export interface PendingSettlementResult {
  readonly kind: 'pending';
  readonly paymentId: string;
  readonly transaction: string | null;
  /** `PAYMENT-RESPONSE`: `success: false`, `errorReason: 'settlement_pending'`. */
  readonly paymentResponse: string;
  readonly retryAfterSeconds: number;
}

/** Settles payments exactly once. */
export interface Settlement {
  /**
   * Settles the payment in `request.paymentSignature` for the ref of the request.
   *
   * @throws X402HeaderError (`invalid_request` / `payment_verification_failed`), GatewayError
   *   `not_found`, `invalid_request`, `ref_expired`, `ref_revoked`, `payto_revoked`, `conflict` (the
   *   payment id or the authorization belongs to another payload or ref), `payment_verification_failed`
   *   (our checks, naming the field, or the facilitator's verdict), `facilitator_unavailable` (none
   *   configured, or unreachable before settle: the claim is released and the payer may retry).
   */
  settle(request: SettlementRequest): Promise<SettlementResult>;
}

/** How many times one request may start over from the claim (a claim released under it, a lease lost). */
const maxClaims = 3;

/**
 * Creates the settlement state machine (see the README, section "Gateway: payments"). One request runs
 * one explicit loop over {@link SettlementStep}s, and only a return to `claim` counts against its
 * budget (three), so no path can spin:
 *
 * - `claim`: the payload is checked offline (ref payable, requirement regenerated and compared,
 *   authorization, signature, echoed offer: a payload failing them never reaches the facilitator), then
 *   it is **claimed** by payment id and by the EIP-3009 payer and nonce, with its settle mark, while the
 *   facilitator verifies it (no side effects) — or after verify, when the chain cannot be read or only
 *   the facilitator can check the signature: verify passed → `settle`; refused → `refused`; the
 *   facilitator unreachable → the claim is released. Held by an earlier submission → `follow`.
 * - `follow`: the same payload gets the stored answer (also when the offline checks or the facilitator
 *   fail today: the transfer happened), waits for the submission in progress, takes over a claim whose
 *   holder died (`run`: verify again, mark, settle; or pending when its settle had started), or is
 *   refused with `conflict` when the payload, ref or amount differs (a settled payment's twin gets its answer:
 *   `isSettledTwin`); a claim released meanwhile → `claim`.
 * - `settle` / `refused` / `run` (`createClaimHolder`): settle exactly once and record the outcome once —
 *   settled (after the chain confirms the transfer), failed (a refusal of the payload before any
 *   broadcast), or pending (everything else: the chain decides, inline when it can, the recovery job
 *   otherwise); a refusal that may mean "already executed" asks the chain (a payment executed elsewhere
 *   is settled with its receipt, one not executed is refused and released).
 * - `done`: the payment's stored answer, or `settlement_pending`.
 *
 * @param deps - Payment dependencies plus the context resolver, receipt issuer and recovery.
 * @param settings - Payment settings.
 * @returns The service.
 *
 * @example
 * ```ts
 * import { createSettlement } from '@tollgate/core/gateway';
 * const settlement = createSettlement({ ...deps, contexts, issuer, recovery }, settings);
 * const result = await settlement.settle({ payTo, query: { ref: refId }, paymentSignature: header });
 * ```
 */
export function createSettlement(
  deps: PaymentDeps & { readonly contexts: PaymentContexts; readonly issuer: ReceiptIssuer; readonly recovery: SettlementRecovery },
  settings: PaymentSettings,
): Settlement {
  const { contexts, issuer, recovery } = deps;
  const { payments } = deps.stores;
  const sleep = deps.sleep ?? defaultSleep;
  const checks = createPaymentChecks(deps, settings);
  const holder = createClaimHolder(deps);
  const verifyNew = (payload: PaymentPayload, context: PaymentContext) => checks.verify(payload, context, nowSeconds());
  const nowSeconds = () => Math.floor(deps.clock.now() / 1000);
  const event = (payment: PaymentRecord) => deps.onEvent?.({ type: 'claimed', paymentId: payment.paymentId, refId: payment.refId });

  function resultOf(payment: PaymentRecord, context: PaymentContext): SettlementResult {
    if (payment.answer !== null) return { kind: 'final', paymentId: payment.paymentId, answer: payment.answer };
    return {
      kind: 'pending',
      paymentId: payment.paymentId,
      transaction: payment.txHash,
      paymentResponse: issuer.pendingResponse({ payment, network: context.network }),
      retryAfterSeconds: settings.pendingRetryAfterSeconds,
    };
  }

  /**
   * A submission: the offline checks (a payload that fails them never reaches the facilitator), then the
   * facilitator's verify (no side effects) and the claim, which carries its settle mark when it is taken
   * for settling. Usually the two run at once: waiting for verify before writing would add a database
   * round trip to every payment. The price is that a claim written during verify is marked from the
   * start, so a process dying inside verify leaves a payment only chain evidence can finish. Hence the
   * overlap only where chain evidence can finish it and where our own check already proved the payer
   * signed (a smart-wallet signature only the facilitator can check would let anyone make us write);
   * otherwise verify runs first and a refusal of the payload claims nothing. A verify that refuses or
   * fails after the claim hands it to `refused` or releases it: this holder knows it never called settle.
   * A replay meets its earlier submission at the claim (never a second settle); when the checks or the
   * facilitator fail today, it is looked up and still gets its answer.
   */
  async function claim(payload: PaymentPayload, context: PaymentContext, identity: PaymentIdentity): Promise<SettlementStep> {
    const facilitator = deps.facilitator;
    if (facilitator === undefined) throw new Error('A claim needs a facilitator.');
    let signature: ExactSignatureStatus;
    try {
      signature = verifyNew(payload, context);
      // A refund ref's intent must still be open (one read, for refund refs only).
      await checks.verifyRefundIntent(context);
    } catch (error) {
      // An earlier submission still gets its answer (the ref may have expired or been revoked since).
      return followOr(identity, error);
    }
    const leaseToken = randomId();
    const now = deps.clock.now();
    const claimWith = (settleStarted: boolean) => payments.claimPayment(paymentClaim(identity, context, { leaseToken, now, leaseMs: settings.leaseMs, settleStarted }));
    const verifying = facilitator.verify(payload, context.requirements);
    let claimed: PromiseSettledResult<PaymentClaimOutcome>;
    let verified: PromiseSettledResult<VerifyResponse>;
    if (signature === 'verified' && deps.chain?.(context.network) !== undefined) {
      [claimed, verified] = await Promise.allSettled([claimWith(true), verifying]);
    } else {
      [verified] = await Promise.allSettled([verifying]);
      // An earlier submission's answer needs no facilitator.
      if (verified.status === 'rejected') return followOr(identity, verified.reason);
      const reason = verified.value.invalidReason ?? 'invalid_payment';
      if (!verified.value.isValid && facilitatorRefusalKind(reason) === 'payload') {
        throw new GatewayError('payment_verification_failed', `The facilitator refused the payment (${reason}).`, {
          details: { field: 'facilitator', reason, paymentId: identity.paymentId },
        });
      }
      [claimed] = await Promise.allSettled([claimWith(verified.value.isValid)]);
    }
    if (claimed.status === 'rejected') throw claimed.reason;
    const outcome = claimed.value;
    // An earlier submission's answer needs neither this verify nor the facilitator.
    if (outcome.kind === 'existing') return { kind: 'follow', payment: outcome.payment };
    if (outcome.kind === 'not_payable') {
      // The statuses this request was checked with were stale: refuse exactly as a fresh read would.
      contexts.assertPayable({ ...context, refStatus: outcome.status?.refStatus ?? 'revoked', payToStatus: outcome.status?.payToStatus ?? context.payToStatus }, nowSeconds());
      throw new GatewayError('not_found', 'No such ref for this payTo.');
    }
    // A refund ref (or an order's ref) takes one payment, and another holds it: nothing was claimed, settle is never called.
    if (outcome.kind === 'ref_used') throw paymentConflict(identity.paymentId, 'ref_used');
    event(outcome.payment);
    if (verified.status === 'rejected') return holder.release(outcome.payment, leaseToken, 'facilitator_unavailable', verified.reason);
    const verdict = verified.value;
    if (verdict.isValid) return { kind: 'settle', payment: outcome.payment };
    // A refusal of the payload releases the claim; any other may mean "already executed": the chain decides.
    return { kind: 'refused', payment: outcome.payment, leaseToken, reason: verdict.invalidReason ?? 'invalid_payment' };
  }

  /** An earlier submission of this payment gets its answer; without one, `error` stands. */
  async function followOr(identity: PaymentIdentity, error: unknown): Promise<SettlementStep> {
    const existing = await payments.findPayment(identity);
    if (existing === undefined) throw error;
    return { kind: 'follow', payment: existing };
  }

  /** An earlier submission of this payment id or authorization exists: answer as it stands, wait for it, or take it over. */
  async function follow(found: PaymentRecord, identity: PaymentIdentity, payload: PaymentPayload, context: PaymentContext): Promise<SettlementStep> {
    // A twin of a settled payment (rebuilt from its public calldata) gets its stored answer, never a settle.
    if (assertSamePaymentOrTwin(found, identity, payload, context, { nowSeconds: nowSeconds(), settings, secp256k1: deps.secp256k1 }) === 'twin') return { kind: 'done', payment: found };
    if (found.refId !== context.ref.id || found.amount !== context.amount) throw paymentConflict(identity.paymentId, 'other_ref');
    // Waited on the injected clock, like the lease; the number of polls also bounds the wait, so it ends
    // on a clock that does not move (a test's ManualClock) after about `waitMs` all the same.
    const waitUntil = deps.clock.now() + settings.waitMs;
    const maxPolls = Math.ceil(settings.waitMs / settings.pollMs);
    let payment: PaymentRecord | undefined = found;
    for (let polls = 0; ; polls += 1) {
      // The submission in progress released its claim (refused, or the facilitator was down): start over.
      if (payment === undefined) return { kind: 'claim' };
      if (payment.state === 'settled' || payment.state === 'failed') return { kind: 'done', payment };
      if (payment.state === 'pending') return { kind: 'done', payment: await recovery.resolve(payment) };
      if (payment.leaseUntil !== null && payment.leaseUntil.getTime() <= deps.clock.now()) return takeOver(payment, payload, context);
      if (polls >= maxPolls || deps.clock.now() >= waitUntil) return { kind: 'done', payment };
      await sleep(settings.pollMs);
      payment = await payments.getPayment(payment.paymentId);
    }
  }

  /** The claim holder's lease ended (it died or hung): take the claim over. */
  async function takeOver(payment: PaymentRecord, payload: PaymentPayload, context: PaymentContext): Promise<SettlementStep> {
    const taken = await recovery.takeOver(payment);
    switch (taken.kind) {
      case 'lost':
        return taken.payment === undefined ? { kind: 'claim' } : { kind: 'done', payment: taken.payment };
      case 'pending':
        return { kind: 'done', payment: await recovery.resolve(taken.payment) };
      case 'held':
        try {
          verifyNew(payload, context);
        } catch (error) {
          return holder.release(taken.payment, taken.leaseToken, 'verification_failed', error);
        }
        return { kind: 'run', payment: taken.payment, leaseToken: taken.leaseToken };
    }
  }

  /** Without a facilitator nothing can be settled, but an earlier submission still gets its answer. */
  function withoutFacilitator(payload: PaymentPayload, context: PaymentContext, identity: PaymentIdentity): Promise<SettlementStep> {
    try {
      verifyNew(payload, context);
    } catch (error) {
      return followOr(identity, error);
    }
    throw new GatewayError('facilitator_unavailable', 'This gateway has no payment facilitator configured; it cannot settle payments.', {
      details: { reason: 'not_configured' },
    });
  }

  /** The loop: one step at a time until an answer, with one budget for starting over. */
  async function run(payload: PaymentPayload, context: PaymentContext, identity: PaymentIdentity, first: SettlementStep): Promise<SettlementResult> {
    let claims = 0;
    for (let step = first; ; ) {
      switch (step.kind) {
        case 'claim':
          if (claims++ >= maxClaims) throw new GatewayError('facilitator_unavailable', 'The payment could not be settled right now; retry later.', { retryAfterSeconds: 5 });
          // A claim needs the facilitator; without one only an earlier submission's answer can be given.
          step = deps.facilitator === undefined ? await withoutFacilitator(payload, context, identity) : await claim(payload, context, identity);
          break;
        case 'follow':
          step = await follow(step.payment, identity, payload, context);
          break;
        case 'run':
          step = await holder.run(step.payment, step.leaseToken, payload, context);
          break;
        case 'settle':
          step = await holder.settle(step.payment, payload, context);
          break;
        case 'refused':
          step = await holder.refused(step.payment, step.leaseToken, step.reason);
          break;
        case 'done':
          return resultOf(step.payment, context);
      }
    }
  }

  return {
    async settle(request) {
      const payload = decodePaymentSignatureHeader(request.paymentSignature);
      // Statuses may come from the negotiation's short cache: the claim re-reads them atomically.
      const context = await contexts.resolve(request);
      const identity = identifyPayment(payload, context.network.chainId, extractPaymentIdentifier(payload));
      if (identity === undefined) {
        verifyNew(payload, context);
        throw new PaymentVerificationError('payload', 'malformed', 'The EIP-3009 payload is malformed.');
      }
      // Before the claim: a payload bound to another ref must not hold this authorization even briefly,
      // or the genuine submission to its own ref would meet it (`other_ref`).
      checks.verifyResource(payload, context);
      return run(payload, context, identity, { kind: 'claim' });
    },
  };
}
