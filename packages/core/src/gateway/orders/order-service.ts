import { randomBytes, randomId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import type { GatewayEvents } from '../gateway-events';
import type { AuthenticatedMerchant } from '../merchants/account-service';
import { readListPage } from '../list-cursor';
import { newPaymentRef, payToForNewRef, refCreationRefused } from '../refs/payment-ref';
import { resolvePublicUrl, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { OrderStore } from '../store/order-store';
import { orderListCursor } from './cursor';
import { orderView, type OrderView } from './order-views';
import { isOrderId, type CreateOrderRequest, type ListOrdersRequest } from './schemas';

/** `GET /order`: a page of orders, newest first. */
export interface OrderPage {
  readonly items: readonly OrderView[];
  readonly nextCursor?: string;
}

/** Dependencies of {@link createOrderService}. */
export interface OrderServiceDeps extends GatewayServiceDeps {
  /** `orders` for the orders and their refs, `merchants` for the payTo an order is created on. */
  readonly stores: Pick<GatewayStores, 'merchants'> & { readonly orders: OrderStore };
  /** Told `ref_revoked` when a cancellation revoked the order's ref. */
  readonly events?: Pick<GatewayEvents, 'emit'>;
}

/** Creates, reads, lists and cancels orders. Another merchant's order is answered exactly like a missing one. */
export interface OrderService {
  /**
   * @throws GatewayError `invalid_request` (unknown network, contract-wallet payTo on another chain),
   *   `not_found` (payTo not the caller's), `payto_revoked`, `conflict` (invoiceId in use by an active
   *   ref; `details.reason: 'invoice_taken'`, `details.refId`).
   */
  createOrder(caller: AuthenticatedMerchant, input: CreateOrderRequest): Promise<OrderView>;
  /** @throws GatewayError `not_found`. */
  getOrder(caller: AuthenticatedMerchant, orderId: string): Promise<OrderView>;
  /** @throws GatewayError `invalid_request` (bad cursor). */
  listOrders(caller: AuthenticatedMerchant, query: ListOrdersRequest): Promise<OrderPage>;
  /**
   * Cancels an unpaid order and revokes its ref (idempotent: a cancelled order is answered again).
   *
   * @throws GatewayError `not_found`; `conflict` with `details.reason` `not_cancellable` (paid, refunded
   *   or expired; `details.status`) or `payment_in_flight` (a payment of its ref is being settled).
   */
  cancelOrder(caller: AuthenticatedMerchant, orderId: string): Promise<OrderView>;
}

/**
 * The `not_found` of every order route: a missing order and another merchant's look the same.
 *
 * @returns The error.
 * @example
 * ```ts
 * import { orderNotFound } from '@tollgate/core/gateway';
 * throw orderNotFound();
 * ```
 */
export function orderNotFound(): GatewayError {
  return new GatewayError('not_found', 'No such order.', { details: { reason: 'no_such_order' } });
}

/**
 * The order half of order mode. An order is created with its ref in one transaction: the ref is an
 * ordinary fixed-amount ref whose snapshot is exactly the one `POST /ref` would make with the same
 * fields, so payers pay it through `/receive` like any other; settlement marks the order paid in the
 * same statement (the store's contract).
 *
 * @param deps - Order and merchant stores, keys (cursor MAC), networks, public URL, clock, randomness, events.
 * @returns The service.
 * @example
 * ```ts
 * import { createOrderService } from '@tollgate/core/gateway';
 * const orders = createOrderService({ stores, events, keys, networks, publicUrl, clock });
 * const order = await orders.createOrder(caller, { payTo, network: 'base', asset: 'USDC', amount: '2500000' });
 * ```
 */
export function createOrderService(deps: OrderServiceDeps): OrderService {
  const random = deps.random ?? randomBytes;
  const { orders, merchants } = deps.stores;
  const now = () => new Date(deps.clock.now());
  const view = (order: Parameters<typeof orderView>[0]) => orderView(order, resolvePublicUrl(deps), now());

  return {
    async createOrder(caller, input) {
      const network = deps.networks.require(input.network);
      // The same checks and the same ref as POST /ref with these fields.
      const payTo = await payToForNewRef(merchants, caller, input.payTo, network);
      const orderId = `ord_${randomId(random)}`;
      const refId = randomId(random);
      const createdAt = now();
      const outcome = await orders.createOrder({
        id: orderId,
        merchantId: caller.merchantId,
        ref: newPaymentRef({ refId, merchantId: caller.merchantId, payTo: payTo.address, network: network.name, fields: input, origin: resolvePublicUrl(deps), now: createdAt }),
        description: input.description ?? null,
        metadataJson: input.metadata === undefined ? null : JSON.stringify(input.metadata),
        now: createdAt,
      });
      if (outcome.kind !== 'created') throw refCreationRefused(outcome, { requested: input.payTo, address: payTo.address }, { reason: 'invoice_taken' });
      return view(outcome.order);
    },

    async getOrder(caller, orderId) {
      if (!isOrderId(orderId)) throw orderNotFound();
      const order = await orders.getOrder({ merchantId: caller.merchantId, orderId, now: now() });
      if (order === undefined) throw orderNotFound();
      return view(order);
    },

    async listOrders(caller, query) {
      return readListPage({
        cursor: orderListCursor,
        key: deps.keys.cursor,
        scope: { merchantId: caller.merchantId, status: query.status ?? '' },
        request: query,
        read: (limit, before) =>
          orders.listOrders({
            merchantId: caller.merchantId,
            ...(query.status === undefined ? {} : { status: query.status }),
            now: now(),
            limit,
            ...(before === undefined ? {} : { before: { createdAt: before.createdAt, orderId: before.id } }),
          }),
        item: view,
      });
    },

    async cancelOrder(caller, orderId) {
      if (!isOrderId(orderId)) throw orderNotFound();
      const outcome = await orders.cancelOrder({ merchantId: caller.merchantId, orderId, now: now() });
      switch (outcome.kind) {
        case 'cancelled':
        case 'already_cancelled':
          // Also after a repeat: the emit is idempotent, and a cache another request refilled meanwhile drops it.
          deps.events?.emit({ type: 'ref_revoked', refId: outcome.order.refId });
          return view(outcome.order);
        case 'not_cancellable': {
          const status = view(outcome.order).status;
          throw new GatewayError('conflict', `An order that is ${status.replace('_', ' ')} cannot be cancelled.`, {
            details: { reason: 'not_cancellable', status, orderId },
          });
        }
        case 'payment_in_flight':
          throw new GatewayError('conflict', 'A payment of this order is being settled: it cannot be cancelled now. Read the order again shortly.', {
            details: { reason: 'payment_in_flight', orderId },
          });
        case 'not_found':
          throw orderNotFound();
      }
    },
  };
}
