import { cors, defineRoutes, isTollgateError, renderLicenseClientError, type Route } from '@tollgate/core';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express } from 'express';

/** Route tables of the license server, one per wire stack. */
export interface LicenseRouteTables {
  /** `/health` and the CBOR client protocol under `/v1` (permissive CORS, CBOR error bodies). */
  client: Route[];
}

/**
 * Builds the license server's Express app. Express only hosts the route tables; each table renders its
 * own error envelope. Unexpected errors are logged (without request headers) and answered with 5000.
 */
export function createLicenseApp(tables: LicenseRouteTables, logger: LogSink): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(logRequests(logger));
  app.use(
    toExpress(
      defineRoutes({
        routes: tables.client,
        middleware: [cors()],
        renderError: (error) => {
          if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
          return renderLicenseClientError(error);
        },
      }),
    ),
  );
  return app;
}
