import { route } from '../../http/routes';
import type { Route } from '../../http/types';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { RefService } from '../refs/ref-service';
import { createRefRequestSchema, listRefsQuerySchema } from '../refs/schemas';
import type { BearerAuth } from './bearer-auth';
import { noStore } from './merchant-routes';
import { parseGatewayInput } from './parse-input';
import { gatewayRateLimit, type GatewayRateLimits } from './rate-limit';

/** What the ref routes need. */
export interface RefRouteDeps {
  readonly refs: RefService;
  readonly auth: BearerAuth;
  readonly rateLimiter: RateLimiter;
  readonly rateLimits: GatewayRateLimits;
}

/** Body cap of `POST /ref`: the largest valid options (512-byte description, escaped) fit many times over. */
export const refBodyLimit = 8 * 1024;

/**
 * The ref routes: `POST /ref`, `GET /ref` and `POST /ref/:refId/revoke` (bearer) and
 * `GET /ref/:refId` (public, rate-limited).
 *
 * @param deps - The ref service, bearer auth and rate limits.
 * @returns The routes.
 * @example
 * ```ts
 * import { refRoutes } from '@tollgate/core/gateway';
 * const routes = refRoutes({ refs, auth, rateLimiter, rateLimits });
 * ```
 */
export function refRoutes(deps: RefRouteDeps): Route[] {
  const { refs, auth } = deps;
  return [
    route({
      method: 'POST',
      path: '/ref',
      middleware: [auth.required],
      body: { type: 'json', maxBytes: refBodyLimit },
      handler: async (request) => {
        const options = parseGatewayInput(createRefRequestSchema, request.body);
        const created = await refs.createRef(await auth.merchantOf(request), options);
        return { status: 201, headers: { ...noStore, location: `/ref/${created.refId}` }, body: created };
      },
    }),
    route({
      method: 'GET',
      path: '/ref',
      middleware: [auth.required],
      handler: async (request) => {
        const query = parseGatewayInput(listRefsQuerySchema, request.query);
        return { status: 200, headers: noStore, body: await refs.listRefs(await auth.merchantOf(request), query) };
      },
    }),
    route({
      method: 'GET',
      path: '/ref/:refId',
      middleware: [gatewayRateLimit(deps.rateLimiter, 'refLookup', deps.rateLimits.refLookup)],
      // Status can change (revocation): clients must revalidate rather than reuse a stale copy.
      handler: async (request) => ({ status: 200, headers: { 'cache-control': 'no-cache' }, body: await refs.getRef(request.params.refId) }),
    }),
    route({
      method: 'POST',
      path: '/ref/:refId/revoke',
      middleware: [auth.required],
      handler: async (request) => ({ status: 200, headers: noStore, body: await refs.revokeRef(await auth.merchantOf(request), request.params.refId) }),
    }),
  ];
}
