import { encodeX402Header } from './headers';
import type { PaymentReceipt } from './receipt';
import { OFFER_RECEIPT, x402ReceiptInfoSchema, type X402SignedReceipt } from './x402-offer-receipt';
import type { Network } from './wire';

/**
 * `extensions['offer-receipt']` of a successful settlement: the official x402 entry (`info.receipt`,
 * `schema`, read by `extractReceiptFromResponse` and verified by `verifyReceiptSignatureEIP712`) plus
 * Tollgate's spec fields `signedReceipt` and `receipt` next to it. `Receipt` is the Tollgate receipt
 * it carries: a payment's, or (order mode) a refund's.
 */
export interface SettlementReceiptExtension<Receipt = PaymentReceipt> {
  info: { receipt: X402SignedReceipt };
  schema: typeof x402ReceiptInfoSchema;
  signedReceipt: string;
  receipt: Receipt;
}

/** The body (and `PAYMENT-RESPONSE` content) of a successful settlement, as the gateway spec lays it out. */
export interface SettlementSuccessBody<Receipt = PaymentReceipt> {
  x402Version: 2;
  success: true;
  network: Network;
  transaction: string;
  payer: string;
  receiptStatus: 'issued';
  response: { code: 'settled'; message: string };
  extensions: { [OFFER_RECEIPT]: SettlementReceiptExtension<Receipt> };
}

/** The `PAYMENT-RESPONSE` content of a failed or unfinished settlement. */
export interface SettlementFailureBody {
  x402Version: 2;
  success: false;
  /** The facilitator's reason, passed through (`insufficient_funds`, `settlement_pending`, …). */
  errorReason: string;
  errorMessage?: string;
  network: Network;
  /** `''` when nothing was broadcast, else the hash (e.g. a pending settlement). */
  transaction: string;
  payer?: string;
}

/** Parameters of {@link buildSettlementResponse}. */
export interface BuildSettlementResponseParams {
  receipt: PaymentReceipt;
  /** From `signReceipt(receipt, key)`. */
  signedReceipt: string;
  /** From `signX402Receipt({ network, resourceUrl, payer, issuedAt, transaction }, key)`. */
  x402Receipt: X402SignedReceipt;
  /** Default `Payment settled.` */
  message?: string;
}

/**
 * Builds the success body of a settlement and its `PAYMENT-RESPONSE` header value (base64 of the same
 * JSON). `network`, `transaction` and `payer` come from the receipt, so body, header and receipt
 * cannot disagree. Official clients parse the header with `decodePaymentResponseHeader` (`@x402/fetch`).
 *
 * @param params - Receipt, its signature, the x402 receipt artifact and an optional message.
 * @returns `{ body, header }`.
 *
 * @example
 * ```ts
 * import { buildSettlementResponse } from '@tollgate/core/x402';
 * const { body, header } = buildSettlementResponse({ receipt, signedReceipt, x402Receipt });
 * return { status: 200, headers: { 'payment-response': header }, body };
 * ```
 */
export function buildSettlementResponse(params: BuildSettlementResponseParams): { body: SettlementSuccessBody; header: string } {
  const { receipt, signedReceipt, x402Receipt } = params;
  return buildSettledAnswer({ receipt, payer: receipt.payer, signedReceipt, x402Receipt, message: params.message ?? 'Payment settled.' });
}

/**
 * The success body and header of any settled transfer, whatever Tollgate receipt it carries (a payment's
 * here, a refund's in `buildRefundSettlementResponse`). `network` and `transaction` come from the receipt;
 * `payer` is who signed the transfer's authorization, as x402 defines the payer.
 *
 * @param params - The receipt, the payer, the receipt's signature, the x402 receipt artifact and the message.
 * @returns `{ body, header }`.
 *
 * @example
 * ```ts
 * const { body, header } = buildSettledAnswer({ receipt, payer: receipt.payer, signedReceipt, x402Receipt, message: 'Payment settled.' });
 * ```
 */
export function buildSettledAnswer<Receipt extends { network: Network; txHash: string }>(params: {
  receipt: Receipt;
  payer: string;
  signedReceipt: string;
  x402Receipt: X402SignedReceipt;
  message: string;
}): { body: SettlementSuccessBody<Receipt>; header: string } {
  const { receipt } = params;
  const body: SettlementSuccessBody<Receipt> = {
    x402Version: 2,
    success: true,
    network: receipt.network,
    transaction: receipt.txHash,
    payer: params.payer,
    receiptStatus: 'issued',
    response: { code: 'settled', message: params.message },
    extensions: {
      [OFFER_RECEIPT]: { info: { receipt: params.x402Receipt }, schema: x402ReceiptInfoSchema, signedReceipt: params.signedReceipt, receipt },
    },
  };
  return { body, header: encodeX402Header(body) };
}

/** Parameters of {@link buildSettlementFailureResponse}. */
export interface BuildSettlementFailureParams {
  network: Network;
  errorReason: string;
  errorMessage?: string;
  /** The transaction hash when one was broadcast; default `''`. */
  transaction?: string;
  payer?: string;
}

/**
 * Builds the `PAYMENT-RESPONSE` of a settlement that failed (`settlement_failed`, 402) or is still
 * pending, in the x402 `SettleResponse` shape with `success: false`. The HTTP body is the gateway error
 * envelope; this header tells x402 clients the facilitator's reason.
 *
 * @param params - Network, reason, optional message, transaction hash and payer.
 * @returns `{ body, header }`.
 *
 * @example
 * ```ts
 * import { buildSettlementFailureResponse } from '@tollgate/core/x402';
 * const { header } = buildSettlementFailureResponse({ network: 'eip155:8453', errorReason: 'insufficient_funds', payer });
 * ```
 */
export function buildSettlementFailureResponse(params: BuildSettlementFailureParams): { body: SettlementFailureBody; header: string } {
  const body: SettlementFailureBody = {
    x402Version: 2,
    success: false,
    errorReason: params.errorReason,
    ...(params.errorMessage === undefined ? {} : { errorMessage: params.errorMessage }),
    network: params.network,
    transaction: params.transaction ?? '',
    ...(params.payer === undefined ? {} : { payer: params.payer }),
  };
  return { body, header: encodeX402Header(body) };
}
