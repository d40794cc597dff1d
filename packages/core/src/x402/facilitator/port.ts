import { facilitatorRefusalKind } from './failure-reasons';
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from '../wire';

/**
 * An x402 facilitator: the service that checks a payment against the chain and broadcasts it.
 * `createHttpFacilitator` talks to one over HTTP; tests may implement it in memory.
 *
 * Contract of every implementation:
 * - **Verdicts are data.** A payment the facilitator judges invalid resolves `{ isValid: false,
 *   invalidReason }`; a settlement that failed resolves `{ success: false, errorReason, transaction }`.
 *   Neither throws.
 * - **No verdict throws** `FacilitatorUnavailableError` (timeout, unreachable, 5xx/408/429: retryable)
 *   or `FacilitatorProtocolError` (an answer that is not the x402 wire format). Nothing else escapes.
 * - `verify` has no side effects: calling it again with the same arguments is safe.
 * - `settle` re-verifies and, when valid, broadcasts the EIP-3009 transfer and normally waits for its
 *   receipt. It is not idempotent as a call, but the transfer is: the authorization's nonce executes at
 *   most once on chain, so a repeated settle answers a failure (nonce already used) rather than paying
 *   twice. A thrown error, any `{ success: false }` carrying a transaction hash, and any hash-less failure
 *   that does not refuse the payload itself (the official facilitator answers
 *   `invalid_exact_evm_transaction_failed` with no hash when sending throws, even after the node accepted
 *   the transaction) mean the transfer may still land: keep the claim pending and finish from chain
 *   evidence (`settlementOutcome` tells the cases apart).
 * - `requirements` are sent as given: pass the gateway's regenerated requirement, never the client's
 *   `accepted`.
 *
 * @example
 * ```ts
 * import { createHttpFacilitator, type Facilitator } from '@tollgate/core';
 * const facilitator: Facilitator = createHttpFacilitator({ url: 'https://x402.org/facilitator' });
 * const verdict = await facilitator.verify(payload, accepted);
 * if (verdict.isValid) await facilitator.settle(payload, accepted);
 * ```
 */
export interface Facilitator {
  /** `POST /verify`: is this payment valid for these requirements right now? */
  verify(payload: PaymentPayload, requirements: Readonly<PaymentRequirements>): Promise<VerifyResponse>;
  /** `POST /settle`: execute the payment on chain. */
  settle(payload: PaymentPayload, requirements: Readonly<PaymentRequirements>): Promise<SettleResponse>;
  /** `GET /supported`: the (version, scheme, network) kinds, extensions and signer addresses it serves. */
  supported(): Promise<SupportedResponse>;
}

/**
 * What a settle answer means for the payment:
 * - `settled`: the facilitator says the transfer is on chain (`transaction` is its hash);
 * - `pending`: the outcome is not known yet: `settlement_pending`, any failure that carries a transaction
 *   hash (a broadcast transaction may still be mined, and even a reverted one leaves the signed
 *   authorization executable until its `validBefore`), and every hash-less failure whose reason is not a
 *   refusal of the payload itself (`facilitatorRefusalKind`): the official facilitator answers
 *   `invalid_exact_evm_transaction_failed` with an empty hash when sending throws, also after the node
 *   accepted the transaction. Only the chain can tell;
 * - `failed`: refused for the payload itself before any broadcast: nothing happened on chain.
 */
export type SettlementOutcome =
  | { status: 'settled'; transaction: string; payer?: string }
  | { status: 'pending'; transaction: string; errorReason?: string; payer?: string }
  | { status: 'failed'; errorReason: string; errorMessage?: string; transaction: string; payer?: string };

/**
 * Classifies a settle answer (see {@link SettlementOutcome}): a failure is final only when it refuses
 * the payload itself; everything else after a settle call is pending until chain evidence decides.
 *
 * @param response - The facilitator's settle answer.
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import { settlementOutcome } from '@tollgate/core/x402';
 * const outcome = settlementOutcome(await facilitator.settle(payload, accepted));
 * if (outcome.status === 'pending') await markPending(outcome.transaction);
 * ```
 */
export function settlementOutcome(response: SettleResponse): SettlementOutcome {
  const payer = response.payer === undefined ? {} : { payer: response.payer };
  if (response.success) return { status: 'settled', transaction: response.transaction, ...payer };
  const errorReason = response.errorReason ?? 'unexpected_settle_error';
  if (response.transaction !== '' || facilitatorRefusalKind(errorReason) === 'chain') return { status: 'pending', transaction: response.transaction, errorReason, ...payer };
  return {
    status: 'failed',
    errorReason,
    ...(response.errorMessage === undefined ? {} : { errorMessage: response.errorMessage }),
    transaction: response.transaction,
    ...payer,
  };
}
