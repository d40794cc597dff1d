import { LicenseClientError } from '../../../errors/license-client';
import { encodeCborSequence, parseRevocationSince } from '../../revocation-feed-format';
import { readRevocationPage } from '../../storage/revocation-store';
import { route } from '../../../http/routes';
import type { HttpResponse, Route } from '../../../http/types';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';
import { logServerErrors } from './server-error-log';

/**
 * `GET /v1/revocations?since=N`: the published revocation batches after `N` as a CBOR sequence
 * (`application/cbor-seq`, RFC 8742) of signed batch envelopes, at most one aligned page of 64
 * (`revocationPageRange`). A full page never changes and is sent `public, max-age=31536000, immutable`;
 * a partial page is `no-store`; nothing newer is 204 `no-store`. A malformed `since` is 400 with code 1000.
 * With a `logger`, every 5xx (a database failure) is logged with its cause (`logServerErrors`).
 *
 * @param sql - The license database.
 * @param options - `logger` for 5xx answers.
 * @returns The route.
 *
 * @example
 * ```ts
 * import { revocationRoutes } from '@tollgate/core/license';
 * const routes = revocationRoutes(database.sql, { logger });
 * ```
 */
export function revocationRoutes(sql: SqlClient, options: { logger?: LicenseLogSink } = {}): Route[] {
  return [
    route({
      method: 'GET',
      path: '/v1/revocations',
      handler: logServerErrors(options.logger, async (request): Promise<HttpResponse> => {
        const since = parseRevocationSince(request.query['since']);
        if (since === undefined) throw new LicenseClientError(1000, 'since must be a decimal u64 without sign or leading zeros.');
        const page = await readRevocationPage(sql, since);
        if (page === undefined) return { status: 204, headers: { 'cache-control': 'no-store' } };
        return {
          status: 200,
          headers: {
            'content-type': 'application/cbor-seq',
            'cache-control': page.complete ? 'public, max-age=31536000, immutable' : 'no-store',
          },
          body: encodeCborSequence(page.envelopes),
        };
      }),
    }),
  ];
}
