import { LicenseClientError } from '../../../errors/license-client';
import { encodeCborSequence } from '../../revocation-feed-format';
import { isHexId } from '../../../crypto/random';
import { listAuditAnchors } from '../../admin/audit/audit-anchors';
import { route } from '../../../http/routes';
import type { HttpResponse, Route } from '../../../http/types';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';
import { logServerErrors } from './server-error-log';

/** Anchors one `GET /v1/audit/anchors/:vendorId` answers with when no `limit` is given. */
export const defaultAuditAnchorLimit = 64;
/** Most anchors one answer holds. */
export const maxAuditAnchorLimit = 256;

/**
 * `GET /v1/audit/anchors/:vendorId?limit=N`: a vendor's signed audit anchors, newest first, as a CBOR
 * sequence (`application/cbor-seq`, RFC 8742) of `audit-anchor` envelopes, at most `limit` (1 to 256,
 * default 64). Public like the keyset: an anchor only states a head hash, and a third party verifies it
 * against the pinned root with `verifyAuditAnchor`. The answer changes with every new anchor, so it is
 * `no-store`; no anchor yet is 204. A vendor id that is not 32 lower-case hex digits, or a malformed
 * `limit`, is 400 with code 1000. With a `logger`, every 5xx is logged with its cause (`logServerErrors`).
 *
 * @param sql - The license database.
 * @param options - `logger` for 5xx answers.
 * @returns The route.
 * @example
 * ```ts
 * import { auditAnchorRoutes } from '@tollgate/core/license';
 * const client = [...keysRoutes(trust, { logger }), ...revocationRoutes(sql, { logger }), ...auditAnchorRoutes(sql, { logger })];
 * ```
 */
export function auditAnchorRoutes(sql: SqlClient, options: { logger?: LicenseLogSink } = {}): Route[] {
  return [
    route({
      method: 'GET',
      path: '/v1/audit/anchors/:vendorId',
      handler: logServerErrors(options.logger, async (request): Promise<HttpResponse> => {
        const vendorId = request.params['vendorId'];
        if (!isHexId(vendorId, 16)) throw new LicenseClientError(1000, 'vendorId must be 32 lower-case hex digits.');
        const limitText = request.query['limit'];
        if (limitText !== undefined && (!/^[1-9][0-9]{0,2}$/.test(limitText) || Number(limitText) > maxAuditAnchorLimit)) {
          throw new LicenseClientError(1000, `limit must be a whole number from 1 to ${maxAuditAnchorLimit}.`);
        }
        const anchors = await listAuditAnchors(sql, vendorId, limitText === undefined ? defaultAuditAnchorLimit : Number(limitText));
        if (anchors.length === 0) return { status: 204, headers: { 'cache-control': 'no-store' } };
        return {
          status: 200,
          headers: { 'content-type': 'application/cbor-seq', 'cache-control': 'no-store' },
          body: encodeCborSequence(anchors.map((anchor) => anchor.envelope)),
        };
      }),
    }),
  ];
}
