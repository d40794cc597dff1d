import { serializeOpenApiDocument, type OpenApiDocument } from '../../../openapi/document';
import type { JsonObject } from '../../../openapi/operation-object';
import { SchemaRegistry } from '../../../openapi/schema-registry';
import type { AdminOperation } from '../admin-operation';
import { adminPathPrefix } from '../admin-route-table';
import { adminDocumentPath, adminErrorComponent, adminErrorComponentOf, adminOperationErrorCodes, adminOperationObject, adminSecuritySchemeName, operationComponents } from './admin-operation-object';

/**
 * The version of the Admin API document (`info.version`): it changes with the contract, not with the
 * package version, so publishing a package does not make the checked-in document stale.
 */
export const adminOpenApiVersion = '1.0.0';

/** Where the license server serves the document (public, no token). */
export const adminOpenApiPath = `${adminPathPrefix}/openapi.json`;

const description = [
  'The Tollgate license service Admin API (license spec, "Admin API"): vendors, products, catalog, policies, licenses, machines, releases, epochs, asset keys, integrity signing, billing checkout tokens, telemetry, analytics, audit and data-subject requests.',
  'Every call but this document needs Authorization: Bearer <Admin token>; each operation lists the scopes its token must hold (security, x-required-scopes). Mutations need an Idempotency-Key; destructive operations default to dry_run=true and need the key once confirmed with dry_run=false. Successful answers are { ok: true, … }; every error is { ok: false, error: { code, message } } with the status of its code. Every answer carries Cache-Control: no-store (this document excepted). Clients must ignore unknown response fields.',
  'Generated from the operations the server routes and the valibot schemas they parse requests with; an answer without a published schema is documented as the generic { ok: true, … } envelope.',
].join('\n\n');

// Request methods in document order within one path.
const methodOrder = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/** Operations sorted by path, then method: the document does not depend on registration order. */
function sorted(operations: readonly AdminOperation[]): AdminOperation[] {
  return [...operations].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : methodOrder.indexOf(a.method) - methodOrder.indexOf(b.method)));
}

const documentOperation: JsonObject = {
  operationId: 'getAdminOpenApiDocument',
  summary: 'This document.',
  description: 'Public (no token) and cacheable; the same for every caller. Lists every Admin operation this server routes.',
  tags: ['openapi'],
  security: [],
  responses: { '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
};

/**
 * Builds the OpenAPI 3.1 document of the Admin API from its operations (the list the route table is
 * built from): one path per operation under `/v1/admin`, with the schemas of their `docs` converted by
 * the shared valibot → JSON Schema converter. Pure and deterministic: the same operations, in any
 * order, give the same document.
 *
 * @param operations - Every Admin operation of the server (`createLicenseAdminApi(...).operations`).
 * @returns The document.
 * @throws TypeError when an operation has no `docs`, or two share a method and path.
 * @example
 * ```ts
 * import { buildAdminOpenApiDocument } from '@tollgate/core/license';
 * const document = buildAdminOpenApiDocument(admin.operations);
 * ```
 */
export function buildAdminOpenApiDocument(operations: readonly AdminOperation[]): OpenApiDocument {
  const registry = new SchemaRegistry();
  registry.add(adminErrorComponent, 'output');
  const ordered = sorted(operations);
  for (const operation of ordered) {
    const { request, response } = operationComponents(operation);
    if (request !== undefined) registry.add(request, 'input');
    if (response !== undefined) registry.add(response, 'output');
    for (const code of adminOperationErrorCodes(operation)) registry.add(adminErrorComponentOf(code), 'output');
  }
  const paths: Record<string, Record<string, JsonObject>> = { [adminOpenApiPath]: { get: documentOperation } };
  for (const operation of ordered) {
    const item = (paths[adminDocumentPath(operation)] ??= {});
    const method = operation.method.toLowerCase();
    if (item[method] !== undefined) throw new TypeError(`openapi: ${operation.method} ${operation.path} is described twice`);
    item[method] = adminOperationObject(operation, registry);
  }
  const tags = [...new Set(ordered.map((operation) => operation.path.split('/')[1] as string)), 'openapi'];
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate license Admin API', version: adminOpenApiVersion, description, license: { name: 'MIT', identifier: 'MIT' } },
    tags: tags.map((name) => ({ name, description: name === 'openapi' ? 'The API description itself.' : `Operations under ${adminPathPrefix}/${name}.` })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: {
      schemas: registry.components(),
      securitySchemes: {
        [adminSecuritySchemeName]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An Admin token (ADMIN_TOKEN_PREFIX + secret) of one vendor. The scopes listed on each operation are the roles the token must hold. Never log it.',
        },
      },
    },
  };
}

/**
 * The document as the text checked in at `docs/openapi/license-admin.json` and served at
 * `GET /v1/admin/openapi.json`: two-space indented JSON with a final newline (the gateway's form).
 *
 * @param operations - Every Admin operation of the server.
 * @returns The text.
 * @example
 * ```ts
 * import { adminOpenApiText, adminOperationCatalog } from '@tollgate/core/license';
 * const text = adminOpenApiText(adminOperationCatalog());
 * ```
 */
export function adminOpenApiText(operations: readonly AdminOperation[]): string {
  return serializeOpenApiDocument(buildAdminOpenApiDocument(operations));
}
