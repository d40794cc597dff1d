import { LicenseClientError, route, type Route } from '@tollgate/core';
import type { LicenseTrust } from '../trust/license-trust';

/**
 * `GET /v1/keys`: the CBOR keyset (epoch certificates and the revocation epoch), `Cache-Control: public,
 * max-age=300`. While the keyset cache is cold: 503, code 5000, `Retry-After: 1`.
 *
 * @param trust - The server's trust state.
 * @returns The route.
 *
 * @example
 * ```ts
 * import { keysRoutes } from '@tollgate/license-server';
 * const routes = keysRoutes(trust);
 * ```
 */
export function keysRoutes(trust: Pick<LicenseTrust, 'keyset'>): Route[] {
  return [
    route({
      method: 'GET',
      path: '/v1/keys',
      handler: () => {
        const keyset = trust.keyset();
        if (keyset === undefined) throw new LicenseClientError(5000, 'The keyset is not ready yet.', { status: 503, retryAfterSeconds: 1 });
        return { status: 200, headers: { 'content-type': 'application/cbor', 'cache-control': 'public, max-age=300' }, body: keyset.bytes };
      },
    }),
  ];
}
