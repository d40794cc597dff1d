import { route } from '../../http/routes';
import type { Route } from '../../http/types';
import type { OperationGroup } from '../../openapi/descriptors';
import { buildOpenApiDocument } from '../openapi/document';
import { serializeOpenApiDocument } from '../../openapi/document';
import { servedOperationGroups } from '../openapi/gateway-operations';
import { openApiMaxAgeSeconds } from '../openapi/operations/openapi-operations';

/** What the OpenAPI route needs. */
export interface OpenApiRouteDeps {
  /**
   * The route table the document describes, read at the first request (so it includes routes added after
   * this call, the OpenAPI route among them). Only operations of these routes are listed.
   */
  readonly routes: () => readonly Route[];
  /** The descriptors to choose from (`gatewayOperationGroups`). */
  readonly groups: readonly OperationGroup[];
  /** Operations of routes served beside the table (the host's `/healthz`), listed as they are, after the others. */
  readonly hostGroups?: readonly OperationGroup[];
}

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the routes this gateway serves, public and cacheable
 * (`cache-control: public, max-age=300`). The document is built once, at the first request: it is a pure
 * function of the route table and the descriptors, which never change once served, so nothing
 * invalidates it.
 *
 * @param deps - The route table, the descriptors and the host's operations.
 * @returns The route.
 * @example
 * ```ts
 * import { gatewayOperationGroups, openApiRoutes } from '@tollgate/core/gateway';
 * const routes = [...myRoutes];
 * routes.push(...openApiRoutes({ routes: () => routes, groups: gatewayOperationGroups({ evidenceAccess: 'public' }) }));
 * ```
 */
export function openApiRoutes(deps: OpenApiRouteDeps): Route[] {
  let text: string | undefined;
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      handler: () => {
        text ??= serializeOpenApiDocument(buildOpenApiDocument([...servedOperationGroups(deps.groups, deps.routes()), ...(deps.hostGroups ?? [])]));
        return {
          status: 200,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': `public, max-age=${openApiMaxAgeSeconds}` },
          body: text,
        };
      },
    }),
  ];
}
