import { toFetchHandler } from '../../http/fetch-adapter';
import type { Route, RouteTable } from '../../http/types';
import { adminPathPrefix } from '../admin/admin-route-table';
import type { LicenseLogSink } from './logger';
import type { MountedTable } from './modules/license-module';
import { licenseClientTable } from './routes/client-table';

/**
 * The service's tables, each with its own middleware and error envelope.
 *
 * @example
 * ```ts
 * import { toExpress } from '@tollgate/core/node';
 * app.use(toExpress(service.tables.client));
 * ```
 */
export interface LicenseServiceTables {
  /** `/health` and the CBOR client protocol (`licenseClientTable`). */
  readonly client: RouteTable;
  /** The JSON Admin API: every path under `/v1/admin`. */
  readonly admin: RouteTable;
  /** Tables under their own prefix (`/webhooks`, `/metrics`). */
  readonly mounted: readonly MountedTable[];
}

/** Whether `path` is `prefix` or below it. */
function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * One fetch handler over the service's tables, dispatching as `tollgate-license` does: a path under
 * `/v1/admin` to the Admin table, one under a mounted prefix to that table, everything else to the client
 * table. `drain()` waits for the requests in flight.
 *
 * @param routes - The client routes, the Admin table and the mounted tables.
 * @param logger - Where the client table logs unexpected errors.
 * @param remoteAddress - The client address of a request (the client table's per-address budgets).
 * @returns The handler, the built tables and `drain()`.
 * @example
 * ```ts
 * const { fetch } = licenseFetchHandler({ client, admin: adminTable, mounted: [] }, logger);
 * const response = await fetch(new Request('http://localhost/health'));
 * ```
 */
export function licenseFetchHandler(
  routes: { readonly client: Route[]; readonly admin: RouteTable; readonly mounted: readonly MountedTable[] },
  logger: LicenseLogSink,
  remoteAddress?: (request: Request) => string | undefined,
): { fetch(request: Request): Promise<Response>; tables: LicenseServiceTables; drain(): Promise<void> } {
  const tables: LicenseServiceTables = { client: licenseClientTable(routes.client, logger), admin: routes.admin, mounted: routes.mounted };
  const serveClient = toFetchHandler(tables.client, remoteAddress === undefined ? {} : { remoteAddress });
  const serveAdmin = toFetchHandler(tables.admin);
  const mounted = tables.mounted.map(({ prefix, table }) => ({ prefix, serve: toFetchHandler(table) }));
  const inFlight = new Set<Promise<unknown>>();
  const dispatch = (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (under(path, adminPathPrefix)) return serveAdmin(request);
    for (const { prefix, serve } of mounted) if (under(path, prefix)) return serve(request);
    return serveClient(request);
  };
  return {
    tables,
    fetch(request) {
      const answer = dispatch(request);
      const settled = answer.catch(() => undefined);
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      return answer;
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
