import type { NotificationJob } from '../notifications/notification-job';
import type { PayToStatus, RefRecord, RefStatus } from './records';

/**
 * The records of x402 payments the {@link PaymentStore} keeps (see `payments/` for the state machine).
 *
 * @module
 */

/**
 * Where a payment stands:
 * - `processing`: claimed by one request (the lease holder) that verifies and settles it;
 * - `pending`: settle was called but its outcome is unknown (timeout, broadcast without receipt):
 *   settle is never called again, chain evidence finishes it;
 * - `settled`: on chain, receipt issued, answer stored;
 * - `failed`: final, nothing more will happen (reverted, canceled, expired unused), answer stored.
 */
export type PaymentState = 'processing' | 'pending' | 'settled' | 'failed';

/**
 * The answer a final payment gives to every submission of its payload, stored once and replayed byte
 * for byte: `settled` (HTTP 200) or `failed` (402 `settlement_failed`), the `PAYMENT-RESPONSE` header
 * value, and the exact JSON body text.
 */
export interface StoredSettlementAnswer {
  readonly outcome: 'settled' | 'failed';
  readonly paymentResponse: string;
  readonly body: string;
}

/** What identifies a payment and fixes its terms: set by the claim, never changed. Addresses are EIP-55 checksummed, the nonce lowercase hex. */
export interface PaymentIdentityFields {
  /** The client's payment-identifier id, or `auth:<chainId>:<payer>:<nonce>` when it sent none. */
  readonly paymentId: string;
  readonly refId: string;
  readonly merchantId: string;
  /** Network name (`base`, `local`). */
  readonly network: string;
  readonly chainId: number;
  readonly payTo: string;
  readonly payer: string;
  /** Atomic units, decimal string. */
  readonly amount: string;
  /** The EIP-3009 authorization nonce. */
  readonly nonce: string;
  /** The authorization's `validBefore`, Unix seconds as a decimal string. */
  readonly validBefore: string;
  /**
   * The authorization's `validAfter`, Unix seconds as a decimal string (`null` only on payments claimed
   * before it was recorded: their evidence is searched from block 0).
   */
  readonly validAfter: string | null;
  /** sha256 (hex) of the canonical JSON of the decoded payment payload. */
  readonly fingerprint: string;
}

/** A claimed payment. */
export interface PaymentRecord extends PaymentIdentityFields {
  readonly state: PaymentState;
  /** The lease holder's token, while `processing`. */
  readonly leaseToken: string | null;
  /** When the lease ends, while `processing`. */
  readonly leaseUntil: Date | null;
  /** When settle was (about to be) called; never reset. */
  readonly settleStartedAt: Date | null;
  /** How far the search for the payment's chain evidence got (see {@link EvidenceScan}). */
  readonly evidence: EvidenceScan;
  /** Which recovery job is current while `pending` (see `settlementRecoveryJobKey`); 0 at first. */
  readonly recoveryGeneration: number;
  readonly txHash: string | null;
  /** Decimal string, when known. */
  readonly blockNumber: string | null;
  /** Hex `receiptHash` of the issued receipt (settled only). */
  readonly receiptHash: string | null;
  /** The receipt's JSON text as issued (settled only). */
  readonly receiptJson: string | null;
  readonly signedReceipt: string | null;
  /** Set exactly when the state is `settled` or `failed`. */
  readonly answer: StoredSettlementAnswer | null;
  /** Why it failed (`failed` only): the facilitator's reason or the chain's verdict. */
  readonly errorReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** When it became settled or failed. */
  readonly completedAt: Date | null;
}

/**
 * The progress of a payment's chain-evidence search, kept on the row so that every attempt continues
 * where the previous one stopped (block numbers; `null` while unknown).
 */
export interface EvidenceScan {
  /** The first block whose timestamp is after the authorization's `validAfter`. */
  readonly windowLow: bigint | null;
  /** The last block whose timestamp is before `validBefore`, once the chain is past it. */
  readonly windowHigh: bigint | null;
  /** The blocks already searched: one inclusive range, `null` before the first search. */
  readonly scanned: { readonly low: bigint; readonly high: bigint } | null;
}

/** A ref with the status of its payTo: everything a receive request checks, in one read. */
export interface PaymentTarget {
  readonly ref: RefRecord;
  readonly payToStatus: PayToStatus;
}

/** The mutable facts a receive request checks: the ref's status and its payTo's status. */
export interface PaymentStatus {
  readonly refStatus: RefStatus;
  readonly payToStatus: PayToStatus;
}

/** A new claim: the payment's identity and a lease for the claiming request. */
export interface NewPaymentClaim extends PaymentIdentityFields {
  readonly leaseToken: string;
  readonly leaseUntil: Date;
  readonly now: Date;
  /**
   * The claim is taken right before settle is called (the facilitator's verify already passed): it is
   * recorded with its settle mark (`settleStartedAt = now`) in the same statement.
   */
  readonly settleStarted?: boolean;
  /**
   * For a transfer the chain shows mined (recovery): its block time. The claim is then also taken on a
   * ref revoked, or a payTo retired, at or after it: revocation blocks future payments, it never
   * un-records a mined one.
   */
  readonly minedAt?: Date;
}

/** What {@link PaymentStore.claimPayment} did: created the claim, or found the payment holding the id or the authorization. */
export type PaymentClaimOutcome =
  | { readonly kind: 'claimed'; readonly payment: PaymentRecord }
  | { readonly kind: 'existing'; readonly payment: PaymentRecord }
  /** Nothing holds the payment, and the ref is revoked or its payTo retired (or the ref is gone): no claim. */
  | { readonly kind: 'not_payable'; readonly status: PaymentStatus | undefined }
  /**
   * The ref takes one payment (a refund ref, or an order's ref) and `holder`, another payment, holds it
   * (processing, pending or settled): no claim. A failed holder frees the ref.
   */
  | { readonly kind: 'ref_used'; readonly holder: PaymentRecord };

/** How {@link PaymentStore.findPayment} looks a payment up: by id, else by its authorization. */
export interface PaymentLookup {
  readonly paymentId: string;
  readonly chainId: number;
  readonly payer: string;
  readonly nonce: string;
}

/** A settled payment's receipt and answer, for {@link PaymentStore.completePayment}. */
export interface PaymentCompletion {
  readonly paymentId: string;
  readonly txHash: string;
  readonly blockNumber: string | null;
  readonly receiptHash: string;
  readonly receiptJson: string;
  readonly signedReceipt: string;
  readonly answer: StoredSettlementAnswer;
  /**
   * The merchant notification (`payment.settled`), enqueued in the same transaction; `null` for none
   * (a refund payment: the store enqueues its `order.refunded` notification itself). Whatever it is, a
   * payment of an order's ref also enqueues `order.paid`.
   */
  readonly notification: NotificationJob | null;
  readonly now: Date;
}

/** A final failure, for {@link PaymentStore.failPayment}. */
export interface PaymentFailure {
  readonly paymentId: string;
  readonly errorReason: string;
  /** A reverted transaction's hash, when there is one. */
  readonly txHash: string | null;
  readonly answer: StoredSettlementAnswer;
  readonly now: Date;
}

/** The outcome of a state transition: whether this call made it, and the payment as it now stands. */
export interface PaymentTransition {
  readonly changed: boolean;
  readonly payment: PaymentRecord;
}
