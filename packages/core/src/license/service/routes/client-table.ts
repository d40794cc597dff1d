import { isTollgateError } from '../../../errors/base';
import { renderLicenseClientError } from '../../../errors/render';
import { cors } from '../../../http/cors';
import { defineRoutes } from '../../../http/routes';
import type { Route, RouteTable } from '../../../http/types';
import type { LicenseLogSink } from '../logger';
import { noStoreByDefault, requireLicenseProtocol } from './client-protocol';

/**
 * The license client table: `/health` and the CBOR client protocol under `/v1`, with its middleware in
 * order (CORS answering preflights and exposing `Retry-After`, the `X-LS-Proto: 1` check on `/v1/…`,
 * `Cache-Control: no-store` unless a route set its own caching) and the CBOR error map. Unexpected errors
 * are logged (without request headers) and answered with 5000.
 *
 * @param routes - The client routes.
 * @param logger - Where unexpected errors are logged.
 * @returns The table.
 * @example
 * ```ts
 * import { toFetchHandler } from '@tollgate/core';
 * import { licenseClientTable } from '@tollgate/core/license';
 * const fetch = toFetchHandler(licenseClientTable(routes, logger));
 * ```
 */
export function licenseClientTable(routes: Route[], logger: LicenseLogSink): RouteTable {
  return defineRoutes({
    routes,
    middleware: [cors({ exposeHeaders: ['retry-after'] }), requireLicenseProtocol(), noStoreByDefault()],
    renderError: (error) => {
      if (!isTollgateError(error)) logger.error({ err: error }, 'unhandled error');
      return renderLicenseClientError(error);
    },
  });
}
