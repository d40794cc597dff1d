import { isTollgateError } from '../../errors/base';
import { renderGatewayError } from '../../errors/render';
import { toFetchHandler, type FetchHandlerOptions } from '../../http/fetch-adapter';
import { defineRoutes } from '../../http/routes';
import type { Route, RouteTable } from '../../http/types';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import { createSqlRateLimiter } from '../../storage/rate-limit/sql-rate-limiter';
import type { SqlClient } from '../../storage/sql-client';
import type { WalletSignatureVerifier } from '../merchants/signature-verifier';
import { createViemWalletSignatureVerifier } from '../merchants/signature-verifier';
import { wireGateway, type GatewayWiring, type WiredGateway } from '../routes/gateway-routes';
import type { GatewayStores } from '../store/gateway-stores';
import { createSqlGatewayStores } from '../store/sql-gateway-stores';
import { createGatewayWorkers, type GatewayLogger, type GatewayWorkerOptions, type GatewayWorkers } from '../workers/gateway-workers';
import { consoleGatewayLogger, warnWhenPendingWithoutWorkers } from './gateway-logging';

/** What {@link createGateway} needs: a database, keys, networks, the public URL, a clock, and what to serve. */
export interface GatewayDeps extends Omit<GatewayWiring, 'stores' | 'rateLimiter' | 'signatureVerifier'> {
  /**
   * The gateway's database (PGlite or a PostgreSQL server, opened by the caller with `coreMigrations`
   * and `gatewayMigrations` applied): the stores, the shared rate limits and the workers' job queues.
   */
  readonly sql: SqlClient;
  /** The stores; `createSqlGatewayStores(sql)` by default. */
  readonly stores?: GatewayStores;
  /** Limiter of the public routes; `createSqlRateLimiter(sql)` by default, so every instance shares the budget. */
  readonly rateLimiter?: RateLimiter;
  /** Checks merchants' wallet signatures; `createViemWalletSignatureVerifier()` (EOA signatures) by default. */
  readonly signatureVerifier?: WalletSignatureVerifier;
  /** Where the gateway reports; warnings and errors go to the console by default. */
  readonly logger?: GatewayLogger;
  /** Tuning of the background workers (recovery, notifications, housekeeping). */
  readonly workers?: GatewayWorkerOptions;
  /** Options of the `fetch` handler: the client address for rate limits (`remoteAddress`), body limits. */
  readonly fetchOptions?: FetchHandlerOptions;
}

/** A gateway ready to mount: its services, its routes, a fetch handler, and the workers it depends on. */
export interface Gateway extends WiredGateway {
  /**
   * Every route as a standard handler, `Request → Response` (Hono, Next.js route handlers, Bun, Deno,
   * Cloudflare Workers). Errors are answered in the gateway's envelope; unexpected ones are logged.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The route table behind `fetch`, for `toExpress(gateway.table)` from `@tollgate/core/node`. */
  readonly table: RouteTable;
  /** Settlement recovery, notification delivery and housekeeping: call `workers.start()` once the database is open. */
  readonly workers: GatewayWorkers;
  /** Stops the workers and waits for their work in flight. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds the x402 payment gateway over one database: merchant registration, refs, `/receive` payments
 * (with `payments`), chain evidence (with `evidence`), orders and refunds (with `orderMode`), the pay page
 * and `/openapi.json`, as a `fetch` handler, a route table and the background workers.
 *
 * Call `workers.start()`. Without running workers (here or in another process on the same database):
 * a payment whose settlement outcome was unknown (facilitator timeout, process killed mid-settle) stays
 * `pending` and its payer gets `settlement_pending` until a worker finishes it from chain evidence;
 * claims abandoned by a dead process are not taken over; merchant notifications are queued but never
 * sent; expired challenges and rate-limit state are not pruned. A payment left pending while no worker
 * runs in this process is logged as a warning.
 *
 * @param deps - Database, keys, networks, public URL, clock, payments, evidence, logger and worker tuning.
 * @returns Services, `routes`, `table`, `fetch`, `workers` and `close()`.
 * @example
 * ```ts
 * import { createGateway, createNetworkRegistry, deriveGatewayKeys, systemClock } from '@tollgate/core';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const gateway = createGateway({
 *   sql, keys: deriveGatewayKeys(secret), networks: createNetworkRegistry(), publicUrl: 'https://pay.example.com',
 *   clock: systemClock, payments: { signer, facilitator }, workers: { notifications: { transport: createNodeNotificationTransport() } },
 * });
 * gateway.workers.start();
 * export default { fetch: gateway.fetch };
 * ```
 */
export function createGateway(deps: GatewayDeps): Gateway {
  const logger = deps.logger ?? consoleGatewayLogger;
  const stores = deps.stores ?? createSqlGatewayStores(deps.sql);
  const rateLimiter = deps.rateLimiter ?? createSqlRateLimiter(deps.sql, { clock: deps.clock });
  // Payment events arrive only once requests are served, by when `workers` below is set.
  const payments = deps.payments && { ...deps.payments, onEvent: warnWhenPendingWithoutWorkers(logger, () => workers.running, deps.payments.onEvent) };
  const wired = wireGateway({
    ...deps,
    stores,
    rateLimiter,
    signatureVerifier: deps.signatureVerifier ?? createViemWalletSignatureVerifier(),
    ...(payments === undefined ? {} : { payments }),
  });
  const workers = createGatewayWorkers({ sql: deps.sql, stores, rateLimiter, keys: deps.keys, clock: deps.clock, logger, recovery: wired.payments?.recovery, options: deps.workers });
  const table = gatewayRouteTable(wired.routes, logger);
  const fetch = toFetchHandler(table, deps.fetchOptions);
  let closing: Promise<void> | undefined;
  return { ...wired, table, fetch, workers, close: () => (closing ??= workers.stop()) };
}

/**
 * A route table of gateway routes: every error rendered in the gateway envelope, unexpected ones logged
 * (without request headers) and answered `internal_error`.
 *
 * @param routes - Gateway routes, and any the host serves beside them (health).
 * @param logger - Where unexpected errors are logged.
 * @returns The table, for `toFetchHandler` or `toExpress`.
 * @example
 * ```ts
 * import { gatewayRouteTable } from '@tollgate/core/gateway';
 * const table = gatewayRouteTable([...healthRoutes, ...gateway.routes], logger);
 * ```
 */
export function gatewayRouteTable(routes: Route[], logger: Pick<GatewayLogger, 'error'>): RouteTable {
  return defineRoutes({
    routes,
    renderError: (error) => {
      if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
      return renderGatewayError(error);
    },
  });
}

/**
 * The gateway's routes, when the services are not needed directly (`createGateway(deps).routes`).
 *
 * @param deps - As for {@link createGateway}.
 * @returns The routes.
 * @example
 * ```ts
 * import { gatewayRoutes, renderGatewayError } from '@tollgate/core';
 * import { defineRoutes } from '@tollgate/core/http';
 * const table = defineRoutes({ routes: gatewayRoutes(deps), renderError: renderGatewayError });
 * ```
 */
export function gatewayRoutes(deps: GatewayDeps): Route[] {
  return createGateway(deps).routes;
}
