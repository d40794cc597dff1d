import type { Route } from '../../http/types';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import { createMerchantAccountService, type MerchantAccountService } from '../merchants/account-service';
import { createRegistrationService, type RegistrationService } from '../merchants/registration-service';
import type { WalletSignatureVerifier } from '../merchants/signature-verifier';
import { createRefService, type RefService } from '../refs/ref-service';
import type { GatewayServiceDeps } from '../service-deps';
import { createBearerAuth, type BearerAuth } from './bearer-auth';
import { merchantRoutes } from './merchant-routes';
import { defaultGatewayRateLimits, type GatewayRateLimits } from './rate-limit';
import { refRoutes } from './ref-routes';

/** Everything {@link createGateway} wires together. */
export interface GatewayDeps extends GatewayServiceDeps {
  readonly signatureVerifier: WalletSignatureVerifier;
  /** Limiter of the public routes (`createSqlRateLimiter` so that every instance shares the budget). */
  readonly rateLimiter: RateLimiter;
  /** Per-route limits; {@link defaultGatewayRateLimits} by default. */
  readonly rateLimits?: GatewayRateLimits;
}

/** The gateway's services, its bearer authentication and its route table entries. */
export interface Gateway {
  readonly registration: RegistrationService;
  readonly accounts: MerchantAccountService;
  readonly refs: RefService;
  readonly auth: BearerAuth;
  /** Every merchant and ref route; serve them with `defineRoutes({ routes, renderError: renderGatewayError })`. */
  readonly routes: Route[];
}

/**
 * Wires the gateway's merchant and ref features: services over one store, bearer auth, rate limits
 * and routes. Mount the routes in a table whose `renderError` is `renderGatewayError`.
 *
 * @param deps - Store, keys, networks, public URL, clock, signature verifier and rate limiter.
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
  const registration = createRegistrationService(deps);
  const accounts = createMerchantAccountService(deps);
  const refs = createRefService(deps);
  const auth = createBearerAuth(accounts);
  const rateLimits = deps.rateLimits ?? defaultGatewayRateLimits;
  const routes = [
    ...merchantRoutes({ registration, accounts, auth, rateLimiter: deps.rateLimiter, rateLimits }),
    ...refRoutes({ refs, auth, rateLimiter: deps.rateLimiter, rateLimits }),
  ];
  return { registration, accounts, refs, auth, routes };
}

/**
 * The gateway's merchant and ref routes, when the services are not needed directly
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
