import { route, type Route } from '@tollgate/core';
import type { OpenDatabase } from '@tollgate/core/node';
import { version } from '../../package.json';

/** What `GET /healthz` needs to check. */
export interface HealthDependencies {
  database: Pick<OpenDatabase, 'ping' | 'engine'>;
}

/**
 * `GET /healthz`: 200 with `ok: true` when the database answers, 503 with `ok: false` otherwise. The body
 * names each dependency's state so an operator sees which one failed.
 */
export function healthRoutes(deps: HealthDependencies): Route[] {
  return [
    route({
      method: 'GET',
      path: '/healthz',
      handler: async () => {
        const databaseOk = await deps.database.ping();
        return {
          status: databaseOk ? 200 : 503,
          headers: { 'cache-control': 'no-store' },
          body: {
            ok: databaseOk,
            service: 'tollgate-gateway',
            version,
            database: { ok: databaseOk, engine: deps.database.engine },
          },
        };
      },
    }),
  ];
}
