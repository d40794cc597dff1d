import { defineRoutes, isTollgateError, renderGatewayError, type Route } from '@tollgate/core';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express, type Request } from 'express';

/** Options of {@link createGatewayApp}. */
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
 * @param routes - Every route of the gateway (health, merchants, refs).
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
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const trustProxy = options.trustProxy ?? 0;
  if (trustProxy > 0) app.set('trust proxy', trustProxy);
  // Request lines are info-level: below that level the middleware is not mounted at all.
  if (logger.isLevelEnabled?.('info') !== false) app.use(logRequests(logger));
  app.use(
    toExpress(
      defineRoutes({
        routes,
        renderError: (error) => {
          if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
          return renderGatewayError(error);
        },
      }),
      // Express resolves req.ip from the socket, or from X-Forwarded-For through the trusted hops only.
      trustProxy > 0 ? { remoteAddress: (request) => (request as Request).ip } : {},
    ),
  );
  return app;
}
