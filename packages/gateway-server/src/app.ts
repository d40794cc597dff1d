import { defineRoutes, isTollgateError, renderGatewayError, type Route } from '@tollgate/core';
import { logRequests, toExpress, type LogSink } from '@tollgate/core/node';
import express, { type Express } from 'express';

/**
 * Builds the gateway's Express app from its route tables. Express only hosts the tables: no body parser
 * runs in front of them, and every error is rendered in the gateway envelope. Unexpected errors are logged
 * (without request headers) and answered with `internal_error`.
 */
export function createGatewayApp(routes: Route[], logger: LogSink): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(logRequests(logger));
  app.use(
    toExpress(
      defineRoutes({
        routes,
        renderError: (error) => {
          if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
          return renderGatewayError(error);
        },
      }),
    ),
  );
  return app;
}
