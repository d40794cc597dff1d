import { route } from '../../http/routes';
import type { Route } from '../../http/types';
import type { RefundService } from '../orders/refund-service';
import { createRefundRequestSchema, rejectRefundRequestSchema, statelessRejectionRequestSchema } from '../orders/schemas';
import type { BearerAuth } from './bearer-auth';
import { noStore } from './merchant-routes';
import { parseGatewayInput } from './parse-input';

/** What the refund routes need. */
export interface RefundRouteDeps {
  readonly refunds: RefundService;
  readonly auth: BearerAuth;
}

/** Body caps of the refund routes: a 512-byte reason escaped; a receipt with its signature. */
export const refundBodyLimits = { refund: 8 * 1024, reject: 8 * 1024, statelessRejection: 16 * 1024 } as const;

/**
 * The refund routes of order mode, all behind the merchant's bearer key: `POST /order/:orderId/refund`,
 * `GET /order/:orderId/refund/:refundId`, `GET /order/:orderId/refunds`,
 * `POST /order/:orderId/refund/:refundId/reject` and the stateless `POST /refund-receipt/rejected`.
 * Mount them only when order mode is on.
 *
 * @param deps - The refund service and bearer auth.
 * @returns The routes.
 * @example
 * ```ts
 * import { refundRoutes } from '@tollgate/core/gateway';
 * const routes = refundRoutes({ refunds, auth });
 * ```
 */
export function refundRoutes(deps: RefundRouteDeps): Route[] {
  const { refunds, auth } = deps;
  return [
    route({
      method: 'POST',
      path: '/order/:orderId/refund',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: refundBodyLimits.refund },
      handler: async (request) => {
        const input = parseGatewayInput(createRefundRequestSchema, request.body);
        const refund = await refunds.createRefund(await auth.merchantOf(request), request.params.orderId, input);
        return { status: 201, headers: { ...noStore, location: `/order/${refund.orderId}/refund/${refund.refundId}` }, body: refund };
      },
    }),
    route({
      method: 'GET',
      path: '/order/:orderId/refund/:refundId',
      middleware: [auth.required],
      handler: async (request) => ({
        status: 200,
        headers: noStore,
        body: await refunds.getRefund(await auth.merchantOf(request), request.params.orderId, request.params.refundId),
      }),
    }),
    route({
      method: 'GET',
      path: '/order/:orderId/refunds',
      middleware: [auth.required],
      handler: async (request) => ({ status: 200, headers: noStore, body: await refunds.listRefunds(await auth.merchantOf(request), request.params.orderId) }),
    }),
    route({
      method: 'POST',
      path: '/order/:orderId/refund/:refundId/reject',
      middleware: [auth.required],
      // No body, or `{ reason? }`.
      body: { type: 'json', maxBytes: refundBodyLimits.reject, optional: true },
      handler: async (request) => {
        const input = parseGatewayInput(rejectRefundRequestSchema, request.body);
        return { status: 200, headers: noStore, body: await refunds.rejectRefund(await auth.merchantOf(request), request.params.orderId, request.params.refundId, input) };
      },
    }),
    route({
      method: 'POST',
      path: '/refund-receipt/rejected',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: refundBodyLimits.statelessRejection },
      handler: async (request) => {
        const input = parseGatewayInput(statelessRejectionRequestSchema, request.body);
        return { status: 200, headers: noStore, body: await refunds.rejectReceipt(await auth.merchantOf(request), input) };
      },
    }),
  ];
}
