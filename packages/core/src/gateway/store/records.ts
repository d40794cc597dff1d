/**
 * The records the `MerchantStore` and `RefStore` keep. Addresses are EIP-55 checksummed everywhere (callers
 * normalise with viem's `getAddress` first), times are `Date`s with millisecond precision.
 *
 * @module
 */

/** Which credential of a merchant: its API key or its notify HMAC key. */
export type CredentialKind = 'api' | 'notify';

/** `current` signs/authenticates; `previous` still works until revoked (roll-over); `revoked` never again. */
export type CredentialStatus = 'current' | 'previous' | 'revoked';

/** A payTo is `active` until its owner retires it; retirement is final. */
export type PayToStatus = 'active' | 'retired';

/** A ref is `active` until its owner revokes it; revocation is final. */
export type RefStatus = 'active' | 'revoked';

/** A registration challenge as issued. Only `consumedAt` ever changes (once). */
export interface ChallengeRecord {
  readonly id: string;
  readonly origin: string;
  readonly action: string;
  readonly payTo: string;
  readonly network: string;
  readonly webhookSha256: string | null;
  readonly nonce: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly consumedAt: Date | null;
}

/** A credential to create. `secretHash` is set for API keys (their keyed hash) and absent for notify keys. */
export interface NewCredential {
  readonly id: string;
  readonly secretHash?: string;
}

/** A merchant's credential (never the secret). */
export interface CredentialRecord {
  readonly id: string;
  readonly kind: CredentialKind;
  readonly status: CredentialStatus;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** A registered payTo address. */
export interface PayToRecord {
  readonly address: string;
  readonly merchantId: string;
  readonly status: PayToStatus;
  /** How control was proven at registration. */
  readonly proof: 'eoa' | 'erc1271';
  /** The network the proof was made on (a contract wallet is only proven on that chain). */
  readonly proofNetwork: string;
  readonly registeredAt: Date;
  readonly retiredAt: Date | null;
}

/** A merchant with its payTos and its live (current and previous) credentials. */
export interface MerchantRecord {
  readonly id: string;
  readonly label: string;
  readonly webhookUrl: string | null;
  readonly createdAt: Date;
  /** Ordered by registration time. */
  readonly payTos: readonly PayToRecord[];
  /** Current and previous credentials only, ordered by kind, creation time, then previous before current. */
  readonly credentials: readonly CredentialRecord[];
}

/**
 * What a ref is for: `payment` (a merchant is paid at one of its registered payTos) or `refund` (an
 * order's payer is paid back: the payTo is the payer, the only accepted payer is `refundFrom`, the
 * order's payTo, and the payment must name `refundOf`, the original receipt's hash).
 */
export type RefKind = 'payment' | 'refund';

/** A ref as stored. `snapshotJson` is the exact JSON text returned at creation; it never changes. */
export interface RefRecord {
  readonly id: string;
  readonly kind: RefKind;
  /** `sha256:<hex>` of the receipt a refund ref pays back; `null` for payment refs. */
  readonly refundOf: string | null;
  /** The only payer a refund ref accepts (the order's payTo); `null` for payment refs. */
  readonly refundFrom: string | null;
  readonly merchantId: string;
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  readonly amount: string | null;
  readonly invoiceId: string | null;
  readonly label: string | null;
  readonly notifyUrl: string | null;
  readonly snapshotJson: string;
  readonly status: RefStatus;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
}

/** A ref to create: everything but the status fields; a payment ref may leave out the refund fields. */
export type NewRefRecord = Omit<RefRecord, 'status' | 'revokedAt' | 'kind' | 'refundOf' | 'refundFrom'> & Partial<Pick<RefRecord, 'kind' | 'refundOf' | 'refundFrom'>>;
