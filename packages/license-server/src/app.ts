import { adminPathPrefix, cors, defineRoutes, isTollgateError, renderLicenseClientError, type Route, type RouteTable } from '@tollgate/core';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express } from 'express';
import { noStoreByDefault, requireLicenseProtocol } from './routes/client-protocol';

/** Route tables of the license server, one per wire stack. */
export interface LicenseRouteTables {
  /** `/health` and the CBOR client protocol under `/v1` (permissive CORS, CBOR error bodies). */
  client: Route[];
  /**
   * The JSON Admin API (`createLicenseAdminApi(...).table`): every path under `/v1/admin` goes to it, so
   * none of them inherits the client protocol's CORS or CBOR errors.
   */
  admin?: RouteTable;
}

/**
 * Builds the license server's Express app. Express only hosts the route tables; each table renders its
 * own error envelope. The client table runs, in order: CORS (answers preflights, adds
 * `Access-Control-Allow-Origin: *` to everything, exposes `Retry-After`), the `X-LS-Proto: 1` check on
 * `/v1/…`, and `Cache-Control: no-store` unless a route set its own caching. Unexpected errors are logged
 * (without request headers) and answered with 5000.
 *
 * @example
 * ```ts
 * import { createLicenseApp, healthRoutes, keysRoutes } from '@tollgate/license-server';
 * const app = createLicenseApp({ client: [...healthRoutes(database), ...keysRoutes(trust)] }, logger);
 * ```
 */
export function createLicenseApp(tables: LicenseRouteTables, logger: LogSink): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Request lines are info-level: below that level the middleware is not mounted at all.
  if (logger.isLevelEnabled?.('info') !== false) app.use(logRequests(logger));
  if (tables.admin) {
    const admin = toExpress(tables.admin);
    app.use((request, response, next) => {
      if (request.path === adminPathPrefix || request.path.startsWith(`${adminPathPrefix}/`)) admin(request, response, next);
      else next();
    });
  }
  app.use(
    toExpress(
      defineRoutes({
        routes: tables.client,
        middleware: [cors({ exposeHeaders: ['retry-after'] }), requireLicenseProtocol(), noStoreByDefault()],
        renderError: (error) => {
          if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
          return renderLicenseClientError(error);
        },
      }),
    ),
  );
  return app;
}
