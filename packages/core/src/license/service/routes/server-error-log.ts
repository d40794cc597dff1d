import { LicenseClientError } from '../../../errors/license-client';
import { isTollgateError } from '../../../errors/base';
import { renderLicenseClientError } from '../../../errors/render';
import type { Handler } from '../../../http/types';
import type { LicenseLogSink } from '../logger';

/**
 * Wraps a route handler so that every error it throws which renders as a 5xx (a database failure, a
 * cold keyset, a bug) is logged once at `error` level with its cause, the method and the path (no query
 * string, no headers), then rethrown for the table's error renderer. An error that is not a
 * `TollgateError` is rethrown wrapped in a 5000 `LicenseClientError` whose `cause` it is, so the app's
 * catch-all (which logs unknown errors only) does not log it a second time. 4xx errors pass untouched.
 *
 * Why a handler wrapper and not a middleware: the route engine renders errors inside the chain, so
 * `next()` never throws and a middleware only ever sees the finished 500 (no cause). Typed errors that
 * render as 5xx never reached the app's catch-all either, which is how a database failure on
 * `GET /v1/revocations` used to answer 500 without a log line.
 *
 * Without a logger (`undefined`) the handler is returned as it is.
 *
 * @param logger - Where to log, or `undefined` for no logging.
 * @param handler - The route handler.
 * @returns The wrapped handler.
 *
 * @example
 * ```ts
 * import { logServerErrors } from '@tollgate/core/license';
 * route({ method: 'GET', path: '/v1/keys', handler: logServerErrors(logger, () => ({ status: 204 })) });
 * ```
 */
export function logServerErrors<Params extends Record<string, string>, Body>(logger: LicenseLogSink | undefined, handler: Handler<Params, Body>): Handler<Params, Body> {
  if (logger === undefined) return handler;
  return async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      if (renderLicenseClientError(error).status < 500) throw error;
      logger.error({ err: error, method: request.method, path: request.path }, 'license client route answered 5xx');
      if (isTollgateError(error)) throw error;
      throw new LicenseClientError(5000, 'Internal error.', { status: 500, cause: error });
    }
  };
}
