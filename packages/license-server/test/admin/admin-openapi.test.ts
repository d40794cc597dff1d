/**
 * The Admin API's OpenAPI document (GET /v1/admin/openapi.json, docs/openapi/license-admin.json): it is
 * generated from the operations the server routes, the checked-in copy is current, and its request
 * schemas accept what the server accepts (and refuse what it refuses).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminDocumentPath, adminOpenApiText, adminOperation, adminOperationCatalog, buildAdminOpenApiDocument, type AdminOperation, type AdminOpenApiDocument as OpenApiDocument } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { proYearlyPolicyBody } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

const checkedIn = join(__dirname, '../../../../docs/openapi/license-admin.json');
const title = (operation: Pick<AdminOperation, 'method' | 'path'>) => `${operation.method} ${operation.path}`;

type OperationObject = { operationId: string; security: Record<string, string[]>[]; 'x-required-scopes': string[]; parameters: { name: string; in: string; required: boolean }[]; requestBody?: { content: Record<string, { schema: { $ref?: string } }> } };
const operationOf = (document: OpenApiDocument, operation: Pick<AdminOperation, 'method' | 'path'>) => document.paths[adminDocumentPath(operation)]?.[operation.method.toLowerCase()] as OperationObject | undefined;

/** A validator of the JSON request body `operation` documents, resolving `$ref`s in the document's components. */
function requestValidator(document: OpenApiDocument, operation: Pick<AdminOperation, 'method' | 'path'>) {
  const ref = operationOf(document, operation)?.requestBody?.content['application/json']?.schema.$ref;
  if (ref === undefined) throw new Error(`${title(operation)} documents no JSON request schema`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
  return ajv.compile({ $ref: `doc${ref}` });
}

describe('Admin OpenAPI document (generated)', () => {
  it('is checked in as npm run openapi writes it', () => {
    const generated = adminOpenApiText(adminOperationCatalog());
    expect(readFileSync(checkedIn, 'utf8'), 'docs/openapi/license-admin.json is stale: run npm run openapi').toBe(generated);
  });

  it('refuses an operation without docs, and does not depend on the order of operations', () => {
    const undocumented = adminOperation({ method: 'GET', path: '/things', scopes: ['audit:r'], kind: 'read', run: async () => ({ body: {} }) });
    expect(() => buildAdminOpenApiDocument([undocumented])).toThrow(/GET \/things has no docs/);
    const operations = adminOperationCatalog();
    expect(adminOpenApiText([...operations].reverse())).toBe(adminOpenApiText(operations));
  });
});

const engine = serverEngines[0]!;
describe(`Admin OpenAPI document served by the license server [${engine.name}]`, () => {
  let bench: AdminHarness;
  let operations: readonly AdminOperation[];
  let document: OpenApiDocument;
  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    operations = bench.server.context.admin.operations;
    document = buildAdminOpenApiDocument(operations);
  }, 60_000);
  afterAll(() => bench?.close());

  it('documents every Admin operation of the server with its method, scopes, idempotency key and dry run', () => {
    expect(operations.map(title).sort()).toEqual(adminOperationCatalog().map(title).sort());
    for (const operation of operations) {
      expect(operation.docs?.summary, `${title(operation)} has no docs`).toBeTruthy();
      const documented = operationOf(document, operation);
      expect(documented, title(operation)).toBeDefined();
      expect(documented?.['x-required-scopes'], title(operation)).toEqual(operation.scopes);
      expect(documented?.security, title(operation)).toEqual([{ adminToken: operation.scopes }]);
      const header = documented?.parameters.find((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
      expect(header?.required, title(operation)).toBe(operation.kind === 'read' ? undefined : operation.kind === 'mutation');
      expect(documented?.parameters.some((parameter) => parameter.name === 'dry_run'), title(operation)).toBe(operation.kind === 'destructive');
      if (operation.bodyFormat === 'raw') expect(Object.keys(documented?.requestBody?.content ?? {}), title(operation)).toEqual(operation.rawContentTypes ?? ['application/octet-stream']);
    }
    const count = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    expect(count).toBe(operations.length + 1);
  });

  it('serves the generated document without a token, cacheable, equal to the checked-in file', async () => {
    const response = await fetch(`${bench.url}/v1/admin/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const text = await response.text();
    expect(text).toBe(adminOpenApiText(operations));
    expect(text).toBe(readFileSync(checkedIn, 'utf8'));
    expect(text).not.toMatch(/tgla_[A-Za-z0-9]/);
    // Every other Admin answer keeps no-store, and a token is still needed elsewhere.
    const other = await fetch(`${bench.url}/v1/admin/policies`);
    expect(other.status).toBe(401);
    expect(other.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts the request bodies the server accepts, and refuses those it refuses', async () => {
    const product = bench.vendorA.productId;
    const tierBody = (id: string) => ({ product_id: product, id, name: id });
    const createTier = requestValidator(document, { method: 'POST', path: '/catalog/tiers' });
    for (const id of ['free', 'pro']) {
      expect(createTier(tierBody(id)), JSON.stringify(createTier.errors)).toBe(true);
      expect((await bench.call('POST', '/catalog/tiers', { body: tierBody(id), key: freshKey() })).status).toBe(201);
    }
    // The body admin-policies.test.ts creates policies with.
    const policy = proYearlyPolicyBody(product);
    const createPolicy = requestValidator(document, { method: 'POST', path: '/policies' });
    expect(createPolicy(policy), JSON.stringify(createPolicy.errors)).toBe(true);
    const created = await bench.call('POST', '/policies', { body: policy, key: freshKey() });
    expect(created.status).toBe(201);
    for (const refused of [{ ...policy, seats: 'three' }, { ...policy, unknown_field: 1 }, { ...policy, expiry_behavior: 'explode' }]) {
      expect(createPolicy(refused), JSON.stringify(refused)).toBe(false);
      expect((await bench.call('POST', '/policies', { body: refused, key: freshKey() })).status, JSON.stringify(refused)).toBe(400);
    }
    // The body admin-licenses.test.ts issues licenses with.
    const issue = { policy_id: created.body.policy.id, count: 3, metadata: { crm: 'acct-7' } };
    const issueLicenses = requestValidator(document, { method: 'POST', path: '/licenses' });
    expect(issueLicenses(issue), JSON.stringify(issueLicenses.errors)).toBe(true);
    expect((await bench.call('POST', '/licenses', { body: issue, key: freshKey() })).status).toBe(201);
    expect(issueLicenses({ ...issue, count: 0 })).toBe(false);
    expect((await bench.call('POST', '/licenses', { body: { ...issue, count: 0 }, key: freshKey() })).status).toBe(400);
  });
});
