import type { IncomingMessage, RequestListener } from 'node:http';
import type { Route, RouteTable } from '@tollgate/core';
import { adminPathPrefix, licenseClientTable, type MountedTable } from '@tollgate/core/license';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express, type Request } from 'express';

/** Route tables of the license server, one per wire stack. */
export interface LicenseRouteTables {
  /** `/health` and the CBOR client protocol under `/v1` (permissive CORS, CBOR error bodies). */
  client: Route[];
  /**
   * The JSON Admin API (`createLicenseAdminApi(...).table`): every path under `/v1/admin` goes to it, so
   * none of them inherits the client protocol's CORS or CBOR errors.
   */
  admin?: RouteTable;
  /**
   * Tables served outside `/v1/` under their own prefix (billing webhooks, metrics), each with its own
   * error envelope: a path under a prefix never reaches the client table.
   */
  mounted?: readonly MountedTable[];
}

/** Options of {@link createLicenseApp}. */
export interface LicenseAppOptions {
  /**
   * Proxy hops in front of the server whose `X-Forwarded-For` is trusted (Express `trust proxy`): the
   * client address the per-address budgets key on. 0 (default) uses the socket address.
   */
  trustProxy?: number;
}

/**
 * Builds the license server's Express app. Express only hosts the route tables; each table renders its
 * own error envelope. The client table runs, in order: CORS (answers preflights, adds
 * `Access-Control-Allow-Origin: *` to everything, exposes `Retry-After`), the `X-LS-Proto: 1` check on
 * `/v1/…`, and `Cache-Control: no-store` unless a route set its own caching. Unexpected errors are logged
 * (without request headers) and answered with 5000.
 *
 * @param tables - The client and Admin route tables.
 * @param logger - Request and error logs.
 * @param options - Trusted proxy hops.
 * @returns The Express app.
 * @example
 * ```ts
 * import { createLicenseApp, healthRoutes, keysRoutes } from '@tollgate/license-server';
 * const app = createLicenseApp({ client: [...healthRoutes(database), ...keysRoutes(trust)] }, logger);
 * ```
 */
export function createLicenseApp(tables: LicenseRouteTables, logger: LogSink, options: LicenseAppOptions = {}): Express {
  return expressAppFor(licenseClientTable(tables.client, logger), tables, logger, options.trustProxy ?? 0);
}

/** Express hosting the client table (and the Admin table under its prefix), with request logs and proxy hops. */
function expressAppFor(client: RouteTable, tables: LicenseRouteTables, logger: LogSink, trustProxy: number): Express {
  const admin = tables.admin;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (trustProxy > 0) app.set('trust proxy', trustProxy);
  // Request lines are info-level: below that level the middleware is not mounted at all.
  if (logger.isLevelEnabled?.('info') !== false) app.use(logRequests(logger));
  if (admin) {
    const serveAdmin = toExpress(admin);
    app.use((request, response, next) => {
      if (request.path === adminPathPrefix || request.path.startsWith(`${adminPathPrefix}/`)) serveAdmin(request, response, next);
      else next();
    });
  }
  for (const { prefix, table } of tables.mounted ?? []) {
    const serve = toExpress(table);
    app.use((request, response, next) => {
      if (request.path === prefix || request.path.startsWith(`${prefix}/`)) serve(request, response, next);
      else next();
    });
  }
  app.use(toExpress(client, trustProxy > 0 ? { remoteAddress: (request) => (request as Request).ip } : {}));
  return app;
}

/**
 * The client address as Express's `trust proxy` with a hop count resolves it (`proxy-addr` trusting the
 * nearest `hops` addresses): the socket address, then `X-Forwarded-For` from right to left (entries
 * split on commas, spaces trimmed, empty ones skipped), taking the entry `hops` steps in, or the
 * leftmost when there are fewer.
 */
function forwardedAddress(request: IncomingMessage, hops: number): string | undefined {
  const addresses: (string | undefined)[] = [request.socket.remoteAddress];
  const header = request.headers['x-forwarded-for'];
  if (typeof header === 'string') {
    const entries = header.split(',');
    for (let index = entries.length - 1; index >= 0 && addresses.length <= hops; index -= 1) {
      const entry = (entries[index] as string).replace(/^ +| +$/g, '');
      if (entry.length > 0) addresses.push(entry);
    }
  }
  return addresses[Math.min(hops, addresses.length - 1)];
}

/**
 * The license server's request listener: the client protocol under `/v1/` (every validate, heartbeat
 * and activation) is served straight from its route table, everything else (`/health`, the Admin API)
 * by the Express app of {@link createLicenseApp}. Why: Express's per-request work (router,
 * request/response prototypes) was a large share of a validation's CPU, and the table needs none of it:
 * CORS, `X-LS-Proto`, no-store, body limits, compression and the error map all live in the table. The
 * answers are the same either way: the same table and renderer, the same request log line, and the
 * client address resolved as Express's `trust proxy` with a hop count does.
 *
 * @param tables - The client and Admin route tables.
 * @param logger - Request and error logs.
 * @param options - Trusted proxy hops.
 * @returns A `node:http` request listener.
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createLicenseListener } from './app';
 * createServer(createLicenseListener({ client: [...healthRoutes(database), ...clientRoutes] }, logger)).listen(4030);
 * ```
 */
export function createLicenseListener(tables: LicenseRouteTables, logger: LogSink, options: LicenseAppOptions = {}): RequestListener {
  const trustProxy = options.trustProxy ?? 0;
  // One client table for both paths: whatever a path under /v1/ matches in the app, it matches here.
  const client = licenseClientTable(tables.client, logger);
  const app = expressAppFor(client, tables, logger, trustProxy);
  const serveClient = toExpress(client, trustProxy > 0 ? { remoteAddress: (request: IncomingMessage) => forwardedAddress(request, trustProxy) } : {});
  const logged = logger.isLevelEnabled?.('info') !== false ? logRequests(logger) : undefined;
  return (request, response) => {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (!path.startsWith('/v1/') || path === adminPathPrefix || path.startsWith(`${adminPathPrefix}/`)) {
      app(request, response);
      return;
    }
    if (logged === undefined) serveClient(request, response);
    else logged(request, response, () => serveClient(request, response));
  };
}
