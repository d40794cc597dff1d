import type { GatewayNetwork } from '../networks';
import type { PaymentRecord, StoredSettlementAnswer } from '../store/payment-records';
import type { PaymentSettings } from './payment-deps';
import type { PaymentIdentity } from './payment-identity';
import type { ReceiptIssuer } from './receipt-issuer';
import type { FinalSettlementResult, PendingSettlementResult } from './settlement';

/**
 * Why a recovery is still open: `in_progress` (a claim holder is settling it, or the record was just
 * made), `not_yet_on_chain` (settle was called, the authorization is unused so far), `searching` /
 * `evidence_missing` (the authorization is used on chain, its event is not found yet in the blocks read).
 */
export type RecoveryPendingReason = 'in_progress' | 'not_yet_on_chain' | 'searching' | 'evidence_missing';

/**
 * Why the chain shows no settlement of a payment the gateway holds no record of: `not_yet_on_chain` (unused,
 * still executable until `validBefore`), `authorization_expired` (unused and past `validBefore`: it never
 * will be), `authorization_canceled` (the payer canceled it), `settlement_mismatch` (its nonce was used by
 * another transfer).
 */
export type NotSettledReason = 'not_yet_on_chain' | 'authorization_expired' | 'authorization_canceled' | 'settlement_mismatch';

/**
 * What `/recover-settlement` answers:
 * - `final`: the payment's stored answer, the very bytes its payer got or would have got from `/receive`
 *   (`settled` with the receipt, or `failed`);
 * - `pending`: the outcome is not known yet; ask again (never pay again: settle may have run);
 * - `not_settled`: the chain shows no transfer of this authorization and the gateway never claimed it.
 *   `retryable` says whether it can still be settled (resubmitting the same `PAYMENT-SIGNATURE` to
 *   `/receive` settles it at most once) or never will be.
 */
export type RecoveryResult =
  | FinalSettlementResult
  | (PendingSettlementResult & { readonly reason: RecoveryPendingReason })
  | {
      readonly kind: 'not_settled';
      readonly paymentId: string;
      readonly reason: NotSettledReason;
      readonly retryable: boolean;
      /** The authorization's `validBefore` (Unix seconds, decimal): after it, an unused authorization is dead. */
      readonly validBefore: string;
      /** The transaction that used the nonce otherwise, for `authorization_canceled` / `settlement_mismatch`. */
      readonly transaction: string | null;
    };

/** Builders of the {@link RecoveryResult} variants. */
export interface RecoveryAnswers {
  final(payment: Pick<PaymentRecord, 'paymentId'>, answer: StoredSettlementAnswer): RecoveryResult;
  pending(payment: Pick<PaymentRecord, 'paymentId' | 'payer' | 'txHash'>, reason: RecoveryPendingReason, network: GatewayNetwork): RecoveryResult;
  notSettled(identity: Pick<PaymentIdentity, 'paymentId' | 'validBefore'>, reason: NotSettledReason, transaction: string | null): RecoveryResult;
}

/**
 * The builders of recovery answers over the receipt issuer (for the pending `PAYMENT-RESPONSE`).
 *
 * @param issuer - The receipt issuer.
 * @param settings - Payment settings (`pendingRetryAfterSeconds`).
 * @returns The builders.
 *
 * @example
 * ```ts
 * import { recoveryAnswers } from '@tollgate/core/gateway';
 * const answers = recoveryAnswers(issuer, settings);
 * const result = answers.notSettled(identity, 'not_yet_on_chain', null);
 * ```
 */
export function recoveryAnswers(issuer: ReceiptIssuer, settings: Pick<PaymentSettings, 'pendingRetryAfterSeconds'>): RecoveryAnswers {
  return {
    final: (payment, answer) => ({ kind: 'final', paymentId: payment.paymentId, answer }),
    pending: (payment, reason, network) => ({
      kind: 'pending',
      paymentId: payment.paymentId,
      transaction: payment.txHash,
      paymentResponse: issuer.pendingResponse({ payment, network }),
      retryAfterSeconds: settings.pendingRetryAfterSeconds,
      reason,
    }),
    notSettled: (identity, reason, transaction) => ({
      kind: 'not_settled',
      paymentId: identity.paymentId,
      reason,
      retryable: reason === 'not_yet_on_chain',
      validBefore: identity.validBefore,
      transaction,
    }),
  };
}
