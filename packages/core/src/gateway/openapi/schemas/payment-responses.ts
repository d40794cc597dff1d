import * as v from 'valibot';
import { paymentReceiptSchema } from '../../../x402/receipt';
import { refundReceiptSchema } from '../../../x402/refund-receipt';
import type { SettlementFailureBody, SettlementSuccessBody } from '../../../x402/settlement-response';
import { paymentPayloadSchema, paymentRequiredSchema } from '../../../x402/wire';
import type { x402ReceiptInfoSchema } from '../../../x402/x402-offer-receipt';
import type { RefundSettlementBody } from '../../payments/refund-settlement';
import { named } from '../../../openapi/descriptors';
import type { AnySchema } from '../../../openapi/json-schema';
import { addressOut, caip2Out, describes, gatewayErrorOf, hash32Out, unixSeconds } from './common';

/**
 * Schemas of the x402 exchange at `/receive/:payTo` (and `/recover-settlement`, which answers the same
 * bytes): the settlement bodies and headers Tollgate builds (`x402/settlement-response.ts`), the 402
 * body, and the wire schemas the gateway already parses x402 with (`x402/wire.ts`, `x402/receipt.ts`).
 */

/** `PAYMENT-REQUIRED` content: x402 v2 `PaymentRequired`, as `x402/wire.ts` parses it. */
export const paymentRequiredHeaderSchema = named('PaymentRequired', paymentRequiredSchema);

/** `PAYMENT-SIGNATURE` content: x402 v2 `PaymentPayload`, as `x402/wire.ts` parses it. */
export const paymentPayloadHeaderSchema = named('PaymentPayload', paymentPayloadSchema);

/** The Tollgate receipt, as `x402/receipt.ts` parses it (and `/verify-receipt` takes it back). */
export const paymentReceiptComponent = named('PaymentReceipt', paymentReceiptSchema);

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

const x402SignedReceipt = v.object({
  format: v.literal('eip712'),
  payload: v.object({
    version: v.literal(1),
    network: caip2Out,
    resourceUrl: v.string(),
    payer: addressOut,
    issuedAt: unixSeconds,
    transaction: v.pipe(v.string(), v.description('The transaction hash, or empty when withheld.')),
  }),
  signature: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]+$/)),
});

/** The refund receipt of a settled refund payment (order mode), as `x402/refund-receipt.ts` parses it. */
export const refundReceiptComponent = named('RefundReceipt', refundReceiptSchema);

/** A settlement success body around `receipt`: a payment's and a refund's differ only there (and in wording). */
function settlementSuccessSchema<Receipt extends AnySchema>(receipt: Receipt, verifyRoute: string, payer?: string) {
  return v.object({
    x402Version: v.literal(2),
    success: v.literal(true),
    network: caip2Out,
    transaction: v.pipe(hash32Out, v.description('The settlement transaction hash.')),
    payer: payer === undefined ? addressOut : v.pipe(addressOut, v.description(payer)),
    receiptStatus: v.literal('issued'),
    response: v.object({ code: v.literal('settled'), message: v.string() }),
    extensions: v.object({
      'offer-receipt': v.object({
        info: v.pipe(v.object({ receipt: x402SignedReceipt }), v.description('The official x402 offer-receipt entry (EIP-712 signed receipt).')),
        schema: v.custom<typeof x402ReceiptInfoSchema>(isObject, 'the JSON Schema of info (x402 offer-receipt)'),
        signedReceipt: v.pipe(v.string(), v.description(`The gateway signature of receipt; send both to POST ${verifyRoute}.`)),
        receipt,
      }),
    }),
  });
}

/** The success body of a settlement: HTTP 200 body, and the `PAYMENT-RESPONSE` content. */
export const settlementSuccessResponse = named(
  'SettlementSuccess',
  describes<SettlementSuccessBody>()(settlementSuccessSchema(paymentReceiptComponent.schema, '/verify-receipt')),
);

/**
 * The success body of a refund payment (order mode: `/receive/<payer>?ref=<refund ref>&refundOf=…`): the
 * shape of {@link settlementSuccessResponse} with the refund receipt, and the merchant's payTo (which
 * signed the refund's authorization) as payer.
 */
export const refundSettlementSuccessResponse = named(
  'RefundSettlementSuccess',
  describes<RefundSettlementBody>()(
    settlementSuccessSchema(refundReceiptComponent.schema, '/verify-refund-receipt', "The refund's payer: the merchant's payTo, which paid the original payer back."),
  ),
);

/** `PAYMENT-RESPONSE` content of a failed or pending settlement (x402 `SettleResponse` with `success: false`). */
export const settlementFailureResponse = named(
  'SettlementFailure',
  describes<SettlementFailureBody>()(
    v.object({
      x402Version: v.literal(2),
      success: v.literal(false),
      errorReason: v.pipe(v.string(), v.description('The facilitator reason (insufficient_funds, …) or settlement_pending.')),
      errorMessage: v.optional(v.string()),
      network: caip2Out,
      transaction: v.pipe(v.string(), v.description('The transaction hash when one was broadcast, else empty.')),
      payer: v.optional(addressOut),
    }),
  ),
);

/** The 402 body of a negotiation: the `payment_required` envelope, with what is to be paid in `details`. */
export const paymentRequiredErrorResponse = gatewayErrorOf('payment_required');

/**
 * Query of `GET /receive/:payTo`. The receive route reads its query by hand on the hot path (each rule in
 * `payment-context.ts`); this schema documents it and is checked against real requests by the tests.
 */
export const receiveQuerySchema = v.object({
  ref: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/), v.description('The ref id.')),
  amount: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,77}$/), v.description('Atomic amount: required for an open ref; for a fixed ref, absent or equal to its amount.')),
  ),
  refundOf: v.optional(
    v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/), v.description('sha256:<receiptHash> of the payment a refund ref pays back (order mode only).')),
  ),
});
