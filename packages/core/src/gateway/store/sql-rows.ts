import type { ChallengeRecord, CredentialRecord, PayToRecord, RefRecord } from './records';

// Row shapes as the SqlClient decodes them (timestamptz → Date) and their mapping to records.

/** Columns of `gateway_challenges` in select order. */
export const challengeColumns = 'id, origin, action, pay_to, network, webhook_sha256, nonce, issued_at, expires_at, consumed_at';

/** A `gateway_challenges` row. */
export interface ChallengeRow {
  id: string;
  origin: string;
  action: string;
  pay_to: string;
  network: string;
  webhook_sha256: string | null;
  nonce: string;
  issued_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  [column: string]: unknown;
}

/** Maps a challenge row. */
export function toChallenge(row: ChallengeRow): ChallengeRecord {
  return {
    id: row.id,
    origin: row.origin,
    action: row.action,
    payTo: row.pay_to,
    network: row.network,
    webhookSha256: row.webhook_sha256,
    nonce: row.nonce,
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
  };
}

/** Columns of `gateway_pay_tos` in select order. */
export const payToColumns = 'address, merchant_id, status, proof, proof_network, registered_at, retired_at';

/** A `gateway_pay_tos` row. */
export interface PayToRow {
  address: string;
  merchant_id: string;
  status: PayToRecord['status'];
  proof: PayToRecord['proof'];
  proof_network: string;
  registered_at: Date;
  retired_at: Date | null;
  [column: string]: unknown;
}

/** Maps a payTo row. */
export function toPayTo(row: PayToRow): PayToRecord {
  return {
    address: row.address,
    merchantId: row.merchant_id,
    status: row.status,
    proof: row.proof,
    proofNetwork: row.proof_network,
    registeredAt: row.registered_at,
    retiredAt: row.retired_at,
  };
}

/** A `gateway_credentials` row without the hash. */
export interface CredentialRow {
  id: string;
  kind: CredentialRecord['kind'];
  status: CredentialRecord['status'];
  created_at: Date;
  revoked_at: Date | null;
  [column: string]: unknown;
}

/** Maps a credential row. */
export function toCredential(row: CredentialRow): CredentialRecord {
  return { id: row.id, kind: row.kind, status: row.status, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** Columns of `gateway_refs` in select order. */
export const refColumns =
  'id, kind, refund_of, refund_from, merchant_id, pay_to, network, asset, amount, invoice_id, label, notify_url, snapshot, status, created_at, expires_at, revoked_at';

/** A `gateway_refs` row. */
export interface RefRow {
  id: string;
  kind: RefRecord['kind'];
  refund_of: string | null;
  refund_from: string | null;
  merchant_id: string;
  pay_to: string;
  network: string;
  asset: string;
  amount: string | null;
  invoice_id: string | null;
  label: string | null;
  notify_url: string | null;
  snapshot: string;
  status: RefRecord['status'];
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  [column: string]: unknown;
}

/** Maps a ref row. */
export function toRef(row: RefRow): RefRecord {
  return {
    id: row.id,
    kind: row.kind,
    refundOf: row.refund_of,
    refundFrom: row.refund_from,
    merchantId: row.merchant_id,
    payTo: row.pay_to,
    network: row.network,
    asset: row.asset,
    amount: row.amount,
    invoiceId: row.invoice_id,
    label: row.label,
    notifyUrl: row.notify_url,
    snapshotJson: row.snapshot,
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}
