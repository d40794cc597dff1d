import { LicenseClientError } from '../../../errors/license-client';
import { licenseProtocolHeader, licenseProtocolVersion } from '../../protocol';
import type { Middleware } from '../../../http/types';

/**
 * Requires `X-LS-Proto: 1` on every client path (`/v1/…` except the Admin API): a missing or other
 * value is refused with 426 and code 1004 before routing, so unknown paths answer 1004 too. `/health`
 * is exempt (load balancers call it). Place it after `cors()`, which answers preflights (they carry no
 * custom headers) before this check runs.
 *
 * @returns The middleware.
 *
 * @example
 * ```ts
 * import { renderLicenseClientError } from '@tollgate/core';
 * import { cors, defineRoutes } from '@tollgate/core/http';
 * import { requireLicenseProtocol, noStoreByDefault } from '@tollgate/core/license';
 * defineRoutes({ routes, renderError: renderLicenseClientError, middleware: [cors(), requireLicenseProtocol(), noStoreByDefault()] });
 * ```
 */
export function requireLicenseProtocol(): Middleware {
  const expected = String(licenseProtocolVersion);
  return async (request, next) => {
    const isClientPath = request.path.startsWith('/v1/') && !request.path.startsWith('/v1/admin/');
    if (isClientPath && request.headers[licenseProtocolHeader] !== expected) {
      throw new LicenseClientError(1004, `X-LS-Proto must be ${expected}.`);
    }
    return next();
  };
}

/**
 * Adds `Cache-Control: no-store` to every response that did not set its own caching (the spec's rule:
 * only `/v1/keys` and `/v1/revocations` may be cached).
 *
 * @returns The middleware.
 *
 * @example
 * ```ts
 * import { noStoreByDefault } from '@tollgate/core/license';
 * const middleware = [noStoreByDefault()];
 * ```
 */
export function noStoreByDefault(): Middleware {
  return async (_request, next) => {
    const response = await next();
    const headers = response.headers ?? {};
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'cache-control')) return response;
    return { ...response, headers: { ...headers, 'cache-control': 'no-store' } };
  };
}
