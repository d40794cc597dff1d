import type { IncomingMessage, RequestListener } from 'node:http';
import type { Route, RouteTable } from '@tollgate/core';
import { gatewayRouteTable } from '@tollgate/core/gateway';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express, type Request } from 'express';
import proxyaddr from 'proxy-addr';

/** Options of {@link createGatewayApp} and {@link createGatewayListener}. */
export interface GatewayAppOptions {
  /**
   * Proxy hops in front of the gateway whose `X-Forwarded-For` is trusted (Express `trust proxy`).
   * 0 (default) uses the socket address. Rate limits key on this address, so set it behind a proxy.
   */
  trustProxy?: number;
}

/**
 * Builds the gateway's Express app from its route tables. Express only hosts the tables: no body parser
 * runs in front of them, and every error is rendered in the gateway envelope. Unexpected errors are logged
 * (without request headers) and answered with `internal_error`.
 *
 * @param routes - Every route of the gateway (health, merchants, refs, receive).
 * @param logger - Request and error log sink.
 * @param options - Trusted proxy hops.
 * @returns The Express app.
 * @example
 * ```ts
 * import { createGatewayApp } from '@tollgate/gateway-server';
 * const app = createGatewayApp([...healthRoutes({ database }), ...gateway.routes], logger, { trustProxy: 1 });
 * ```
 */
export function createGatewayApp(routes: Route[], logger: LogSink, options: GatewayAppOptions = {}): Express {
  return expressAppFor(gatewayRouteTable(routes, logger), logger, options.trustProxy ?? 0);
}

/** Express hosting `table`, with request logs and the trusted proxy hops. */
function expressAppFor(table: RouteTable, logger: LogSink, trustProxy: number): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (trustProxy > 0) app.set('trust proxy', trustProxy);
  // Request lines are info-level: below that level the middleware is not mounted at all.
  if (logger.isLevelEnabled?.('info') !== false) app.use(logRequests(logger));
  app.use(
    toExpress(
      table,
      // Express resolves req.ip from the socket, or from X-Forwarded-For through the trusted hops only.
      trustProxy > 0 ? { remoteAddress: (request) => (request as Request).ip } : {},
    ),
  );
  return app;
}

/** The payer-facing hot path: x402 negotiation and settlement. */
const hotPrefix = '/receive/';

/**
 * The gateway server's request listener: requests under `/receive/` (the payer-facing hot path: every
 * 402 negotiation and every payment) are served straight from their route table, everything else by the
 * Express app of {@link createGatewayApp} (which serves `/receive` too, for embedding). Why: Express's
 * per-request work (its router, request/response prototype setup) was about a quarter of a 402's cost on
 * the benchmark machine, and the table needs none of it. The answers are byte-identical either way: the
 * same table and renderer, the same request log line, and the client address resolved exactly as
 * Express's `trust proxy` with a hop count does (`proxy-addr`, trusting the nearest `trustProxy` hops).
 *
 * @param routes - Every route of the gateway.
 * @param logger - Request and error log sink.
 * @param options - Trusted proxy hops.
 * @returns A `node:http` request listener.
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createGatewayListener } from '@tollgate/gateway-server';
 * createServer(createGatewayListener([...healthRoutes({ database }), ...gateway.routes], logger)).listen(4020);
 * ```
 */
export function createGatewayListener(routes: Route[], logger: LogSink, options: GatewayAppOptions = {}): RequestListener {
  const trustProxy = options.trustProxy ?? 0;
  // One table for both paths: whatever route a path under the prefix matches in the app, it matches here.
  const table = gatewayRouteTable(routes, logger);
  const app = expressAppFor(table, logger, trustProxy);
  if (!routes.some((route) => route.path.startsWith(hotPrefix))) return app;
  // Express's compiled trust for a hop count: the i-th address from the socket is trusted while i < hops.
  const trusted = (_address: string, hop: number) => hop < trustProxy;
  const serveHot = toExpress(table, trustProxy > 0 ? { remoteAddress: (request: IncomingMessage) => proxyaddr(request, trusted) } : {});
  const logged = logRequests(logger);
  return (request, response) => {
    if (request.url?.startsWith(hotPrefix) !== true) {
      app(request, response);
      return;
    }
    logged(request, response, () => serveHot(request, response));
  };
}
