// Helpers of the OpenAPI tests: the checked-in document, structural checks of an OpenAPI 3.1 document,
// and a JSON Schema (draft 2020-12, ajv) validator of real requests and responses against it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { Route } from '@tollgate/core';
import { operationServes, type OpenApiDocument, type OperationGroup } from '@tollgate/core/gateway';

/** Where `npm run openapi` writes the document. */
export const checkedInPath = fileURLToPath(new URL('../../../../docs/openapi/gateway.json', import.meta.url));

/** The checked-in text. */
export function checkedInText(): string {
  return readFileSync(checkedInPath, 'utf8');
}

type Json = { [key: string]: unknown };
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `GET /ref/:refId` → `GET /ref/{refId}`: how the route table and the document name an operation. */
export function operationKey(method: string, routePath: string): string {
  return `${method.toUpperCase()} ${routePath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`;
}

/** The operations of a route table, OPTIONS preflight routes left out (HEAD is served by GET). */
export function routeKeys(routes: readonly Pick<Route, 'method' | 'path'>[]): string[] {
  return routes.filter((route) => route.method !== 'OPTIONS' && route.method !== 'HEAD').map((route) => operationKey(route.method, route.path)).sort();
}

/**
 * The operations a route table serves as the descriptors name them: each route (OPTIONS and HEAD left
 * out) becomes the key of the one operation that serves it (`operationServes`: the pay page's
 * content-named files become `GET /pay/assets/{file}`); a route no operation serves keeps its own key,
 * so a comparison with the document shows it.
 *
 * @throws Error when two operations claim one route.
 */
export function describedRouteKeys(routes: readonly Pick<Route, 'method' | 'path'>[], groups: readonly OperationGroup[]): string[] {
  const operations = groups.flatMap((group) => group.operations);
  const keys = routes
    .filter((route) => route.method !== 'OPTIONS' && route.method !== 'HEAD')
    .map((route) => {
      const serving = operations.filter((operation) => operationServes(operation, route));
      if (serving.length > 1) throw new Error(`${route.method} ${route.path} is claimed by ${serving.map((operation) => operation.operationId).join(', ')}`);
      const [operation] = serving;
      return operation === undefined ? operationKey(route.method, route.path) : operationKey(operation.method, operation.path);
    });
  return [...new Set(keys)].sort();
}

/** The operations of a document. */
export function documentKeys(document: OpenApiDocument): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

/** Resolves a local `$ref` (`#/components/schemas/X`) in the document. */
function resolve(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) node = isObject(node) ? node[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  return node;
}

function* refsIn(value: unknown): Generator<string> {
  if (Array.isArray(value)) for (const item of value) yield* refsIn(item);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') yield child;
      else yield* refsIn(child);
    }
  }
}

/**
 * What makes `document` not a structurally valid OpenAPI 3.1 document (empty when it is one): the
 * required top-level fields, path templates whose parameters are all declared, unique operationIds,
 * described responses, declared tags and security schemes, resolvable `$ref`s, and component schemas that
 * compile as JSON Schema 2020-12 (ajv, strict).
 */
export function structuralProblems(document: OpenApiDocument): string[] {
  const problems: string[] = [];
  const doc = document as unknown as Json;
  if (doc['openapi'] !== '3.1.0') problems.push('openapi is not 3.1.0');
  const info = doc['info'];
  if (!isObject(info) || typeof info['title'] !== 'string' || typeof info['version'] !== 'string') problems.push('info needs title and version');
  if (!isObject(doc['paths'])) problems.push('paths is not an object');
  const components = doc['components'];
  if (!isObject(components) || !isObject(components['schemas']) || !isObject(components['securitySchemes'])) problems.push('components needs schemas and securitySchemes');
  const tags = new Set(document.tags.map((tag) => tag.name));
  const schemes = new Set(Object.keys(document.components.securitySchemes));
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!methods.includes(method)) problems.push(`${where}: not an HTTP method`);
      const id = operation['operationId'];
      if (typeof id !== 'string' || operationIds.has(id)) problems.push(`${where}: missing or repeated operationId`);
      operationIds.add(String(id));
      const parameters = (operation['parameters'] ?? []) as Json[];
      const inPath = parameters.filter((parameter) => parameter['in'] === 'path');
      for (const name of templated) {
        if (!inPath.some((parameter) => parameter['name'] === name && parameter['required'] === true)) problems.push(`${where}: path parameter ${name} not declared as required`);
      }
      if (inPath.length !== templated.length) problems.push(`${where}: path parameters do not match the template`);
      for (const parameter of parameters) if (!isObject(parameter['schema'])) problems.push(`${where}: parameter ${String(parameter['name'])} has no schema`);
      for (const tag of (operation['tags'] ?? []) as string[]) if (!tags.has(tag)) problems.push(`${where}: undeclared tag ${tag}`);
      for (const requirement of (operation['security'] ?? []) as Json[]) {
        for (const scheme of Object.keys(requirement)) if (!schemes.has(scheme)) problems.push(`${where}: undeclared security scheme ${scheme}`);
      }
      const responses = operation['responses'];
      if (!isObject(responses) || Object.keys(responses).length === 0) problems.push(`${where}: no responses`);
      for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
        if (!/^(default|[1-5][0-9]{2})$/.test(status)) problems.push(`${where}: response key ${status}`);
        if (!isObject(response) || typeof response['description'] !== 'string') problems.push(`${where} ${status}: response without description`);
      }
    }
  }
  for (const ref of new Set(refsIn(document))) if (resolve(doc, ref) === undefined) problems.push(`unresolved $ref ${ref}`);
  try {
    createAjv(document);
  } catch (error) {
    problems.push(`component schemas do not compile: ${(error as Error).message}`);
  }
  return problems;
}

const base = 'https://tollgate.invalid/openapi.json';

/**
 * A closed copy of a schema: every object schema with `properties` and no `additionalProperties` refuses
 * other properties. The document leaves responses open (clients ignore unknown fields); the tests close
 * them, so a field the gateway sends without documenting it fails them.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!isObject(schema)) return schema;
  const result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) result[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, closed(child)]));
    else if (['items', 'additionalProperties', 'contentSchema', 'propertyNames', 'not'].includes(key)) result[key] = closed(value);
    else if (['anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(key) && Array.isArray(value)) result[key] = value.map(closed);
    else if (key === '$ref' && typeof value === 'string') result[key] = value.replace('#/components/schemas/', `${base}#/$defs/`);
    else result[key] = value;
  }
  if (isObject(result['properties']) && !('additionalProperties' in result)) result['additionalProperties'] = false;
  return result;
}

function createAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true });
  const defs = Object.fromEntries(Object.entries(document.components.schemas).map(([name, schema]) => [name, closed(schema)]));
  ajv.addSchema({ $id: base, $defs: defs });
  for (const name of Object.keys(defs)) ajv.getSchema(`${base}#/$defs/${name}`);
  return ajv;
}

/** A response as the tests saw it. */
export interface SeenResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A request as the tests sent it. */
export interface SentRequest {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** Validates real requests and responses against a document (closed objects, see above). */
export class DocumentValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = createAjv(document);
  }

  private validate(schema: unknown, value: unknown, where: string): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(closed(schema) as Json);
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${where}${error.instancePath} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }

  private operation(method: string, routePath: string): Json {
    const key = operationKey(method, routePath);
    const [verb, path] = key.split(' ') as [string, string];
    const operation = this.document.paths[path]?.[verb.toLowerCase()];
    if (operation === undefined) throw new Error(`${key} is not in the document`);
    return operation;
  }

  /** Problems of a request: its body against the request body schema, its query against the parameters. */
  request(method: string, routePath: string, request: SentRequest): string[] {
    const operation = this.operation(method, routePath);
    const problems: string[] = [];
    if (request.body !== undefined) {
      const schema = ((operation['requestBody'] as Json | undefined)?.['content'] as Json | undefined)?.['application/json'] as Json | undefined;
      problems.push(...(schema === undefined ? ['no request body documented'] : this.validate(schema['schema'], request.body, 'request body')));
    }
    const parameters = ((operation['parameters'] ?? []) as Json[]).filter((parameter) => parameter['in'] === 'query');
    for (const [name, value] of Object.entries(request.query ?? {})) {
      const parameter = parameters.find((candidate) => candidate['name'] === name);
      problems.push(...(parameter === undefined ? [`query ${name} is not documented`] : this.validate(parameter['schema'], value, `query ${name}`)));
    }
    for (const parameter of parameters) if (parameter['required'] === true && request.query?.[String(parameter['name'])] === undefined) problems.push(`query ${String(parameter['name'])} is required`);
    return problems;
  }

  /** Problems of a response: documented status, JSON body against its schema, documented headers. */
  response(method: string, routePath: string, response: SeenResponse): string[] {
    const responses = this.operation(method, routePath)['responses'] as Json;
    // As in OpenAPI, `default` stands for every error status the operation does not list.
    const documented = (responses[String(response.status)] ?? (response.status >= 400 ? responses['default'] : undefined)) as Json | undefined;
    if (documented === undefined) return [`status ${response.status} is not documented`];
    const problems: string[] = [];
    const contents = (documented['content'] ?? {}) as Record<string, Json>;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const content = contents['application/json'];
    if (content !== undefined) {
      if (mediaType !== 'application/json') problems.push(`content-type ${response.headers.get('content-type')}`);
      else problems.push(...this.validate(content['schema'], JSON.parse(response.text), 'body'));
    } else if (Object.keys(contents).length > 0) {
      // A text body (the pay page's HTML, its script and stylesheet): its media type must be documented.
      const text = contents[mediaType];
      if (text === undefined) problems.push(`content-type ${response.headers.get('content-type')} is not one of ${Object.keys(contents).join(', ')}`);
      else problems.push(...this.validate(text['schema'], response.text, 'body'));
    } else if (response.text !== '') problems.push('a body where none is documented');
    for (const [name, header] of Object.entries((documented['headers'] ?? {}) as Record<string, Json>)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header['required'] === true) problems.push(`header ${name} is missing`);
        continue;
      }
      const schema = header['schema'] as Json;
      if (schema['contentSchema'] !== undefined) {
        const decoded: unknown = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
        problems.push(...this.validate(schema['contentSchema'], decoded, `header ${name}`));
      } else problems.push(...this.validate(schema, value, `header ${name}`));
    }
    return problems;
  }
}
