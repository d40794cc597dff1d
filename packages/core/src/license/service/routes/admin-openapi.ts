import { adminOpenApiPath, adminOpenApiText } from '../../admin/openapi/admin-openapi-document';
import { defineRoutes } from '../../../http/routes';
import type { AdminOperation } from '../../admin/admin-operation';
import type { Middleware, Route, RouteTable } from '../../../http/types';

/** How long caches may keep the document (it changes only when the server is upgraded). */
export const adminOpenApiMaxAgeSeconds = 300;

/**
 * The Admin table with `GET /v1/admin/openapi.json` added: the OpenAPI 3.1 document generated from the
 * same operations the table routes, so it lists exactly what this server serves. The document is public
 * (no token: it holds no secrets and nothing per vendor), built once, and cacheable; every other Admin
 * answer keeps the table's `Cache-Control: no-store`.
 *
 * @param table - The Admin route table (`createLicenseAdminApi(...).table`).
 * @param operations - The operations it was built from (`createLicenseAdminApi(...).operations`).
 * @returns The table with the document route.
 * @example
 * ```ts
 * const admin = createLicenseAdminApi(options);
 * createLicenseListener({ client, admin: withAdminOpenApi(admin.table, admin.operations) }, logger);
 * ```
 */
export function withAdminOpenApi(table: RouteTable, operations: readonly AdminOperation[]): RouteTable {
  const text = adminOpenApiText(operations);
  const document: Route = {
    method: 'GET',
    path: adminOpenApiPath,
    handler: () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: text }),
  };
  // Outermost, so it runs after the table's no-store middleware and has the last word on this route only.
  const cacheable: Middleware = async (request, next) => {
    const response = await next();
    if (request.path !== adminOpenApiPath || response.status !== 200) return response;
    return { ...response, headers: { ...response.headers, 'cache-control': `public, max-age=${adminOpenApiMaxAgeSeconds}` } };
  };
  return defineRoutes({ ...table, routes: [...table.routes, document], middleware: [cacheable, ...(table.middleware ?? [])] });
}
