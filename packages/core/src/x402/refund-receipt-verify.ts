import * as v from 'valibot';
import { getAddress, type Address } from 'viem';
import { recoverDigestSigner, sameAddress } from './evm-signature';
import {
  REFUND_RECEIPT_TYPE,
  REJECTED_REFUND_RECEIPT_TYPE,
  refundReceiptDigest,
  refundReceiptHash,
  refundReceiptSchema,
  rejectedRefundReceiptSchema,
  type AnyRefundReceipt,
} from './refund-receipt';
import { issuePath } from './wire';

/**
 * Reading refund receipts received from elsewhere (`/verify-refund-receipt`, a merchant's or payer's own
 * check): parse by `type`, recover the signer. The formats and signing are in `./refund-receipt`.
 *
 * @module
 */

/** A refund receipt read from elsewhere, with the address its signature recovers to. */
export type ReadRefundReceipt =
  | { ok: true; receipt: AnyRefundReceipt; receiptHash: string; signer: Address | null }
  | { ok: false; reason: 'malformed_receipt'; field: string };

/**
 * Parses either refund receipt (by its `type`) and recovers the signer of `signedReceipt` over it. Whether
 * the signer is accepted (current or a previous receipt key) is the caller's policy.
 *
 * @param signedReceipt - The signature (untrusted).
 * @param receipt - The receipt (untrusted).
 * @returns The typed receipt, its hash and the recovered signer (`null` when the signature does not recover), or the malformed field.
 *
 * @example
 * ```ts
 * import { readRefundReceipt } from '@tollgate/core/x402';
 * const read = readRefundReceipt(body.signedReceipt, body.receipt);
 * if (read.ok && read.signer === gatewayAddress) console.log(read.receipt.type);
 * ```
 */
export function readRefundReceipt(signedReceipt: unknown, receipt: unknown): ReadRefundReceipt {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return { ok: false, reason: 'malformed_receipt', field: 'receipt' };
  const type = (receipt as Record<string, unknown>)['type'];
  const schema = type === REFUND_RECEIPT_TYPE ? refundReceiptSchema : type === REJECTED_REFUND_RECEIPT_TYPE ? rejectedRefundReceiptSchema : undefined;
  if (schema === undefined) return { ok: false, reason: 'malformed_receipt', field: 'type' };
  const parsed = v.safeParse(schema, receipt);
  if (!parsed.success) return { ok: false, reason: 'malformed_receipt', field: issuePath(parsed.issues) || 'receipt' };
  const typed = parsed.output as AnyRefundReceipt;
  const hash = refundReceiptHash(typed);
  const recovered = typeof signedReceipt === 'string' ? recoverDigestSigner(refundReceiptDigest(hash), signedReceipt) : undefined;
  return { ok: true, receipt: typed, receiptHash: hash, signer: recovered?.ok === true ? getAddress(recovered.address) : null };
}

/** The outcome of {@link verifySignedRefundReceipt}. */
export type SignedRefundReceiptVerification =
  | { valid: true; receipt: AnyRefundReceipt; receiptHash: string; signer: Address }
  | { valid: false; reason: 'malformed_receipt'; field: string }
  | { valid: false; reason: 'malformed_signature' | 'wrong_signer'; receiptHash: string; signer?: Address };

/**
 * Checks that `signedReceipt` is the expected gateway's signature of exactly this refund receipt (either
 * kind). The signature only: binding to the original receipt and the chain are `/verify-refund-receipt`'s.
 *
 * @param signedReceipt - The signature string.
 * @param receipt - The receipt as received (untrusted).
 * @param expectedSigner - The gateway's receipt-signing address.
 * @returns `valid: true` with the typed receipt, its hash and the signer, or why not.
 *
 * @example
 * ```ts
 * import { verifySignedRefundReceipt } from '@tollgate/core';
 * const result = verifySignedRefundReceipt(body.signedReceipt, body.receipt, gatewayAddress);
 * if (result.valid && result.receipt.type === 'x402.refund.receipt') console.log(result.receipt.txHash);
 * ```
 */
export function verifySignedRefundReceipt(signedReceipt: unknown, receipt: unknown, expectedSigner: Address): SignedRefundReceiptVerification {
  const read = readRefundReceipt(signedReceipt, receipt);
  if (!read.ok) return { valid: false, reason: read.reason, field: read.field };
  if (read.signer === null) return { valid: false, reason: 'malformed_signature', receiptHash: read.receiptHash };
  if (!sameAddress(read.signer, expectedSigner)) return { valid: false, reason: 'wrong_signer', receiptHash: read.receiptHash, signer: read.signer };
  return { valid: true, receipt: read.receipt, receiptHash: read.receiptHash, signer: read.signer };
}
