import * as v from 'valibot';
import { createOrderRequestSchema, listOrdersQuerySchema } from '../../orders/schemas';
import { orderBodyLimit } from '../../routes/order-routes';
import { named, type OperationGroup, type PathParamDescriptor } from '../../../openapi/descriptors';
import { orderPageResponse, orderResponse } from '../schemas/order-responses';

/** The configuration order mode's groups need, as the document states it. */
export const orderModeCondition = 'order mode (GATEWAY_ORDER_MODE=on)';

/** An order id in a path: `ord_` + 32 lowercase hex digits (anything else is `not_found`, like an unknown id). */
export const orderIdParam: PathParamDescriptor = {
  description: 'The order id (ord_ + 32 lowercase hex digits).',
  schema: v.pipe(v.string(), v.regex(/^ord_[0-9a-f]{32}$/)),
};

/** `Cache-Control: no-store` of every order-mode answer. */
export const orderNoStore = { 'Cache-Control': { description: 'no-store: the answer describes an account.', required: true, schema: v.literal('no-store') } };

/**
 * The operations of `orderRoutes` (`routes/order-routes.ts`), served in order mode only: create, list,
 * read and cancel orders, each behind the merchant key and scoped to the merchant's orders (another
 * merchant's order is `not_found`, like a missing one).
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, orderOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([orderOperations]);
 * ```
 */
export const orderOperations: OperationGroup = {
  name: 'order',
  description: 'Orders: a price, its fixed-amount ref and the payment that settles it, with refund bookkeeping.',
  servedOnlyIn: orderModeCondition,
  sharedSchemas: [orderResponse],
  operations: [
    {
      method: 'POST',
      path: '/order',
      operationId: 'createOrder',
      summary: 'Create an order and its fixed-amount ref',
      description:
        'Takes what a fixed-amount POST /ref takes, plus description and metadata. The order is paid through its ref like any other (receiveUrl for x402 clients, payUrl for a browser wallet) and is marked paid by the settlement. 409 conflict: details.reason invoice_taken (details.refId).',
      security: 'bearer',
      body: { schema: named('CreateOrderRequest', createOrderRequestSchema), maxBytes: orderBodyLimit },
      responses: {
        201: {
          description: 'The new order.',
          body: orderResponse,
          headers: {
            ...orderNoStore,
            Location: { description: 'The path of the order: /order/<orderId>.', required: true, schema: v.pipe(v.string(), v.regex(/^\/order\/ord_[0-9a-f]{32}$/)) },
          },
        },
      },
      errors: ['invalid_request', 'not_found', 'payto_revoked', 'conflict'],
    },
    {
      method: 'GET',
      path: '/order',
      operationId: 'listOrders',
      summary: "List the merchant's orders, newest first",
      security: 'bearer',
      query: listOrdersQuerySchema,
      responses: { 200: { description: 'One page of orders.', body: orderPageResponse, headers: orderNoStore } },
      errors: ['invalid_request'],
    },
    {
      method: 'GET',
      path: '/order/:orderId',
      operationId: 'getOrder',
      summary: 'An order, its payment and its refund totals',
      security: 'bearer',
      pathParams: { orderId: orderIdParam },
      responses: { 200: { description: 'The order.', body: orderResponse, headers: orderNoStore } },
      errors: ['not_found'],
    },
    {
      method: 'POST',
      path: '/order/:orderId/cancel',
      operationId: 'cancelOrder',
      summary: 'Cancel an unpaid order and revoke its ref',
      description:
        'Idempotent: a cancelled order is answered again. 409 conflict: details.reason not_cancellable (paid, refunded or expired; details.status) or payment_in_flight (a payment of its ref is being settled: read the order again shortly).',
      security: 'bearer',
      pathParams: { orderId: orderIdParam },
      responses: { 200: { description: 'The cancelled order.', body: orderResponse, headers: orderNoStore } },
      errors: ['not_found', 'conflict'],
    },
  ],
};
