import * as v from 'valibot';
import type { HeaderDescriptor, OperationGroup, ResponseDescriptor } from '../../../openapi/descriptors';
import {
  paymentReceiptComponent,
  paymentRequiredHeaderSchema,
  receiveQuerySchema,
  refundReceiptComponent,
  refundSettlementSuccessResponse,
  settlementFailureResponse,
  settlementSuccessResponse,
} from '../schemas/payment-responses';

const paymentResponseHeader = (required: boolean, description: string): HeaderDescriptor => ({
  description: `${description} Standard base64 of the JSON.`,
  required,
  base64Json: required ? [settlementSuccessResponse, refundSettlementSuccessResponse] : [settlementFailureResponse],
});

/**
 * The answers a settlement has, shared by `/receive/:payTo` and `/recover-settlement` (which answer the
 * same bytes for the same payment): 200 settled, 202 `settlement_pending`, and the 402 body of
 * `settlement_failed` with its `PAYMENT-RESPONSE`.
 */
export const settlementResponses = {
  settled: {
    description:
      'Settled: the settlement response with the signed receipts (the same JSON as PAYMENT-RESPONSE). A refund payment (order mode: a refund ref with refundOf) carries the refund receipt instead of a payment receipt (RefundSettlementSuccess).',
    body: [settlementSuccessResponse, refundSettlementSuccessResponse],
    headers: { 'PAYMENT-RESPONSE': paymentResponseHeader(true, 'The settlement response (x402 v2).') },
  },
  pending: {
    description:
      'settlement_pending: settle was called and the chain has not told yet. Ask again after Retry-After with the same payment; never pay again (a payment settles at most once).',
    headers: { 'PAYMENT-RESPONSE': { ...paymentResponseHeader(false, 'x402 SettleResponse with success false and errorReason settlement_pending.'), required: true } },
    codes: ['settlement_pending'],
  },
} satisfies Record<string, ResponseDescriptor>;

/** `PAYMENT-RESPONSE` of a failed settlement (with `settlement_failed`). */
export const failedSettlementHeader = paymentResponseHeader(false, 'With settlement_failed: x402 SettleResponse with success false and the facilitator reason.');

/**
 * The operations of `receiveRoutes` (`routes/receive-routes.ts`): x402 v2 negotiation and settlement.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, receiveOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([receiveOperations]);
 * ```
 */
export const receiveOperations: OperationGroup = {
  name: 'receive',
  description: 'x402 v2 payment: negotiation (402 with PAYMENT-REQUIRED) and settlement (PAYMENT-SIGNATURE).',
  sharedSchemas: [paymentReceiptComponent, refundReceiptComponent],
  operations: [
    {
      method: 'GET',
      path: '/receive/:payTo',
      operationId: 'receivePayment',
      summary: 'Negotiate (402) or settle an x402 payment of a ref',
      description:
        'Without PAYMENT-SIGNATURE (and always for HEAD, which never settles): 402 with PAYMENT-REQUIRED. With it: the payment is checked against the exact ref context, verified and settled by the facilitator exactly once, and answered with the settlement response. Any origin may call it (CORS); OPTIONS answers preflights. In order mode a refund intent is paid here too, by the merchant\'s payTo, at the refund\'s receiveUrl (payTo is the original payer, refundOf names the original receipt); its 200 carries the refund receipt. A refundOf that is missing, malformed or does not match the ref is invalid_request (details.field refundOf, details.reason).',
      security: 'payment',
      rateLimited: true,
      pathParams: { payTo: { description: 'The payTo address of the ref.', schema: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/)) } },
      query: receiveQuerySchema,
      responses: {
        200: settlementResponses.settled,
        202: settlementResponses.pending,
        402: {
          description:
            'payment_required: no PAYMENT-SIGNATURE; pay with an x402 v2 client from PAYMENT-REQUIRED and retry with PAYMENT-SIGNATURE. payment_verification_failed: the payment does not match the ref or was refused (details.field names what). settlement_failed: the facilitator did not settle it (PAYMENT-RESPONSE tells why).',
          headers: {
            'PAYMENT-REQUIRED': {
              description: 'With payment_required: the x402 v2 PaymentRequired (accepts, signed offers, payment-identifier). Standard base64 of the JSON.',
              required: false,
              base64Json: [paymentRequiredHeaderSchema],
            },
            'PAYMENT-RESPONSE': failedSettlementHeader,
          },
          codes: ['payment_required', 'payment_verification_failed', 'settlement_failed'],
        },
      },
      errors: [
        'not_found',
        'ref_expired',
        'ref_revoked',
        'payto_revoked',
        'payment_required',
        'payment_verification_failed',
        'settlement_failed',
        'settlement_pending',
        'conflict',
        'facilitator_unavailable',
        'rpc_unavailable',
      ],
    },
  ],
};
