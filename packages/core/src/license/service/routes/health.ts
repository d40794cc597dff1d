import { route } from '../../../http/routes';
import type { Route } from '../../../http/types';
import type { SqlClient } from '../../../storage/sql-client';
import { pingSql } from '../../../storage/sql-ping';
import { version as coreVersion } from '../../../../package.json';

/**
 * What the health route asks: whether the database answers.
 *
 * @example
 * ```ts
 * import type { LicenseHealthProbe } from '@tollgate/core/license';
 * const probe: LicenseHealthProbe = { ping: async () => true };
 * ```
 */
export interface LicenseHealthProbe {
  ping(): Promise<boolean>;
}

/**
 * A probe over a SQL client: `SELECT 1` answered within `timeoutMs` (2 s by default); a failure or a
 * timeout is `false`, never a throw.
 *
 * @param sql - The service's database.
 * @param timeoutMs - How long to wait for the answer.
 * @returns The probe.
 * @example
 * ```ts
 * import { healthRoutes, sqlHealthProbe } from '@tollgate/core/license';
 * const routes = healthRoutes(sqlHealthProbe(sql));
 * ```
 */
export function sqlHealthProbe(sql: SqlClient, timeoutMs = 2_000): LicenseHealthProbe {
  return { ping: () => pingSql(sql, timeoutMs) };
}

/**
 * `GET /health`: JSON `{ ok, service, version }` — 200 when the database answers, 503 otherwise. It is
 * meant for load balancers, so it needs no `X-LS-Proto` header (docs/decisions.md).
 *
 * @param database - What answers whether the database is up (`sqlHealthProbe(sql)`, or an `OpenDatabase`).
 * @param options - `version` reported in the body (default: `@tollgate/core`'s own; `tollgate-license` reports its package's).
 * @returns The route.
 * @example
 * ```ts
 * import { healthRoutes } from '@tollgate/core/license';
 * const routes = healthRoutes(database);
 * ```
 */
export function healthRoutes(database: LicenseHealthProbe, options: { version?: string } = {}): Route[] {
  const version = options.version ?? coreVersion;
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
