import type { Route } from '../../http/types';
import { createMemoryRateLimiter } from '../../storage/rate-limit/memory-rate-limiter';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import { createMerchantAccountService, type MerchantAccountService } from '../merchants/account-service';
import { createRegistrationService, type RegistrationService } from '../merchants/registration-service';
import type { WalletSignatureVerifier } from '../merchants/signature-verifier';
import type { PaymentOptions } from '../payments/payment-deps';
import { createPayments, type Payments } from '../payments/payments';
import { createRefService, type RefService } from '../refs/ref-service';
import type { GatewayServiceDeps } from '../service-deps';
import { createBearerAuth, type BearerAuth } from './bearer-auth';
import { merchantRoutes } from './merchant-routes';
import { defaultGatewayRateLimits, type GatewayRateLimits } from './rate-limit';
import { receiveRoutes } from './receive-routes';
import { refRoutes } from './ref-routes';
import { statusForgettingStore } from './status-forgetting-store';

/** Everything {@link createGateway} wires together. */
export interface GatewayDeps extends GatewayServiceDeps {
  readonly signatureVerifier: WalletSignatureVerifier;
  /** Limiter of the public routes (`createSqlRateLimiter` so that every instance shares the budget). */
  readonly rateLimiter: RateLimiter;
  /**
   * Limiter of `/receive`. Default: an in-memory limiter per instance (`createMemoryRateLimiter`, up to
   * 50 000 client addresses), because a shared SQL limiter would add a database write to every 402, which
   * otherwise reads nothing from the database. With N instances a client gets up to N times the limit.
   */
  readonly receiveRateLimiter?: RateLimiter;
  /** Per-route limits; {@link defaultGatewayRateLimits} by default. */
  readonly rateLimits?: GatewayRateLimits;
  /** x402 payments (signing key, facilitator, chain clients); without them `/receive` is not served. */
  readonly payments?: PaymentOptions;
}

/** The gateway's services, its bearer authentication and its route table entries. */
export interface Gateway {
  readonly registration: RegistrationService;
  readonly accounts: MerchantAccountService;
  readonly refs: RefService;
  readonly auth: BearerAuth;
  /** Negotiation, settlement, receipts and recovery, when `deps.payments` was given. */
  readonly payments: Payments | undefined;
  /** Every merchant, ref and receive route; serve them with `defineRoutes({ routes, renderError: renderGatewayError })`. */
  readonly routes: Route[];
}

/**
 * Wires the gateway's merchant, ref and payment features: services over one store, bearer auth, rate
 * limits (`/receive` per instance, in memory, unless `receiveRateLimiter` says otherwise) and routes. Mount the routes in a table whose `renderError` is `renderGatewayError`; with
 * `payments`, also run `payments.recovery.runJob` on the `gateway.settlement-recovery` queue and its two
 * sweeps periodically (see `createPayments`).
 *
 * @param deps - Store, keys, networks, public URL, clock, signature verifier, rate limiter and payments.
 * @returns Services, auth and routes.
 * @example
 * ```ts
 * import { createGateway, createSqlGatewayStore, createSqlRateLimiter, createNetworkRegistry, createViemWalletSignatureVerifier,
 *   deriveGatewayKeys, defineRoutes, renderGatewayError, systemClock, toFetchHandler } from '@tollgate/core';
 * const gateway = createGateway({
 *   store: createSqlGatewayStore(sql), keys: deriveGatewayKeys(secret), networks: createNetworkRegistry(),
 *   publicUrl: 'https://pay.example.com', clock: systemClock, signatureVerifier: createViemWalletSignatureVerifier(),
 *   rateLimiter: createSqlRateLimiter(sql, { clock: systemClock }),
 * });
 * export default { fetch: toFetchHandler(defineRoutes({ routes: gateway.routes, renderError: renderGatewayError })) };
 * ```
 */
export function createGateway(deps: GatewayDeps): Gateway {
  const payments = deps.payments === undefined ? undefined : createPayments({ ...deps, ...deps.payments });
  // Revoking a ref or retiring a payTo through this instance is seen by its next negotiation at once.
  const services = payments === undefined ? deps : { ...deps, store: statusForgettingStore(deps.store, payments.contexts) };
  const registration = createRegistrationService(services);
  const accounts = createMerchantAccountService(services);
  const refs = createRefService(services);
  const auth = createBearerAuth(accounts);
  const rateLimits = deps.rateLimits ?? defaultGatewayRateLimits;
  const routes = [
    ...merchantRoutes({ registration, accounts, auth, rateLimiter: deps.rateLimiter, rateLimits }),
    ...refRoutes({ refs, auth, rateLimiter: deps.rateLimiter, rateLimits }),
    ...(payments === undefined
      ? []
      : receiveRoutes({ payments, rateLimiter: deps.receiveRateLimiter ?? createMemoryRateLimiter({ clock: deps.clock, maxKeys: 50_000 }), rateLimit: rateLimits.receive })),
  ];
  return { registration, accounts, refs, auth, payments, routes };
}

/**
 * The gateway's routes, when the services are not needed directly
 * (`createGateway(deps).routes`).
 *
 * @param deps - As for {@link createGateway}.
 * @returns The routes.
 * @example
 * ```ts
 * import { defineRoutes, gatewayRoutes, renderGatewayError } from '@tollgate/core';
 * const table = defineRoutes({ routes: gatewayRoutes(deps), renderError: renderGatewayError });
 * ```
 */
export function gatewayRoutes(deps: GatewayDeps): Route[] {
  return createGateway(deps).routes;
}
