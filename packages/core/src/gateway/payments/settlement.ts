import { randomId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import { PaymentVerificationError } from '../../x402/errors';
import { settlementOutcome } from '../../x402/facilitator/port';
import { decodePaymentSignatureHeader } from '../../x402/headers';
import { extractPaymentIdentifier } from '../../x402/payment-identifier';
import type { PaymentPayload } from '../../x402/wire';
import type { PaymentRecord, StoredSettlementAnswer } from '../store/payment-records';
import { createPaymentChecks } from './payment-checks';
import type { PaymentContext, PaymentContexts, ReceiveRequest } from './payment-context';
import { defaultSleep, type PaymentDeps, type PaymentSettings } from './payment-deps';
import { identifyPayment, type PaymentIdentity } from './payment-identity';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecovery } from './recovery';
import { watchHeadBlock } from './head-block';

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
export type SettlementResult =
  | { readonly kind: 'final'; readonly paymentId: string; readonly answer: StoredSettlementAnswer }
  | {
      readonly kind: 'pending';
      readonly paymentId: string;
      readonly transaction: string | null;
      /** `PAYMENT-RESPONSE`: `success: false`, `errorReason: 'settlement_pending'`. */
      readonly paymentResponse: string;
      readonly retryAfterSeconds: number;
    };

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

/**
 * Settle failures without a transaction hash that still do not prove nothing happened on chain: the
 * official facilitator reports any error thrown after broadcasting as `unexpected_settle_error` without a
 * hash, and "nonce already used" may mean this very authorization was executed. Chain evidence decides
 * those (and every failure that carries a hash: `settlementOutcome` makes it pending).
 */
const ambiguousSettleReasons = new Set(['unexpected_settle_error', 'invalid_exact_evm_nonce_already_used', 'nonce_already_used', 'duplicate_settlement']);

const maxRounds = 3;

/** Lets queued I/O (a query just issued) go out before a stretch of CPU work. */
const yieldToIo = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function conflict(paymentId: string, reason: 'payload_mismatch' | 'authorization_in_use' | 'other_ref'): GatewayError {
  const messages = {
    payload_mismatch: 'This payment id was already used with a different payment payload.',
    authorization_in_use: 'This EIP-3009 authorization already belongs to another payment id.',
    other_ref: 'This payment belongs to another ref or amount.',
  };
  return new GatewayError('conflict', messages[reason], { details: { paymentId, reason } });
}

/**
 * Creates the settlement state machine (see the README, section "Gateway: payments"):
 *
 * 1. decode `PAYMENT-SIGNATURE`, resolve the ref, read the payment id and identity; a payload naming
 *    another resource than the ref's is refused before anything else;
 * 2. **claim** it in the store with a lease, by payment id and by the EIP-3009 payer and nonce, while
 *    checking it offline (ref payable, requirement regenerated and compared, authorization, signature,
 *    echoed offer): both finish before any facilitator call;
 * 3. an earlier submission of the same payment gets its stored answer (also when the offline checks
 *    fail today because the ref expired or was revoked since: the transfer happened), waits for the
 *    submission in progress, or is refused with `conflict` when the payload, ref or amount differs;
 * 4. the claim holder has the facilitator verify (a refusal or an outage releases the claim), meanwhile
 *    reads the chain's head block (kept with the settle mark: the evidence search starts near it), marks
 *    settle as started, and settles;
 * 5. the outcome is recorded once: settled (receipt, answer, notification in one transaction), failed
 *    (refused without a transaction), or pending (timeout, a transaction hash without success, an
 *    ambiguous verdict), which chain evidence finishes inline when it can and the recovery job otherwise.
 *    Settle is never called twice for one claim.
 *
 * @param deps - Payment dependencies plus the context resolver, receipt issuer and recovery.
 * @param settings - Payment settings.
 * @returns The service.
 *
 * @example
 * ```ts
 * import { createSettlement } from '@tollgate/core';
 * const settlement = createSettlement({ ...deps, contexts, issuer, recovery }, settings);
 * const result = await settlement.settle({ payTo, query: { ref: refId }, paymentSignature: header });
 * ```
 */
export function createSettlement(
  deps: PaymentDeps & { readonly contexts: PaymentContexts; readonly issuer: ReceiptIssuer; readonly recovery: SettlementRecovery },
  settings: PaymentSettings,
): Settlement {
  const { store, contexts, issuer, recovery } = deps;
  const sleep = deps.sleep ?? defaultSleep;
  const checks = createPaymentChecks(deps, settings);
  const verifyNew = (payload: PaymentPayload, context: PaymentContext) => checks.verify(payload, context, nowSeconds());
  const nowDate = () => new Date(deps.clock.now());
  const nowSeconds = () => Math.floor(deps.clock.now() / 1000);
  const event = (type: Parameters<NonNullable<PaymentDeps['onEvent']>>[0]['type'], payment: PaymentRecord, extra: { txHash?: string; reason?: string } = {}) =>
    deps.onEvent?.({ type, paymentId: payment.paymentId, refId: payment.refId, ...extra });

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

  async function settlePayload(payload: PaymentPayload, context: PaymentContext, round: number): Promise<SettlementResult> {
    const identity = identifyPayment(payload, context.x402.chainId, extractPaymentIdentifier(payload));
    if (identity === undefined) {
      verifyNew(payload, context);
      throw new PaymentVerificationError('payload', 'malformed', 'The EIP-3009 payload is malformed.');
    }
    if (deps.facilitator === undefined) {
      try {
        verifyNew(payload, context);
      } catch (error) {
        return replayOr(error, identity, payload, context, round);
      }
      throw new GatewayError('facilitator_unavailable', 'This gateway has no payment facilitator configured; it cannot settle payments.', {
        details: { reason: 'not_configured' },
      });
    }
    // Before the claim: a payload bound to another ref must not hold this authorization even briefly,
    // or the genuine submission to its own ref would meet it (`other_ref`).
    checks.verifyResource(payload, context);
    const leaseToken = randomId();
    const now = deps.clock.now();
    // The claim's round trip overlaps the offline checks (an EC recovery): both finish before any
    // facilitator call. A claim taken for a payment that then fails the checks is released at once. The
    // outcome is captured at once, so a store that fails immediately is never an unhandled rejection
    // while the checks run.
    const claiming = store.claimPayment({
      paymentId: identity.paymentId,
      refId: context.ref.id,
      merchantId: context.ref.merchantId,
      network: context.network.name,
      chainId: identity.chainId,
      payTo: context.ref.payTo,
      payer: identity.payer,
      amount: context.amount,
      nonce: identity.nonce,
      validBefore: identity.validBefore,
      fingerprint: identity.fingerprint,
      leaseToken,
      leaseUntil: new Date(now + settings.leaseMs),
      now: new Date(now),
    }).then(
      (outcome) => ({ ok: true as const, outcome }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    await yieldToIo();
    let refusal: unknown;
    try {
      verifyNew(payload, context);
    } catch (error) {
      refusal = error;
    }
    const claimed = await claiming;
    if (!claimed.ok) throw claimed.error;
    const claim = claimed.outcome;
    if (claim.kind === 'existing') return followExisting(claim.payment, identity, payload, context, round);
    if (refusal !== undefined) {
      if (claim.kind === 'claimed') await release(claim.payment, leaseToken, 'verification_failed');
      throw refusal;
    }
    if (claim.kind === 'not_payable') {
      // The statuses this request was checked with were stale: refuse exactly as a fresh read would.
      contexts.assertPayable({ ...context, refStatus: claim.status?.refStatus ?? 'revoked', payToStatus: claim.status?.payToStatus ?? context.payToStatus }, nowSeconds());
      throw new GatewayError('not_found', 'No such ref for this payTo.');
    }
    event('claimed', claim.payment);
    return runClaim(claim.payment, leaseToken, payload, context, round);
  }

  /**
   * A payment that fails today's checks may still be an earlier submission (the ref expired or was
   * revoked since, the authorization expired): the transfer happened, so it keeps its stored answer.
   */
  async function replayOr(error: unknown, identity: PaymentIdentity, payload: PaymentPayload, context: PaymentContext, round: number): Promise<SettlementResult> {
    const existing = await store.findPayment(identity);
    if (existing !== undefined) return followExisting(existing, identity, payload, context, round);
    throw error;
  }

  /** An earlier submission of this payment id or authorization exists. */
  async function followExisting(
    found: PaymentRecord,
    identity: Pick<PaymentIdentity, 'paymentId' | 'fingerprint'>,
    payload: PaymentPayload,
    context: PaymentContext,
    round: number,
  ): Promise<SettlementResult> {
    if (found.paymentId !== identity.paymentId) throw conflict(identity.paymentId, 'authorization_in_use');
    if (found.fingerprint !== identity.fingerprint) throw conflict(identity.paymentId, 'payload_mismatch');
    if (found.refId !== context.ref.id || found.amount !== context.amount) throw conflict(identity.paymentId, 'other_ref');
    // Waited on the injected clock, like the lease; the number of polls also bounds the wait, so it ends
    // on a clock that does not move (a test's ManualClock) after about `waitMs` all the same.
    const waitUntil = deps.clock.now() + settings.waitMs;
    const maxPolls = Math.ceil(settings.waitMs / settings.pollMs);
    let payment: PaymentRecord | undefined = found;
    for (let polls = 0; ; polls += 1) {
      if (payment === undefined) {
        // The submission in progress released its claim (refused or facilitator down): start over.
        if (round + 1 >= maxRounds) throw new GatewayError('facilitator_unavailable', 'The payment could not be settled right now; retry later.', { retryAfterSeconds: 5 });
        return settlePayload(payload, context, round + 1);
      }
      switch (payment.state) {
        case 'settled':
        case 'failed':
          return resultOf(payment, context);
        case 'pending':
          return resultOf(await recovery.resolve(payment), context);
        case 'processing': {
          if (payment.leaseUntil !== null && payment.leaseUntil.getTime() <= deps.clock.now()) return takeOver(payment, payload, context, round);
          if (polls >= maxPolls || deps.clock.now() >= waitUntil) return resultOf(payment, context);
          await sleep(settings.pollMs);
          payment = await store.getPayment(payment.paymentId);
        }
      }
    }
  }

  /** The claim holder's lease ended (it died or hung): take the claim over. */
  async function takeOver(payment: PaymentRecord, payload: PaymentPayload, context: PaymentContext, round: number): Promise<SettlementResult> {
    const taken = await recovery.takeOver(payment);
    switch (taken.kind) {
      case 'lost':
        return taken.payment === undefined ? settlePayload(payload, context, round + 1) : resultOf(taken.payment, context);
      case 'pending':
        return resultOf(await recovery.resolve(taken.payment), context);
      case 'held':
        try {
          verifyNew(payload, context);
        } catch (error) {
          await store.releasePayment({ paymentId: taken.payment.paymentId, leaseToken: taken.leaseToken });
          throw error;
        }
        return runClaim(taken.payment, taken.leaseToken, payload, context, round);
    }
  }

  async function release(payment: PaymentRecord, leaseToken: string, reason: string): Promise<void> {
    await store.releasePayment({ paymentId: payment.paymentId, leaseToken });
    event('released', payment, { reason });
  }

  /** The claim holder's work: facilitator verify, settle, and recording the outcome. */
  async function runClaim(payment: PaymentRecord, leaseToken: string, payload: PaymentPayload, context: PaymentContext, round: number): Promise<SettlementResult> {
    const facilitator = deps.facilitator;
    if (facilitator === undefined) throw new Error('runClaim needs a facilitator.');
    // Read while the facilitator verifies (no added latency): what is known by the settle mark is kept.
    const headBlock = watchHeadBlock(deps.chain?.(context.network));
    let verdict;
    try {
      verdict = await facilitator.verify(payload, context.requirements);
    } catch (error) {
      await release(payment, leaseToken, 'facilitator_unavailable');
      throw error;
    }
    if (!verdict.isValid) {
      const reason = verdict.invalidReason ?? 'invalid_payment';
      await release(payment, leaseToken, reason);
      throw new GatewayError('payment_verification_failed', `The facilitator refused the payment (${reason}).`, {
        details: { field: 'facilitator', reason, paymentId: payment.paymentId },
      });
    }
    // Recorded only once verify passed, so a claim whose holder dies while verifying is taken over and
    // settled normally; from here on settle may run, and it never runs twice.
    if (!(await store.startSettle({ paymentId: payment.paymentId, leaseToken, headBlock: headBlock(), now: nowDate() }))) {
      // The lease ended while verifying and someone else holds the claim now.
      const current = await store.getPayment(payment.paymentId);
      return current === undefined ? settlePayload(payload, context, round + 1) : followExisting(current, payment, payload, context, round);
    }
    let response;
    try {
      response = await facilitator.settle(payload, context.requirements);
    } catch (error) {
      // No answer after settle: the transfer may be on chain. Never settle again; the chain decides.
      return markPending(payment, null, context, error instanceof Error ? error.name : 'settle_error');
    }
    const outcome = settlementOutcome(response);
    if (outcome.status === 'settled') return finish(payment, context, outcome.transaction);
    // A transaction hash without success (settlement_pending, a broadcast still unconfirmed, even a
    // revert: the authorization stays executable until validBefore) is never final: the chain decides.
    if (outcome.status === 'pending') return markPending(payment, outcome.transaction === '' ? null : outcome.transaction, context, outcome.errorReason ?? 'settlement_pending');
    if (ambiguousSettleReasons.has(outcome.errorReason)) return markPending(payment, null, context, outcome.errorReason);
    const answer = issuer.failure({ payment, network: context.network, reason: outcome.errorReason, message: `Settlement failed (${outcome.errorReason}).`, txHash: null });
    const failed = await store.failPayment({ paymentId: payment.paymentId, errorReason: outcome.errorReason, txHash: null, answer, now: nowDate() });
    if (failed?.changed) event('failed', payment, { reason: outcome.errorReason });
    return resultOf(failed?.payment ?? payment, context);
  }

  async function finish(payment: PaymentRecord, context: PaymentContext, txHash: string): Promise<SettlementResult> {
    const completion = await issuer.completion({ payment, ref: context.ref, network: context.network, txHash, now: nowDate() });
    const done = await store.completePayment(completion);
    if (done?.changed) event('settled', payment, { txHash: completion.txHash });
    return resultOf(done?.payment ?? payment, context);
  }

  async function markPending(payment: PaymentRecord, txHash: string | null, context: PaymentContext, reason: string): Promise<SettlementResult> {
    const pending = await store.markPaymentPending({ paymentId: payment.paymentId, txHash, now: nowDate() });
    if (pending?.changed) event('pending', payment, { reason, ...(txHash === null ? {} : { txHash }) });
    // The transfer is often already mined (the facilitator only missed the receipt): finish it now.
    return resultOf(await recovery.resolve(pending?.payment ?? payment), context);
  }

  return {
    async settle(request) {
      const payload = decodePaymentSignatureHeader(request.paymentSignature);
      // Statuses may come from the negotiation's short cache: the claim re-reads them atomically.
      const context = await contexts.resolve(request);
      return settlePayload(payload, context, 0);
    },
  };
}
