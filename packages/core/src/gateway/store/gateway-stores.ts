import type { MerchantStore } from './merchant-store';
import type { OrderStore } from './order-store';
import type { PaymentStore } from './payment-store';
import type { RefStore } from './ref-store';

/**
 * The gateway's storage ports, one per aggregate, over one database. Every service declares the
 * ones it uses (`Pick<GatewayStores, 'refs' | 'merchants'>` for the ref service), so a service can never
 * reach an aggregate it does not own:
 *
 * | service | stores |
 * |---|---|
 * | registration, merchant accounts, notification delivery | `merchants` |
 * | refs | `refs`, `merchants` (payTo ownership and status) |
 * | payments (negotiation, settlement, recovery) | `refs` (receive reads), `payments` |
 * | orders and refund intents (order mode) | `orders` (refund payments also read `orders.getRefundByRef`) |
 *
 * @example
 * ```ts
 * import { createSqlGatewayStores, type GatewayStores } from '@tollgate/core';
 * const stores: GatewayStores = createSqlGatewayStores(sql);
 * const ref = await stores.refs.getRef(refId);
 * ```
 */
export interface GatewayStores {
  /** Challenges, merchants, credentials and payTos. */
  readonly merchants: MerchantStore;
  /** Refs and the receive route's reads of a ref and its payTo's status. */
  readonly refs: RefStore;
  /** Payment claims, leases and transitions. */
  readonly payments: PaymentStore;
  /** Orders and refund intents (order mode); their settlement effects happen in `payments.completePayment`. */
  readonly orders: OrderStore;
}
