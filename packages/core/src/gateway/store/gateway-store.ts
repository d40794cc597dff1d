import type {
  NewPaymentClaim,
  PaymentClaimOutcome,
  PaymentCompletion,
  PaymentFailure,
  PaymentLookup,
  PaymentRecord,
  PaymentStatus,
  PaymentTarget,
  PaymentTransition,
} from './payment-records';
import type {
  ChallengeRecord,
  CredentialKind,
  MerchantRecord,
  NewCredential,
  NewRefRecord,
  PayToRecord,
  RefRecord,
} from './records';

/** A registration after its signature was verified; see {@link GatewayStore.register}. */
export interface RegistrationRequest {
  readonly challengeId: string;
  /** Registration time; the challenge must expire strictly after it. */
  readonly now: Date;
  /** Must equal the challenge's payTo and network. */
  readonly payTo: string;
  readonly network: string;
  readonly proof: 'eoa' | 'erc1271';
  /**
   * `enroll`: create a merchant for a new payTo, or recover the credentials of the payTo's merchant.
   * `attach`: add the payTo to an existing (authenticated) merchant.
   */
  readonly mode:
    | {
        readonly kind: 'enroll';
        /** Id for a new merchant (unused when the payTo already has one). */
        readonly merchantId: string;
        readonly label: string;
        readonly webhookUrl: string | null;
        readonly apiKey: NewCredential;
        readonly notifyKey: NewCredential;
      }
    | { readonly kind: 'attach'; readonly merchantId: string };
}

/** What {@link GatewayStore.register} did. */
export type RegistrationOutcome =
  | { readonly kind: 'created'; readonly merchantId: string }
  | { readonly kind: 'recovered'; readonly merchantId: string; readonly revokedApiKeyIds: readonly string[] }
  | { readonly kind: 'attached'; readonly merchantId: string }
  | { readonly kind: 'already_attached'; readonly merchantId: string }
  | { readonly kind: 'challenge_unavailable'; readonly reason: 'unknown' | 'consumed' | 'expired' | 'mismatch' }
  | { readonly kind: 'payto_retired' }
  | { readonly kind: 'payto_taken' };

/** What {@link GatewayStore.rotateCredential} did. */
export type RotationOutcome =
  | { readonly kind: 'rotated'; readonly previousId: string }
  | { readonly kind: 'previous_exists'; readonly previousId: string }
  | { readonly kind: 'merchant_not_found' };

/** What {@link GatewayStore.createRef} did. */
export type CreateRefOutcome =
  | { readonly kind: 'created'; readonly ref: RefRecord }
  | { readonly kind: 'payto_not_found' }
  | { readonly kind: 'payto_retired' }
  | { readonly kind: 'invoice_taken'; readonly refId: string };

/** An API key found by its hash. */
export interface ApiKeyMatch {
  readonly merchantId: string;
  readonly credentialId: string;
  readonly status: 'current' | 'previous';
}

/** A page request of {@link GatewayStore.listRefs}: newest first, strictly after `before` when given. */
export interface ListRefsQuery {
  readonly merchantId: string;
  readonly payTo: string;
  readonly limit: number;
  readonly before?: { readonly createdAt: Date; readonly refId: string };
}

/**
 * Port: everything the gateway's merchant and ref services persist. Implementations:
 * `createSqlGatewayStore(sql)`; check others with `describeGatewayStoreConformance`.
 *
 * Contract:
 * - **Challenges are single-use.** {@link GatewayStore.register} consumes the challenge atomically in the
 *   same transaction as its effect: of any number of concurrent calls with one challenge, at most one
 *   sees it unconsumed; a challenge past `expiresAt`, already consumed, or issued for another payTo or
 *   network is never consumed. Any outcome but `challenge_unavailable` consumes it.
 * - **A payTo belongs to one merchant, forever.** Concurrent registrations of one payTo are serialised:
 *   the first `enroll` creates the merchant, later ones recover it. `enroll` on a payTo recovers its
 *   merchant: label and webhook URL are replaced, every API key is revoked, the current notify key
 *   becomes the previous one (an older previous one is revoked), and the new keys become current.
 *   `attach` never changes a payTo owned by another merchant (`payto_taken`). A retired payTo is never
 *   registered again (`payto_retired`).
 * - **Credentials.** At most one `current` and one `previous` per merchant and kind, at any moment.
 *   Rotation is atomic: it refuses while a previous exists, else demotes current to previous and adds
 *   the new current. Revocation only ever touches the previous credential. Only `current` and
 *   `previous` API keys authenticate.
 * - **Refs.** `createRef` inserts only while the payTo is active and owned by the merchant (checked in
 *   the same transaction, so a concurrent retirement either precedes or follows it), and keeps
 *   `invoiceId` unique per merchant among active refs (of concurrent creations, one wins; the others
 *   get its refId). A ref's fields never change except `status`/`revokedAt`, set once by `revokeRef`.
 * - **Tenancy.** Every merchant-scoped method matches on the merchant id and treats another merchant's
 *   ref or payTo exactly like a missing one.
 * - **Idempotency.** `revokeRef` and `retirePayTo` may be repeated: they keep the first revocation time.
 * - **Ordering.** `listRefs` returns newest first by `(createdAt, id)`, descending.
 * - **Payments are claimed once.** `claimPayment` inserts only when neither the payment id nor the
 *   authorization `(chainId, payer, nonce)` is held by another payment; of any number of concurrent
 *   claims (on any instance), exactly one gets `claimed`, the others the existing payment (the one
 *   holding the id when there is one, else the one holding the authorization). The claim also reads
 *   the ref's and its payTo's status in the same statement: a new claim on a revoked ref or a retired
 *   payTo is refused (`not_payable`), so a payment is never claimed on a stale status.
 * - **Leases fence the claim holder.** While `processing`, only the holder of a live lease may
 *   `startSettle` or `releasePayment`; `takeOverPayment` hands an expired lease to a new holder.
 *   `releasePayment` deletes the claim only while settle has not started (nothing can be on chain).
 * - **Transitions are one-way and atomic.** `processing → pending` (`markPaymentPending`, which enqueues
 *   the payment's settlement-recovery job in the same transaction; `renewRecovery` replaces a job that
 *   died, also in one transaction), `processing | pending → settled`
 *   (`completePayment`, which stores the receipt and answer and enqueues the merchant notification in the
 *   same transaction) and `processing | pending → failed` (`failPayment`). A transition from any other
 *   state changes nothing and returns the payment as it stands, so the first final outcome wins and its
 *   answer is the one every replay gets. Settled and failed payments never change again.
 */
export interface GatewayStore {
  /** Stores a new challenge (its id is unique). */
  insertChallenge(challenge: ChallengeRecord): Promise<void>;
  /** The challenge with `id`, consumed or not. */
  getChallenge(id: string): Promise<ChallengeRecord | undefined>;
  /** Deletes challenges that expired before `before`; returns how many. */
  deleteExpiredChallenges(before: Date): Promise<number>;
  /** Consumes the challenge and enrolls, recovers or attaches, atomically (see the contract). */
  register(request: RegistrationRequest): Promise<RegistrationOutcome>;
  /** The live API key whose keyed hash is `secretHash`. */
  findApiKey(secretHash: string): Promise<ApiKeyMatch | undefined>;
  /** A merchant with its payTos and live credentials. */
  getMerchant(merchantId: string): Promise<MerchantRecord | undefined>;
  /** Adds `credential` as current, demoting the current one (see the contract). */
  rotateCredential(params: { merchantId: string; kind: CredentialKind; credential: NewCredential; now: Date }): Promise<RotationOutcome>;
  /** Revokes the previous credential of `kind`; returns its id, or `null` when there was none. */
  revokePreviousCredential(params: { merchantId: string; kind: CredentialKind; now: Date }): Promise<{ revokedId: string | null }>;
  /** The payTo `address` (any owner). */
  getPayTo(address: string): Promise<PayToRecord | undefined>;
  /** Retires the merchant's payTo; `undefined` when the merchant does not own it. */
  retirePayTo(params: { merchantId: string; address: string; now: Date }): Promise<PayToRecord | undefined>;
  /** Creates a ref (see the contract). */
  createRef(ref: NewRefRecord): Promise<CreateRefOutcome>;
  /** The ref with `id` (any owner). */
  getRef(id: string): Promise<RefRecord | undefined>;
  /** A page of the merchant's refs for one payTo. */
  listRefs(query: ListRefsQuery): Promise<RefRecord[]>;
  /** Revokes the merchant's ref; `undefined` when the merchant does not own it. */
  revokeRef(params: { merchantId: string; refId: string; now: Date }): Promise<RefRecord | undefined>;
  /** The ref with the status of its payTo, in one read. */
  getPaymentTarget(refId: string): Promise<PaymentTarget | undefined>;
  /** Only the mutable facts of a ref: its status and its payTo's status (every receive request reads them). */
  getPaymentStatus(refId: string): Promise<PaymentStatus | undefined>;
  /** Claims a payment (see the contract). */
  claimPayment(claim: NewPaymentClaim): Promise<PaymentClaimOutcome>;
  /** The payment holding `paymentId`, else the one holding the authorization. */
  findPayment(lookup: PaymentLookup): Promise<PaymentRecord | undefined>;
  /** The payment with `paymentId`. */
  getPayment(paymentId: string): Promise<PaymentRecord | undefined>;
  /**
   * Records that settle is being called, with the chain's head block as known then (`headBlock`, decimal,
   * kept from the first call); `false` when the caller no longer holds a live lease.
   */
  startSettle(params: { paymentId: string; leaseToken: string; headBlock: string | null; now: Date }): Promise<boolean>;
  /** Deletes a claim whose settle never started; `false` when the caller does not hold it. */
  releasePayment(params: { paymentId: string; leaseToken: string }): Promise<boolean>;
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
