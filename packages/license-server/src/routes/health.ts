import { route, type Route } from '@tollgate/core';
import type { OpenDatabase } from '@tollgate/core/node';
import { version } from '../../package.json';

/**
 * `GET /health`: JSON `{ ok, service, version }` — 200 when the database answers, 503 otherwise. It is
 * meant for load balancers, so it needs no `X-LS-Proto` header (docs/decisions.md).
 *
 * @example
 * ```ts
 * import { healthRoutes } from '@tollgate/license-server';
 * const routes = healthRoutes(database);
 * ```
 */
export function healthRoutes(database: Pick<OpenDatabase, 'ping'>): Route[] {
  return [
    route({
      method: 'GET',
      path: '/health',
      handler: async () => {
        const ok = await database.ping();
        return {
          status: ok ? 200 : 503,
          headers: { 'cache-control': 'no-store' },
          body: { ok, service: 'tollgate-license', version },
        };
      },
    }),
  ];
}
