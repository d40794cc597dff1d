import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { adminOperation } from '../admin-operation';
import { buildAdminOpenApiDocument } from './admin-openapi-document';
import { adminOperationCatalog } from './admin-operation-catalog';

type Parameter = { name: string; in: string; required: boolean };
type Operation = { parameters: Parameter[]; requestBody?: { required: boolean; content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
const run = async () => ({ body: {} });
const body = v.strictObject({ name: v.pipe(v.string(), v.maxLength(10)) });

describe('buildAdminOpenApiDocument', () => {
  const document = buildAdminOpenApiDocument([
    adminOperation({ method: 'GET', path: '/things', scopes: ['audit:r'], kind: 'read', docs: { summary: 'List.', query: v.object({ kind: v.optional(v.picklist(['a', 'b'])) }), paged: true }, run }),
    adminOperation({ method: 'POST', path: '/things', scopes: ['catalog:rw'], kind: 'mutation', docs: { summary: 'Create.', body, status: 201, errors: ['catalog_item_exists'] }, run }),
    adminOperation({ method: 'POST', path: '/things/:thingId/revoke', scopes: ['revoke'], kind: 'destructive', maxBodyBytes: 4096, docs: { summary: 'Revoke.', errors: ['already_revoked'] }, run }),
    adminOperation({ method: 'POST', path: '/things/:thingId/sign', scopes: ['sign:manifest'], kind: 'read', bodyFormat: 'raw', maxBodyBytes: 100, docs: { summary: 'Sign.' }, run }),
  ]);
  const operation = (path: string, method: string) => document.paths[path]?.[method] as unknown as Operation;

  it('adds the parameters of the kind: query schema, paging, Idempotency-Key, dry_run, path params', () => {
    const names = (op: Operation) => op.parameters.map((parameter) => `${parameter.in}:${parameter.name}:${parameter.required}`);
    expect(names(operation('/v1/admin/things', 'get'))).toEqual(['query:kind:false', 'query:limit:false', 'query:cursor:false']);
    expect(names(operation('/v1/admin/things', 'post'))).toEqual(['header:Idempotency-Key:true']);
    expect(names(operation('/v1/admin/things/{thingId}/revoke', 'post'))).toEqual(['path:thingId:true', 'query:dry_run:false', 'header:Idempotency-Key:false']);
  });

  it('states JSON bodies by schema, raw bodies by media type, and errors by status with their codes', () => {
    const create = operation('/v1/admin/things', 'post');
    expect(create.requestBody?.required).toBe(true);
    expect(create.requestBody?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/PostThingsRequest' });
    expect(document.components.schemas['PostThingsRequest']).toMatchObject({ type: 'object', properties: { name: { type: 'string', maxLength: 10 } }, additionalProperties: false });
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '408', '409', '413', 'default']);
    expect(create.responses['409']?.content?.['application/json']?.schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/CatalogItemExistsError' }, { $ref: '#/components/schemas/IdempotencyConflictError' }],
    });
    const sign = operation('/v1/admin/things/{thingId}/sign', 'post');
    expect(Object.keys(sign.requestBody?.content ?? {})).toEqual(['application/octet-stream']);
    expect(Object.keys(sign.responses)).toContain('415');
    expect(document.components.schemas['NotFoundError']).toMatchObject({ properties: { ok: { const: false } } });
  });

  it('documents every operation of the catalog, each once', () => {
    const catalog = adminOperationCatalog();
    const documented = buildAdminOpenApiDocument(catalog);
    const count = Object.values(documented.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    expect(count).toBe(catalog.length + 1);
    expect(() => buildAdminOpenApiDocument([...catalog, catalog[0]!])).toThrow(/described twice/);
  });
});
