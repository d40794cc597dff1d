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
 *   twice. A thrown error, or any `{ success: false }` carrying a transaction hash (`settlement_pending`,
 *   but also a failure such as `invalid_exact_evm_transaction_state` that the official facilitator
 *   answers for a broadcast still unconfirmed), means the transfer may still land: keep the claim pending
 *   and finish from chain evidence (`settlementOutcome` tells the cases apart).
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
 * - `settled`: the transfer is on chain (`transaction` is its hash);
 * - `pending`: the outcome is not known yet: `settlement_pending` (broadcast but not confirmed within the
 *   facilitator's wait; `transaction` is the hash when the facilitator sent one, else `''`), or any
 *   failure that carries a transaction hash (`errorReason` says which): a broadcast transaction may
 *   still be mined, and even a reverted one leaves the signed authorization executable until its
 *   `validBefore`, so only the chain can tell;
 * - `failed`: refused without a transaction: nothing happened on chain for this payload.
 */
export type SettlementOutcome =
  | { status: 'settled'; transaction: string; payer?: string }
  | { status: 'pending'; transaction: string; errorReason?: string; payer?: string }
  | { status: 'failed'; errorReason: string; errorMessage?: string; transaction: string; payer?: string };

/**
 * Classifies a settle answer, surfacing `settlement_pending` (upstream x402 ≥ 2.23, and Tollgate's dev
 * facilitator, answer it with the hash when the receipt wait timed out after broadcast) and every other
 * failure that carries a transaction hash (x402 2.27 answers `invalid_exact_evm_transaction_state` with the
 * hash of a broadcast still unconfirmed) apart from a failure, so the caller records a pending claim
 * instead of a final failure.
 *
 * @param response - The facilitator's settle answer.
 * @returns The outcome.
 *
 * @example
 * ```ts
 * import { settlementOutcome } from '@tollgate/core';
 * const outcome = settlementOutcome(await facilitator.settle(payload, accepted));
 * if (outcome.status === 'pending') await markPending(outcome.transaction);
 * ```
 */
export function settlementOutcome(response: SettleResponse): SettlementOutcome {
  const payer = response.payer === undefined ? {} : { payer: response.payer };
  if (response.success) return { status: 'settled', transaction: response.transaction, ...payer };
  if (response.errorReason === 'settlement_pending') return { status: 'pending', transaction: response.transaction, ...payer };
  if (response.transaction !== '') return { status: 'pending', transaction: response.transaction, errorReason: response.errorReason ?? 'unexpected_settle_error', ...payer };
  return {
    status: 'failed',
    errorReason: response.errorReason ?? 'unexpected_settle_error',
    ...(response.errorMessage === undefined ? {} : { errorMessage: response.errorMessage }),
    transaction: response.transaction,
    ...payer,
  };
}
