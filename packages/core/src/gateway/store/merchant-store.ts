import type { ChallengeRecord, CredentialKind, MerchantRecord, NewCredential, PayToRecord } from './records';

/** A registration after its signature was verified; see {@link MerchantStore.register}. */
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

/** What {@link MerchantStore.register} did. */
export type RegistrationOutcome =
  | { readonly kind: 'created'; readonly merchantId: string }
  | { readonly kind: 'recovered'; readonly merchantId: string; readonly revokedApiKeyIds: readonly string[] }
  | { readonly kind: 'attached'; readonly merchantId: string }
  | { readonly kind: 'already_attached'; readonly merchantId: string }
  | { readonly kind: 'challenge_unavailable'; readonly reason: 'unknown' | 'consumed' | 'expired' | 'mismatch' }
  | { readonly kind: 'payto_retired' }
  | { readonly kind: 'payto_taken' };

/** What {@link MerchantStore.rotateCredential} did. */
export type RotationOutcome =
  | { readonly kind: 'rotated'; readonly previousId: string }
  | { readonly kind: 'previous_exists'; readonly previousId: string }
  | { readonly kind: 'merchant_not_found' };

/** An API key found by its hash. */
export interface ApiKeyMatch {
  readonly merchantId: string;
  readonly credentialId: string;
  readonly status: 'current' | 'previous';
}

/**
 * Port: the merchant aggregate — registration challenges, merchants, their credentials and their payTo
 * addresses. Implementations: `createSqlMerchantStore(sql)`; check others with
 * `describeMerchantStoreConformance`.
 *
 * Contract:
 * - **Challenges are single-use.** {@link MerchantStore.register} consumes the challenge atomically in the
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
 * - **Tenancy.** Every merchant-scoped method matches on the merchant id and treats another merchant's
 *   payTo exactly like a missing one.
 * - **Idempotency.** `retirePayTo` may be repeated: it keeps the first retirement time.
 * - **Retirement is final and seen by the other aggregates.** A retired payTo takes no new ref
 *   (`RefStore.createRef` checks it in its own transaction) and no new payment claim
 *   (`PaymentStore.claimPayment` reads it in the claim's statement); the three ports of one gateway share
 *   one database.
 */
export interface MerchantStore {
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
}
