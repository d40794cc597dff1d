import { LicenseClientError } from '../../../errors/license-client';
import { route } from '../../../http/routes';
import type { Route } from '../../../http/types';
import type { LicenseLogSink } from '../logger';
import type { LicenseTrust } from '../trust/license-trust';
import { logServerErrors } from './server-error-log';

/**
 * `GET /v1/keys`: the CBOR keyset (epoch certificates and the revocation epoch), `Cache-Control: public,
 * max-age=300`. While the keyset cache is cold: 503, code 5000, `Retry-After: 1`. With a `logger`, every
 * 5xx is logged with its cause (`logServerErrors`), the cold keyset included.
 *
 * @param trust - The server's trust state.
 * @param options - `logger` for 5xx answers.
 * @returns The route.
 *
 * @example
 * ```ts
 * import { keysRoutes } from '@tollgate/core/license';
 * const routes = keysRoutes(trust, { logger });
 * ```
 */
export function keysRoutes(trust: Pick<LicenseTrust, 'keyset'>, options: { logger?: LicenseLogSink } = {}): Route[] {
  return [
    route({
      method: 'GET',
      path: '/v1/keys',
      handler: logServerErrors(options.logger, () => {
        const keyset = trust.keyset();
        if (keyset === undefined) throw new LicenseClientError(5000, 'The keyset is not ready yet.', { status: 503, retryAfterSeconds: 1 });
        return { status: 200, headers: { 'content-type': 'application/cbor', 'cache-control': 'public, max-age=300' }, body: keyset.bytes };
      }),
    }),
  ];
}
