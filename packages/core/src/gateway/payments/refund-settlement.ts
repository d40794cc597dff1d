import { encodeX402Header } from '../../x402/headers';
import type { RefundReceipt } from '../../x402/refund-receipt';
import type { Network } from '../../x402/wire';
import { OFFER_RECEIPT, x402ReceiptInfoSchema, type X402SignedReceipt } from '../../x402/x402-offer-receipt';

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
export interface RefundSettlementBody {
  x402Version: 2;
  success: true;
  network: Network;
  transaction: string;
  payer: string;
  receiptStatus: 'issued';
  response: { code: 'settled'; message: string };
  extensions: {
    [OFFER_RECEIPT]: { info: { receipt: X402SignedReceipt }; schema: typeof x402ReceiptInfoSchema; signedReceipt: string; receipt: RefundReceipt };
  };
}

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
  const { receipt } = params;
  const body: RefundSettlementBody = {
    x402Version: 2,
    success: true,
    network: receipt.network,
    transaction: receipt.txHash,
    payer: receipt.from,
    receiptStatus: 'issued',
    response: { code: 'settled', message: 'Refund settled.' },
    extensions: {
      [OFFER_RECEIPT]: { info: { receipt: params.x402Receipt }, schema: x402ReceiptInfoSchema, signedReceipt: params.signedReceipt, receipt },
    },
  };
  return { body, header: encodeX402Header(body) };
}
