import * as v from 'valibot';
import { createRefundRequestSchema, rejectRefundRequestSchema, statelessRejectionRequestSchema } from '../../orders/schemas';
import { refundBodyLimits } from '../../routes/refund-routes';
import { named, type OperationGroup, type PathParamDescriptor } from '../../../openapi/descriptors';
import { refundIntentListResponse, refundIntentResponse, rejectedRefundReceiptComponent, statelessRejectionResponse } from '../schemas/order-responses';
import { orderIdParam, orderModeCondition, orderNoStore } from './order-operations';

/** A refund intent id in a path: `rfd_` + 32 lowercase hex digits (anything else is `not_found`). */
export const refundIdParam: PathParamDescriptor = {
  description: 'The refund intent id (rfd_ + 32 lowercase hex digits).',
  schema: v.pipe(v.string(), v.regex(/^rfd_[0-9a-f]{32}$/)),
};

const refundParams = { orderId: orderIdParam, refundId: refundIdParam };

/**
 * The operations of `refundRoutes` (`routes/refund-routes.ts`), served in order mode only: refund intents
 * of an order (create, read, list, reject) and the stateless rejected-refund receipt, all behind the
 * merchant key.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, refundOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([refundOperations]);
 * ```
 */
export const refundOperations: OperationGroup = {
  name: 'refund',
  description:
    "Refunds of paid orders: a refund intent reserves an amount and is paid back by the merchant's payTo through its refund ref (/receive with refundOf), which issues a signed refund receipt; or it is rejected with a signed rejected-refund receipt.",
  servedOnlyIn: orderModeCondition,
  sharedSchemas: [refundIntentResponse, rejectedRefundReceiptComponent],
  operations: [
    {
      method: 'POST',
      path: '/order/:orderId/refund',
      operationId: 'createRefund',
      summary: 'Create a refund intent of a paid order',
      description:
        "Reserves amount on the order and creates the refund ref that pays the order's payer (receiveUrl; only the order's payTo may pay it). 409 conflict: details.reason not_refundable (the order is not paid or partially refunded; details.status) or exceeds_remaining (details.remaining).",
      security: 'bearer',
      pathParams: { orderId: orderIdParam },
      body: { schema: named('CreateRefundRequest', createRefundRequestSchema), maxBytes: refundBodyLimits.refund },
      responses: {
        201: {
          description: 'The new refund intent (open).',
          body: refundIntentResponse,
          headers: {
            ...orderNoStore,
            Location: {
              description: 'The path of the refund intent: /order/<orderId>/refund/<refundId>.',
              required: true,
              schema: v.pipe(v.string(), v.regex(/^\/order\/ord_[0-9a-f]{32}\/refund\/rfd_[0-9a-f]{32}$/)),
            },
          },
        },
      },
      errors: ['not_found', 'conflict'],
    },
    {
      method: 'GET',
      path: '/order/:orderId/refund/:refundId',
      operationId: 'getRefund',
      summary: 'A refund intent, its payment or its rejection',
      security: 'bearer',
      pathParams: refundParams,
      responses: { 200: { description: 'The refund intent.', body: refundIntentResponse, headers: orderNoStore } },
      errors: ['not_found'],
    },
    {
      method: 'GET',
      path: '/order/:orderId/refunds',
      operationId: 'listRefunds',
      summary: "The order's refund intents, oldest first",
      security: 'bearer',
      pathParams: { orderId: orderIdParam },
      responses: { 200: { description: 'Every refund intent of the order.', body: refundIntentListResponse, headers: orderNoStore } },
      errors: ['not_found'],
    },
    {
      method: 'POST',
      path: '/order/:orderId/refund/:refundId/reject',
      operationId: 'rejectRefund',
      summary: 'Reject an open refund intent with a signed rejected-refund receipt',
      description:
        'Revokes the refund ref, releases the reservation and stores the signed receipt. Idempotent: a rejected intent is answered again, receipt unchanged. 409 conflict: details.reason not_open (paid or expired; details.status) or payment_in_flight.',
      security: 'bearer',
      pathParams: refundParams,
      body: { schema: named('RejectRefundRequest', rejectRefundRequestSchema), maxBytes: refundBodyLimits.reject, optional: true },
      responses: { 200: { description: 'The rejected refund intent with its rejection.', body: refundIntentResponse, headers: orderNoStore } },
      errors: ['not_found', 'conflict'],
    },
    {
      method: 'POST',
      path: '/refund-receipt/rejected',
      operationId: 'rejectRefundOfReceipt',
      summary: 'Sign a rejected-refund receipt for a payment receipt (nothing is stored)',
      description:
        "For a refund asked for outside order mode's intents: takes a payment receipt this gateway issued to one of the caller's payTo addresses, with its signedReceipt, and answers a signed x402.refund.rejected receipt naming it. receipt_invalid: malformed, or not signed by one of this gateway's receipt keys; not_found: the receipt's payTo is not the caller's.",
      security: 'bearer',
      body: { schema: named('StatelessRejectionRequest', statelessRejectionRequestSchema), maxBytes: refundBodyLimits.statelessRejection },
      responses: { 200: { description: 'The signed rejected-refund receipt.', body: statelessRejectionResponse, headers: orderNoStore } },
      errors: ['receipt_invalid', 'not_found'],
    },
  ],
};
