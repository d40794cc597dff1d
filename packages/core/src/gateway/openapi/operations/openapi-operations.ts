import * as v from 'valibot';
import { named, type OperationGroup } from '../../../openapi/descriptors';

/** The top of an OpenAPI 3.1 document, as `GET /openapi.json` answers it (the rest is described by OpenAPI itself). */
export const openApiDocumentResponse = named(
  'OpenApiDocument',
  v.object({
    openapi: v.literal('3.1.0'),
    info: v.object({ title: v.string(), version: v.string(), description: v.string(), license: v.object({ name: v.string(), identifier: v.string() }) }),
    tags: v.array(v.object({ name: v.string(), description: v.string() })),
    paths: v.record(v.string(), v.record(v.string(), v.unknown())),
    components: v.object({ schemas: v.record(v.string(), v.unknown()), securitySchemes: v.record(v.string(), v.unknown()) }),
  }),
);

/** Max age of the served document: it changes only with a new gateway version or configuration. */
export const openApiMaxAgeSeconds = 300;

/**
 * `GET /openapi.json` (`routes/openapi-routes.ts`): the document itself.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, openApiOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([openApiOperations]);
 * ```
 */
export const openApiOperations: OperationGroup = {
  name: 'openapi',
  description: 'This document.',
  operations: [
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 document of this gateway',
      description: 'Lists the operations this gateway serves with its configuration (for example the evidence access policy).',
      security: 'public',
      responses: {
        200: {
          description: 'The document.',
          body: openApiDocumentResponse,
          headers: { 'Cache-Control': { description: `public, max-age=${openApiMaxAgeSeconds}.`, required: true, schema: v.literal(`public, max-age=${openApiMaxAgeSeconds}`) } },
        },
      },
      errors: [],
    },
  ],
};
