import type { Middleware } from './types';

/**
 * Options of {@link cors}.
 *
 * @example
 * ```ts
 * import { cors, type CorsOptions } from '@tollgate/core/http';
 * const options: CorsOptions = { exposeHeaders: ['retry-after'], maxAgeSeconds: 3600 };
 * const middleware = cors(options);
 * ```
 */
export interface CorsOptions {
  /** `Access-Control-Allow-Origin`. Default `*` (no credentials are ever allowed with it). */
  readonly allowOrigin?: string;
  /** Methods a preflight may ask for. Default: the one the preflight asks for. */
  readonly allowMethods?: readonly string[];
  /** Request headers a preflight may ask for. Default: the ones the preflight asks for. */
  readonly allowHeaders?: readonly string[];
  /** Response headers scripts may read, such as `retry-after` or `payment-required`. */
  readonly exposeHeaders?: readonly string[];
  /** How long browsers may cache a preflight answer. Default 600 seconds. */
  readonly maxAgeSeconds?: number;
}

/**
 * A CORS middleware for a route table. It answers preflights (`OPTIONS` with
 * `Access-Control-Request-Method`) itself with 204, before routing refuses them, and adds the CORS
 * headers to every other response, including rendered errors (404, 405, 413, 500), because `next()`
 * never throws. Put it first in the table's middleware so nothing answers without it.
 *
 * @param options - Origin, methods, headers, exposed headers and preflight cache time.
 * @returns The middleware.
 * @example
 * ```ts
 * import { renderLicenseClientError } from '@tollgate/core';
 * import { cors, defineRoutes } from '@tollgate/core/http';
 * const routes = defineRoutes({
 *   renderError: renderLicenseClientError,
 *   middleware: [cors({ exposeHeaders: ['retry-after'] })],
 *   routes: [],
 * });
 * ```
 */
export function cors(options: CorsOptions = {}): Middleware {
  const origin = { 'access-control-allow-origin': options.allowOrigin ?? '*' };
  const vary: Record<string, string> = origin['access-control-allow-origin'] === '*' ? {} : { vary: 'origin' };
  const exposed: Record<string, string> = options.exposeHeaders?.length ? { 'access-control-expose-headers': options.exposeHeaders.join(', ') } : {};
  const maxAge = String(Math.max(0, Math.floor(options.maxAgeSeconds ?? 600)));
  return async (request, next) => {
    const requestedMethod = request.headers['access-control-request-method'];
    if (request.method === 'OPTIONS' && requestedMethod !== undefined) {
      const requestedHeaders = request.headers['access-control-request-headers'];
      const allowHeaders = options.allowHeaders?.join(', ') ?? requestedHeaders;
      return {
        status: 204,
        headers: {
          ...origin,
          ...vary,
          'access-control-allow-methods': options.allowMethods?.join(', ') ?? requestedMethod,
          ...(allowHeaders ? { 'access-control-allow-headers': allowHeaders } : {}),
          'access-control-max-age': maxAge,
        },
      };
    }
    const response = await next();
    return { ...response, headers: { ...response.headers, ...origin, ...vary, ...exposed } };
  };
}
