import type { RefundReceipt } from '../../x402/refund-receipt';
import { buildSettledAnswer, type SettlementSuccessBody } from '../../x402/settlement-response';
import type { X402SignedReceipt } from '../../x402/x402-offer-receipt';

/**
 * The 200 answer of a settled refund payment (`/receive/<payer>?ref=<refundRefId>&refundOf=…`). It has the
 * shape of a payment's settlement answer (`SettlementSuccessBody`), so x402 clients read it the same way;
 * what differs:
 *
 * - `extensions['offer-receipt'].receipt` is the {@link RefundReceipt} (`type: 'x402.refund.receipt'`:
 *   `from`/`to` instead of `payTo`/`payer`, plus `refundId`, `orderId`, `refundOf`) and `signedReceipt` is
 *   its signature (the same key and scheme as payment receipts);
 * - `payer` (top level, and in the official x402 receipt artifact) is the refund's `from`, the merchant's
 *   payTo that signed the authorization, as x402 defines the payer;
 * - `response.message` is `Refund settled.` (`response.code` stays `settled`).
 */
export type RefundSettlementBody = SettlementSuccessBody<RefundReceipt>;

/**
 * Builds a refund's settlement answer and its `PAYMENT-RESPONSE` header value (base64 of the same JSON).
 * `network`, `transaction` and `payer` come from the receipt, so body, header and receipt cannot disagree.
 *
 * @param params - The refund receipt, its signature and the x402 receipt artifact.
 * @returns `{ body, header }`.
 *
 * @example
 * ```ts
 * import { buildRefundSettlementResponse } from '@tollgate/core/gateway';
 * const { body, header } = buildRefundSettlementResponse({ receipt, signedReceipt, x402Receipt });
 * ```
 */
export function buildRefundSettlementResponse(params: { receipt: RefundReceipt; signedReceipt: string; x402Receipt: X402SignedReceipt }): { body: RefundSettlementBody; header: string } {
  const { receipt, signedReceipt, x402Receipt } = params;
  return buildSettledAnswer({ receipt, payer: receipt.from, signedReceipt, x402Receipt, message: 'Refund settled.' });
}
