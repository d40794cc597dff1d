import type { PaymentRecord, PaymentState } from './payment-records';

/** The columns of a `gateway_payments` row, in the order every payment query selects them. */
export const paymentColumns = `payment_id, ref_id, merchant_id, network, chain_id, pay_to, payer, amount, nonce, valid_before, fingerprint,
  state, lease_token, lease_until, settle_started_at, tx_hash, block_number, receipt_hash, receipt, signed_receipt,
  answer_outcome, answer_header, answer_body, error_reason, created_at, updated_at, completed_at, recovery_generation, valid_after,
  evidence_window_low, evidence_window_high, evidence_scanned_low, evidence_scanned_high`;

/** A `gateway_payments` row as the SQL client returns it (int8 as text, timestamptz as Date). */
export interface PaymentRow {
  payment_id: string;
  ref_id: string;
  merchant_id: string;
  network: string;
  chain_id: string;
  pay_to: string;
  payer: string;
  amount: string;
  nonce: string;
  valid_before: string;
  fingerprint: string;
  state: PaymentState;
  lease_token: string | null;
  lease_until: Date | null;
  settle_started_at: Date | null;
  tx_hash: string | null;
  block_number: string | null;
  receipt_hash: string | null;
  receipt: string | null;
  signed_receipt: string | null;
  answer_outcome: 'settled' | 'failed' | null;
  answer_header: string | null;
  answer_body: string | null;
  error_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  recovery_generation: number;
  valid_after: string | null;
  evidence_window_low: string | null;
  evidence_window_high: string | null;
  evidence_scanned_low: string | null;
  evidence_scanned_high: string | null;
  [column: string]: unknown;
}

/** The record of a `gateway_payments` row. */
export function toPayment(row: PaymentRow): PaymentRecord {
  return {
    paymentId: row.payment_id,
    refId: row.ref_id,
    merchantId: row.merchant_id,
    network: row.network,
    chainId: Number(row.chain_id),
    payTo: row.pay_to,
    payer: row.payer,
    amount: row.amount,
    nonce: row.nonce,
    validBefore: row.valid_before,
    validAfter: row.valid_after,
    fingerprint: row.fingerprint,
    state: row.state,
    leaseToken: row.lease_token,
    leaseUntil: row.lease_until,
    settleStartedAt: row.settle_started_at,
    txHash: row.tx_hash,
    blockNumber: row.block_number,
    receiptHash: row.receipt_hash,
    receiptJson: row.receipt,
    signedReceipt: row.signed_receipt,
    answer:
      row.answer_outcome === null || row.answer_header === null || row.answer_body === null
        ? null
        : { outcome: row.answer_outcome, paymentResponse: row.answer_header, body: row.answer_body },
    errorReason: row.error_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    recoveryGeneration: row.recovery_generation,
    evidence: {
      windowLow: row.evidence_window_low === null ? null : BigInt(row.evidence_window_low),
      windowHigh: row.evidence_window_high === null ? null : BigInt(row.evidence_window_high),
      scanned:
        row.evidence_scanned_low === null || row.evidence_scanned_high === null
          ? null
          : { low: BigInt(row.evidence_scanned_low), high: BigInt(row.evidence_scanned_high) },
    },
  };
}

/** A clock frozen at `now`, so jobs enqueued inside a transition carry the transition's time. */
export const frozenClock = (now: Date) => ({ now: () => now.getTime() });
