import type { JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { adminErrorCodes, type AdminErrorCode } from '../../../errors/admin';
import { named, type NamedSchema } from '../../../openapi/descriptors';
import type { AnySchema } from '../../../openapi/json-schema';
import { openApiPath, type JsonObject } from '../../../openapi/operation-object';
import type { SchemaRegistry } from '../../../openapi/schema-registry';
import { adminBodyLimit, type AdminOperation } from '../admin-operation';
import { adminJsonMaxDepth, adminPageSize } from '../admin-input';
import { adminPathPrefix } from '../admin-route-table';

/** Name of the Admin token scheme in `components.securitySchemes`. */
export const adminSecuritySchemeName = 'adminToken';

/** The Admin error envelope of `codes` (`{ ok: false, error: { code, message } }`), as valibot. */
export function adminErrorEnvelope(codes: readonly AdminErrorCode[]): AnySchema {
  return v.object({ ok: v.literal(false), error: v.object({ code: v.picklist(codes as AdminErrorCode[]), message: v.string() }) });
}

/** Every Admin error code, the `default` response's envelope. */
export const adminErrorComponent: NamedSchema = named('AdminError', adminErrorEnvelope(Object.keys(adminErrorCodes) as AdminErrorCode[]));

// One component per code (`NotFoundError`), created once so every operation refers to the same schema object.
const errorComponents = new Map<AdminErrorCode, NamedSchema>();

/** The component of one code's envelope: `not_found` → `NotFoundError`. */
export function adminErrorComponentOf(code: AdminErrorCode): NamedSchema {
  let component = errorComponents.get(code);
  if (component === undefined) {
    component = named(`${code.split('_').map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}Error`, adminErrorEnvelope([code]));
    errorComponents.set(code, component);
  }
  return component;
}

/** `GET /licenses/:licenseId/machines` → `getLicensesLicenseIdMachines`. */
export function adminOperationId(operation: Pick<AdminOperation, 'method' | 'path'>): string {
  const words = operation.path.split(/[/:-]+/).filter((word) => word.length > 0);
  return operation.method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** The schemas an operation's docs publish as components (request `<Id>Request`, answer `<Id>Response`). */
export function operationComponents(operation: AdminOperation): { request?: NamedSchema; response?: NamedSchema } {
  const id = adminOperationId(operation);
  const pascal = id[0]!.toUpperCase() + id.slice(1);
  return {
    ...(operation.docs?.body === undefined ? {} : { request: named(`${pascal}Request`, operation.docs.body) }),
    ...(operation.docs?.response === undefined ? {} : { response: named(`${pascal}Response`, operation.docs.response) }),
  };
}

/** The largest body the kit reads for the operation (`0`: none), as `bodySpecOf` in the route table. */
function bodyBytes(operation: AdminOperation): number {
  return operation.maxBodyBytes ?? (operation.method === 'GET' ? 0 : adminBodyLimit);
}

/**
 * Every error code the operation can answer: its documented domain codes and what the kit answers for
 * any operation of its shape.
 *
 * @param operation - The operation.
 * @returns The codes, without repeats, `internal_error` excluded (it is the `default` response).
 */
export function adminOperationErrorCodes(operation: AdminOperation): AdminErrorCode[] {
  const codes: AdminErrorCode[] = ['invalid_request', 'invalid_token', 'insufficient_scope', ...(operation.docs?.errors ?? [])];
  if (operation.path.includes(':')) codes.push('not_found');
  if (operation.kind !== 'read') codes.push('idempotency_conflict');
  if (bodyBytes(operation) > 0) codes.push('payload_too_large', 'request_timeout');
  if (operation.bodyFormat === 'raw') codes.push('unsupported_media_type');
  return [...new Set(codes)].filter((code) => code !== 'internal_error');
}

function pathParameters(operation: AdminOperation): JsonObject[] {
  return [...operation.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    description: `The ${(match[1] as string).replace(/Id$/, '').replace(/([A-Z])/g, ' $1').toLowerCase()} named in the path; another vendor's is 404 not_found.`,
    schema: { type: 'string', minLength: 1 },
  }));
}

function queryParameters(operation: AdminOperation, registry: SchemaRegistry): JsonObject[] {
  const where = `${operation.method} ${operation.path}`;
  const list: JsonObject[] = [];
  const schemas = operation.docs?.query === undefined ? [] : Array.isArray(operation.docs.query) ? operation.docs.query : [operation.docs.query as AnySchema];
  for (const schema of schemas as readonly AnySchema[]) {
    const query = registry.inline(schema, 'input');
    if (query.type !== 'object' || query.properties === undefined) throw new TypeError(`openapi: ${where} query schema is not an object schema`);
    for (const [name, property] of Object.entries(query.properties)) {
      const description = typeof property === 'object' ? property.description : undefined;
      list.push({ name, in: 'query', required: (query.required ?? []).includes(name), ...(description === undefined ? {} : { description }), schema: property });
    }
  }
  if (operation.docs?.paged === true) {
    list.push(
      { name: 'limit', in: 'query', required: false, description: `Page size, 1 to ${adminPageSize.max} (default ${adminPageSize.default}).`, schema: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' } },
      { name: 'cursor', in: 'query', required: false, description: 'The next_cursor of the previous page (opaque).', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' } },
    );
  }
  if (operation.kind === 'destructive') {
    list.push({ name: 'dry_run', in: 'query', required: false, description: 'true (default): report the impact and change nothing. false: confirm (needs Idempotency-Key).', schema: { type: 'string', enum: ['true', 'false'], default: 'true' } });
  }
  if (operation.kind !== 'read') {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: operation.kind === 'mutation',
      description:
        operation.kind === 'mutation'
          ? 'Required. Replays of the same key and request answer the first answer for 24 hours (Idempotent-Replayed: true); another request under the key is 409 idempotency_conflict.'
          : 'Required when dry_run=false; replays as on mutations.',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
    });
  }
  return list;
}

function requestBody(operation: AdminOperation, registry: SchemaRegistry): JsonObject | undefined {
  const bytes = bodyBytes(operation);
  if (bytes === 0) return undefined;
  if (operation.bodyFormat === 'raw') {
    const types = operation.rawContentTypes ?? ['application/octet-stream'];
    return { required: true, description: `The raw bytes, at most ${bytes} bytes.`, content: Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])) };
  }
  const { request } = operationComponents(operation);
  if (request === undefined) {
    // Operations that read no body still have the kit's JSON body cap; say so instead of inventing a schema.
    return { required: false, description: `JSON (application/json), at most ${bytes} bytes; this operation reads nothing from it.`, content: { 'application/json': { schema: { type: 'object' } } } };
  }
  return {
    required: !v.safeParse(request.schema, undefined).success,
    description: `JSON (application/json), at most ${bytes} bytes, nested at most ${adminJsonMaxDepth} levels.`,
    content: { 'application/json': { schema: registry.ref(request) } },
  };
}

const okTrue: JsonSchema = { type: 'object', properties: { ok: { const: true } }, required: ['ok'] };

function successResponse(operation: AdminOperation, registry: SchemaRegistry): JsonObject {
  const docs = operation.docs;
  const headers: JsonObject = operation.kind === 'read' ? {} : { 'Idempotent-Replayed': { description: 'true when this is the journaled answer of an earlier request with the same key.', required: false, schema: { type: 'string', const: 'true' } } };
  const dryRun = operation.kind === 'destructive' ? ' With dry_run=true (the default) the impact is reported and nothing changes.' : '';
  const { response } = operationComponents(operation);
  const schema = response === undefined ? okTrue : { allOf: [okTrue, registry.ref(response)] };
  const content = docs?.responseMediaType === undefined ? { 'application/json': { schema } } : { [docs.responseMediaType]: { schema: { type: 'string' } } };
  return {
    description: `${response === undefined ? 'Success (the { ok: true, … } envelope; fields not described here).' : 'Success.'}${dryRun}`,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    content,
  };
}

function errorResponses(operation: AdminOperation, registry: SchemaRegistry): JsonObject {
  const byStatus = new Map<number, AdminErrorCode[]>();
  for (const code of adminOperationErrorCodes(operation)) byStatus.set(adminErrorCodes[code], [...(byStatus.get(adminErrorCodes[code]) ?? []), code]);
  const result: JsonObject = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) as AdminErrorCode[];
    const wwwAuthenticate = codes.includes('invalid_token') ? { headers: { 'WWW-Authenticate': { description: 'Bearer realm="…" (ADMIN_REALM).', required: true, schema: { type: 'string' } } } } : {};
    const refs = codes.map((code) => registry.ref(adminErrorComponentOf(code)));
    const schema = refs.length === 1 ? (refs[0] as JsonSchema) : { anyOf: refs };
    result[String(status)] = { description: `${codes.join(' or ')} (Admin error envelope).`, ...wwwAuthenticate, content: { 'application/json': { schema } } };
  }
  result['default'] = { description: 'Any other Admin error (internal_error, method_not_allowed, service_unavailable, …).', content: { 'application/json': { schema: registry.ref(adminErrorComponent) } } };
  return result;
}

/**
 * The OpenAPI Operation Object of an Admin operation: path and query parameters, `Idempotency-Key` and
 * `dry_run` by its kind, the request body (its valibot schema, or raw bytes), the success answer and the
 * error envelopes of every code it can answer.
 *
 * @param operation - The operation (with `docs`).
 * @param registry - The document's schemas, every component of {@link operationComponents} registered.
 * @returns The Operation Object.
 * @throws TypeError when the operation has no docs or a query schema is not an object schema.
 * @example
 * ```ts
 * paths['/v1/admin/policies'] = { post: adminOperationObject(createPolicy, registry) };
 * ```
 */
export function adminOperationObject(operation: AdminOperation, registry: SchemaRegistry): JsonObject {
  const docs = operation.docs;
  if (docs === undefined) throw new TypeError(`openapi: ${operation.method} ${operation.path} has no docs`);
  const scopes = `Scopes: ${operation.scopes.join(', ')} (an x:r scope is also satisfied by x:rw).`;
  const audited = operation.audited === true ? ' Each call appends an audit event.' : '';
  const body = requestBody(operation, registry);
  const status = String(docs.status ?? 200);
  return {
    operationId: adminOperationId(operation),
    summary: docs.summary,
    description: [docs.description, `${scopes}${audited}`].filter((part) => part !== undefined).join('\n\n'),
    tags: [operation.path.split('/')[1] as string],
    security: [{ [adminSecuritySchemeName]: [...operation.scopes] }],
    'x-required-scopes': [...operation.scopes],
    'x-operation-kind': operation.kind,
    parameters: [...pathParameters(operation), ...queryParameters(operation, registry)],
    ...(body === undefined ? {} : { requestBody: body }),
    responses: { [status]: successResponse(operation, registry), ...errorResponses(operation, registry) },
  };
}

/** The document path of an operation: `/v1/admin/licenses/{licenseId}`. */
export function adminDocumentPath(operation: Pick<AdminOperation, 'path'>): string {
  return openApiPath(`${adminPathPrefix}${operation.path}`);
}
