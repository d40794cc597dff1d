import type { JsonSchema } from '@valibot/to-json-schema';
import { gatewayErrorCodes, type GatewayErrorCode } from '../../errors/gateway';
import type { HeaderDescriptor, NamedSchema, OperationDescriptor, OperationSecurity, ResponseDescriptor } from '../../openapi/descriptors';
import type { JsonObject } from '../../openapi/operation-object';
import type { SchemaRegistry } from '../../openapi/schema-registry';
import { gatewayErrorOf, gatewayErrorSchema } from './schemas/common';

/** Names of the security schemes in `components.securitySchemes`. */
export const securitySchemeNames = { bearer: 'merchantApiKey', payment: 'paymentSignature' } as const;

const securityRequirements: Record<OperationSecurity, JsonObject[]> = {
  public: [],
  bearer: [{ [securitySchemeNames.bearer]: [] }],
  // `{}` first: the operation is also open without credentials.
  'optional-bearer': [{}, { [securitySchemeNames.bearer]: [] }],
  payment: [{}, { [securitySchemeNames.payment]: [] }],
};

// Statuses whose answers may carry Retry-After (renderGatewayError adds it whenever the error says when).
const retryStatuses = new Set([202, 408, 429, 503]);

/**
 * Every error code an operation can answer: its own, and what the engine and middleware add to a route of
 * its shape (`invalid_request` for a malformed request, `unauthorized` behind bearer auth, `rate_limited`
 * behind a rate limit, the body refusals with a body).
 *
 * @param operation - The descriptor.
 * @returns The codes, without repeats.
 */
export function operationErrorCodes(operation: OperationDescriptor): GatewayErrorCode[] {
  const codes: GatewayErrorCode[] = [...operation.errors, 'invalid_request'];
  if (operation.security === 'bearer' || operation.security === 'optional-bearer') codes.push('unauthorized');
  if (operation.rateLimited === true) codes.push('rate_limited');
  if (operation.body !== undefined) codes.push('payload_too_large', 'unsupported_media_type', 'request_timeout');
  return [...new Set(codes)];
}

/** The body of an error status: the envelope of its one code, or any of its codes' envelopes. */
function errorBody(codes: readonly GatewayErrorCode[], registry: SchemaRegistry): JsonSchema {
  const refs = codes.map((code) => registry.ref(gatewayErrorOf(code)));
  return refs.length === 1 ? (refs[0] as JsonSchema) : { anyOf: refs };
}

function headerObject(header: HeaderDescriptor, registry: SchemaRegistry): JsonObject {
  let schema: JsonSchema = { type: 'string' };
  if (header.schema !== undefined) schema = registry.inline(header.schema, 'output');
  if (header.base64Json !== undefined) {
    const decoded = header.base64Json.map((named) => registry.ref(named));
    schema = { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/json', contentSchema: decoded.length === 1 ? decoded[0] : { anyOf: decoded } } as JsonSchema;
  }
  return { description: header.description, required: header.required, schema };
}

function responseObject(status: number, response: ResponseDescriptor, registry: SchemaRegistry, codes: readonly GatewayErrorCode[]): JsonObject {
  const headers: Record<string, JsonObject> = {};
  for (const [name, header] of Object.entries(response.headers ?? {})) headers[name] = headerObject(header, registry);
  if (retryStatuses.has(status) && codes.length > 0 && headers['Retry-After'] === undefined) {
    headers['Retry-After'] = { description: 'Seconds to wait before asking again, when the gateway knows.', required: false, schema: { type: 'string', pattern: '^[0-9]+$' } };
  }
  if (codes.includes('unauthorized')) {
    headers['WWW-Authenticate'] = { description: 'Bearer realm="tollgate-gateway" when the API key is missing, malformed, unknown or revoked.', required: false, schema: { type: 'string' } };
  }
  return {
    description: response.description,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...responseContent(response, registry, codes),
  };
}

/** The JSON body (its schema, any of its schemas, or the error envelopes of its codes), or the text media types. */
function responseContent(response: ResponseDescriptor, registry: SchemaRegistry, codes: readonly GatewayErrorCode[]): { content?: JsonObject } {
  if (response.text !== undefined) return { content: Object.fromEntries(response.text.map((mediaType) => [mediaType, { schema: { type: 'string' } }])) };
  let body: JsonSchema | undefined;
  if (response.body !== undefined) {
    const refs = (Array.isArray(response.body) ? response.body : [response.body]).map((named: NamedSchema) => registry.ref(named));
    body = refs.length === 1 ? refs[0] : { anyOf: refs };
  } else if (codes.length > 0) body = errorBody(codes, registry);
  return body === undefined ? {} : { content: { 'application/json': { schema: body } } };
}

function responses(operation: OperationDescriptor, registry: SchemaRegistry): JsonObject {
  const where = `${operation.method} ${operation.path}`;
  const codes = operationErrorCodes(operation);
  const byStatus = new Map<number, GatewayErrorCode[]>();
  for (const code of codes) byStatus.set(gatewayErrorCodes[code].status, [...(byStatus.get(gatewayErrorCodes[code].status) ?? []), code]);
  const result: JsonObject = {};
  const statuses = new Set([...Object.keys(operation.responses).map(Number), ...byStatus.keys()]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const statusCodes = byStatus.get(status) ?? [];
    const own: ResponseDescriptor = operation.responses[status] ?? { description: `${statusCodes.join(' or ')} (gateway error envelope).`, codes: statusCodes };
    if (own.text !== undefined && (own.body !== undefined || statusCodes.length > 0)) {
      throw new TypeError(`openapi: ${where} response ${status} has a text body and a JSON body (or error codes) at once`);
    }
    const unlisted = (own.codes ?? []).filter((code) => !statusCodes.includes(code));
    if (unlisted.length > 0) throw new TypeError(`openapi: ${where} response ${status} stands for codes that are not its errors of that status: ${unlisted.join(', ')}`);
    const uncovered = statusCodes.filter((code) => !(own.codes ?? []).includes(code));
    if (uncovered.length > 0) throw new TypeError(`openapi: ${where} documents ${status} itself without its codes ${uncovered.join(', ')}`);
    result[String(status)] = responseObject(status, own, registry, statusCodes);
  }
  result['default'] = {
    description: 'Any other gateway error (internal_error, method_not_allowed, …) in the gateway envelope.',
    content: { 'application/json': { schema: registry.ref(gatewayErrorSchema) } },
  };
  return result;
}

function parameters(operation: OperationDescriptor, registry: SchemaRegistry): { list: JsonObject[]; queryNote: string | undefined } {
  const where = `${operation.method} ${operation.path}`;
  const names = [...operation.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] as string);
  const declared = Object.keys(operation.pathParams ?? {});
  if (names.length !== declared.length || names.some((name) => !declared.includes(name))) {
    throw new TypeError(`openapi: ${where} path params ${names.join(', ') || '(none)'} do not match the described ${declared.join(', ') || '(none)'}`);
  }
  const list: JsonObject[] = names.map((name) => {
    const param = operation.pathParams?.[name];
    return { name, in: 'path', required: true, description: param?.description, schema: param === undefined ? {} : registry.inline(param.schema, 'input') };
  });
  if (operation.query === undefined) return { list, queryNote: undefined };
  const query = registry.inline(operation.query, 'input');
  if (query.type !== 'object' || query.properties === undefined) throw new TypeError(`openapi: ${where} query schema is not an object schema`);
  const required = query.required ?? [];
  for (const [name, schema] of Object.entries(query.properties)) {
    const description = typeof schema === 'object' ? schema.description : undefined;
    list.push({ name, in: 'query', required: required.includes(name), ...(description === undefined ? {} : { description }), schema });
  }
  const notes = [query.description, query.additionalProperties === false ? 'Unknown query parameters are refused.' : undefined].filter((note) => note !== undefined);
  return { list, queryNote: notes.length === 0 ? undefined : `Query: ${notes.join(' ')}` };
}

/**
 * The OpenAPI Operation Object of a descriptor, with every schema converted through `registry` (which
 * must already know every named schema of the document).
 *
 * @param operation - The descriptor.
 * @param tag - Its group's tag.
 * @param registry - The document's schemas.
 * @returns The Operation Object.
 * @throws TypeError when the descriptor contradicts itself (path params, error statuses).
 * @example
 * ```ts
 * // Internal to buildOpenApiDocument, which registers every named schema first:
 * paths['/ref/{refId}'] = { get: operationObject(getRefDescriptor, 'ref', registry) };
 * ```
 */
export function operationObject(operation: OperationDescriptor, tag: string, registry: SchemaRegistry): JsonObject {
  const { list, queryNote } = parameters(operation, registry);
  const description = [operation.description, queryNote].filter((part) => part !== undefined).join('\n\n');
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(description === '' ? {} : { description }),
    tags: [tag],
    security: securityRequirements[operation.security],
    ...(list.length === 0 ? {} : { parameters: list }),
    ...(operation.body === undefined
      ? {}
      : {
          requestBody: {
            required: operation.body.optional !== true,
            description: `JSON (application/json), at most ${operation.body.maxBytes} bytes; duplicate keys are refused.${operation.body.optional === true ? ' It may be empty.' : ''}`,
            content: { 'application/json': { schema: registry.ref(operation.body.schema) } },
          },
        }),
    responses: responses(operation, registry),
  };
}
