import { route } from '../../http/routes';
import type { Route } from '../../http/types';
import type { OrderService } from '../orders/order-service';
import { createOrderRequestSchema, listOrdersQuerySchema } from '../orders/schemas';
import type { BearerAuth } from './bearer-auth';
import { noStore } from './merchant-routes';
import { parseGatewayInput } from './parse-input';

/** What the order routes need. */
export interface OrderRouteDeps {
  readonly orders: OrderService;
  readonly auth: BearerAuth;
}

/**
 * Body cap of `POST /order`: the largest valid order (512-byte description, 4 KiB metadata, all escaped
 * as `\uXXXX`) fits.
 */
export const orderBodyLimit = 64 * 1024;

/**
 * The order routes of order mode, all behind the merchant's bearer key and scoped to its orders:
 * `POST /order`, `GET /order`, `GET /order/:orderId` and `POST /order/:orderId/cancel`. Mount them only
 * when order mode is on (`createGateway` does): without them every order path answers 404 `not_found`.
 *
 * @param deps - The order service and bearer auth.
 * @returns The routes.
 * @example
 * ```ts
 * import { orderRoutes } from '@tollgate/core/gateway';
 * const routes = orderRoutes({ orders, auth });
 * ```
 */
export function orderRoutes(deps: OrderRouteDeps): Route[] {
  const { orders, auth } = deps;
  return [
    route({
      method: 'POST',
      path: '/order',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: orderBodyLimit },
      handler: async (request) => {
        const input = parseGatewayInput(createOrderRequestSchema, request.body);
        const order = await orders.createOrder(await auth.merchantOf(request), input);
        return { status: 201, headers: { ...noStore, location: `/order/${order.orderId}` }, body: order };
      },
    }),
    route({
      method: 'GET',
      path: '/order',
      middleware: [auth.required],
      handler: async (request) => {
        const query = parseGatewayInput(listOrdersQuerySchema, request.query);
        return { status: 200, headers: noStore, body: await orders.listOrders(await auth.merchantOf(request), query) };
      },
    }),
    route({
      method: 'GET',
      path: '/order/:orderId',
      middleware: [auth.required],
      handler: async (request) => ({ status: 200, headers: noStore, body: await orders.getOrder(await auth.merchantOf(request), request.params.orderId) }),
    }),
    route({
      method: 'POST',
      path: '/order/:orderId/cancel',
      middleware: [auth.required],
      handler: async (request) => ({ status: 200, headers: noStore, body: await orders.cancelOrder(await auth.merchantOf(request), request.params.orderId) }),
    }),
  ];
}
