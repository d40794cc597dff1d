import type {
  EvidenceScan,
  NewPaymentClaim,
  PaymentClaimOutcome,
  PaymentCompletion,
  PaymentFailure,
  PaymentLookup,
  PaymentRecord,
  PaymentTransition,
} from './payment-records';

/**
 * Port: the payment aggregate — x402 payments from their claim to their final answer, with the leases
 * that fence the claim holder and the jobs their transitions enqueue. Implementations:
 * `createSqlPaymentStore(sql)`; check others with `describePaymentStoreConformance`. The store shares its
 * database with the `RefStore` and `MerchantStore` (the claim reads their rows) and with the job queue
 * (transitions enqueue into it).
 *
 * Contract:
 * - **Payments are claimed once.** `claimPayment` inserts only when neither the payment id nor the
 *   authorization `(chainId, payer, nonce)` is held by another payment; of any number of concurrent
 *   claims (on any instance), exactly one gets `claimed`, the others the existing payment (the one
 *   holding the id when there is one, else the one holding the authorization). The claim also reads
 *   the ref's and its payTo's status in the same statement: a new claim on a revoked ref or a retired
 *   payTo is refused (`not_payable`), so a payment is never claimed on a stale status. A claim taken with
 *   `settleStarted` carries its settle mark from the start (as if `startSettle` had run in the same
 *   statement): from then on it is never released.
 * - **Refund refs and order refs take one payment.** While a payment of such a ref is claimed
 *   (processing, pending or settled), a claim of another payment of it is refused with `ref_used` and
 *   the holder (decided in the claim's statement, so of concurrent claims exactly one is taken). A
 *   failed or released payment frees the ref. The claim holds a share lock on the ref until it commits,
 *   so `OrderStore` cancellations and rejections, which revoke the ref first, never cross a claim.
 * - **Leases fence the claim holder.** While `processing`, only the holder of a live lease may
 *   `startSettle` or `releasePayment`; `takeOverPayment` hands an expired lease to a new holder.
 *   `releasePayment` deletes the claim only while settle has not started (nothing can be on chain), or
 *   when its holder says it never called settle (`settleNeverCalled`: a claim written with its settle
 *   mark while the facilitator verified, then refused or left unverified).
 * - **Transitions are one-way and atomic.** `processing → pending` (`markPaymentPending`, which enqueues
 *   the payment's settlement-recovery job in the same transaction; `renewRecovery` replaces a job that
 *   died, also in one transaction), `processing | pending → settled`
 *   (`completePayment`, which stores the receipt and answer and enqueues the merchant notification in the
 *   same transaction, with the order-mode effects of `OrderStore`'s contract: an order's ref payment
 *   makes the order paid and enqueues `order.paid`, a refund ref payment makes the intent paid, moves its
 *   amount from reserved to refunded and enqueues `order.refunded`) and `processing | pending → failed` (`failPayment`). A transition from any other
 *   state changes nothing and returns the payment as it stands, so the first final outcome wins and its
 *   answer is the one every replay gets. Settled and failed payments never change again.
 */
export interface PaymentStore {
  /** Claims a payment (see the contract). */
  claimPayment(claim: NewPaymentClaim): Promise<PaymentClaimOutcome>;
  /** The payment holding `paymentId`, else the one holding the authorization. */
  findPayment(lookup: PaymentLookup): Promise<PaymentRecord | undefined>;
  /** The payment with `paymentId`. */
  getPayment(paymentId: string): Promise<PaymentRecord | undefined>;
  /** Records that settle is being called (the first time is kept); `false` when the caller no longer holds a live lease. */
  startSettle(params: { paymentId: string; leaseToken: string; now: Date }): Promise<boolean>;
  /**
   * Keeps the transaction hash a facilitator answered on a `processing` or `pending` payment that has
   * none yet, before anything else is done with it (so a crash cannot lose it); `false` otherwise.
   */
  recordTxHash(params: { paymentId: string; txHash: string; now: Date }): Promise<boolean>;
  /**
   * Keeps the progress of the payment's chain-evidence search on a `processing` or `pending` payment:
   * window bounds already known are never replaced, the scanned range is. `false` when the payment is
   * in neither state.
   */
  recordEvidenceScan(params: { paymentId: string; scan: EvidenceScan }): Promise<boolean>;
  /**
   * Deletes a claim whose settle never started; `false` when the caller does not hold it. With
   * `settleNeverCalled`, the holder vouches that it never called settle for this claim, and a claim
   * carrying its settle mark is deleted too (only the lease holder can know this: anyone else must
   * treat a marked claim as possibly on chain).
   */
  releasePayment(params: { paymentId: string; leaseToken: string; settleNeverCalled?: boolean }): Promise<boolean>;
  /** Up to `limit` `processing` payments whose lease ended before `now`, oldest lease first (their holder died). */
  listAbandonedPayments(params: { now: Date; limit: number }): Promise<PaymentRecord[]>;
  /** Gives a `processing` payment whose lease expired at `now` to a new holder; `undefined` otherwise. */
  takeOverPayment(params: { paymentId: string; leaseToken: string; leaseUntil: Date; now: Date }): Promise<PaymentRecord | undefined>;
  /**
   * Up to `limit` `pending` payments whose current recovery job (generation `recoveryGeneration`) is
   * neither pending nor running: it used all its attempts (dead) or is gone. Least recently changed first.
   */
  listStrandedPayments(params: { limit: number }): Promise<PaymentRecord[]>;
  /**
   * Moves a `pending` payment from recovery generation `generation` to the next one and enqueues that
   * generation's recovery job, atomically; `false` (nothing changed) when the payment is no longer
   * pending or another caller renewed it first.
   */
  renewRecovery(params: { paymentId: string; generation: number; now: Date }): Promise<boolean>;
  /** `processing → pending` with the recovery job; a known transaction hash is kept (also on a pending payment without one). */
  markPaymentPending(params: { paymentId: string; txHash: string | null; now: Date }): Promise<PaymentTransition | undefined>;
  /** `processing | pending → settled` with the notification job. */
  completePayment(completion: PaymentCompletion): Promise<PaymentTransition | undefined>;
  /** `processing | pending → failed`. */
  failPayment(failure: PaymentFailure): Promise<PaymentTransition | undefined>;
}
