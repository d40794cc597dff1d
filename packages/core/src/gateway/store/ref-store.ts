import type { PaymentStatus, PaymentTarget } from './payment-records';
import type { NewRefRecord, RefRecord } from './records';

/** What {@link RefStore.createRef} did. */
export type CreateRefOutcome =
  | { readonly kind: 'created'; readonly ref: RefRecord }
  | { readonly kind: 'payto_not_found' }
  | { readonly kind: 'payto_retired' }
  | { readonly kind: 'invoice_taken'; readonly refId: string };

/** A page request of {@link RefStore.listRefs}: newest first, strictly after `before` when given. */
export interface ListRefsQuery {
  readonly merchantId: string;
  readonly payTo: string;
  readonly limit: number;
  readonly before?: { readonly createdAt: Date; readonly refId: string };
}

/**
 * Port: the ref aggregate — refs, and the two reads every receive request makes of a ref and its payTo's
 * status. Implementations: `createSqlRefStore(sql)`; check others with `describeRefStoreConformance`.
 * A ref names a payTo the `MerchantStore` keeps: both live in one database, and the ref store reads the
 * payTo rows (ownership and status) without writing them.
 *
 * Contract:
 * - **Kinds.** `createRef` creates payment refs; refund refs are created with their refund intent
 *   (`OrderStore.createRefund`), and `createRef` refuses them (rejects with a `TypeError`).
 * - **Refs.** `createRef` inserts only while the payTo is active and owned by the merchant (checked in
 *   the same transaction, so a concurrent retirement either precedes or follows it), and keeps
 *   `invoiceId` unique per merchant among active refs (of concurrent creations, one wins; the others
 *   get its refId). A ref's fields never change except `status`/`revokedAt`, set once by `revokeRef`.
 * - **Tenancy.** Every merchant-scoped method matches on the merchant id and treats another merchant's
 *   ref or payTo exactly like a missing one.
 * - **Idempotency.** `revokeRef` may be repeated: it keeps the first revocation time.
 * - **Ordering.** `listRefs` returns newest first by `(createdAt, id)`, descending.
 * - **Revocation is final and seen by payments.** A revoked ref takes no new payment claim
 *   (`PaymentStore.claimPayment` reads its status in the claim's statement).
 */
export interface RefStore {
  /** Creates a ref (see the contract). */
  createRef(ref: NewRefRecord): Promise<CreateRefOutcome>;
  /** The ref with `id` (any owner). */
  getRef(id: string): Promise<RefRecord | undefined>;
  /** A page of the merchant's payment refs for one payTo (refund refs are read through `OrderStore`). */
  listRefs(query: ListRefsQuery): Promise<RefRecord[]>;
  /**
   * Revokes the merchant's ref; `undefined` when the merchant does not own it, or when it is an order's
   * ref or a refund ref (those are revoked with their order or intent: `OrderStore.cancelOrder`, `rejectRefund`).
   */
  revokeRef(params: { merchantId: string; refId: string; now: Date }): Promise<RefRecord | undefined>;
  /** The ref with the status of its payTo, in one read. */
  getPaymentTarget(refId: string): Promise<PaymentTarget | undefined>;
  /** Only the mutable facts of a ref: its status and its payTo's status (every receive request reads them). */
  getPaymentStatus(refId: string): Promise<PaymentStatus | undefined>;
}
