// The OpenAPI document against the route table it describes, the checked-in file against the sources,
// and the document's structure. The route table is built the way the server builds it
// (`healthRoutes` + `createGateway(...).routes`, with payments, evidence and, where said, order mode) and
// served for real. The checked-in document is the order-mode one: a superset of the default's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createGateway,
  createNetworkRegistry,
  createSqlGatewayStores,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  gatewayMigrations,
  ManualClock,
  type Route,
} from '@tollgate/core';
import { createMemoryRateLimiter } from '@tollgate/core/storage';
import {
  buildOpenApiDocument,
  gatewayOpenApiDocument,
  gatewayOperationGroups,
  healthOperations,
  serializeOpenApiDocument,
  type EvidenceAccessMode,
  type OpenApiDocument,
} from '@tollgate/core/gateway';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { createGatewayListener, healthRoutes } from '@tollgate/gateway-server';
import { checkedInText, describedRouteKeys, documentKeys, routeKeys, structuralProblems } from './openapi-checks';

let database: TestDatabase;
const servers: Server[] = [];
const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, isLevelEnabled: () => false };

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await database.close();
});

interface Options {
  readonly payments: boolean;
  readonly evidence: EvidenceAccessMode | undefined;
  /** `GATEWAY_ORDER_MODE=on` (order mode is served with payments only). */
  readonly orderMode?: boolean;
}

/** Every descriptor group the served documents choose from, `/healthz` included. */
const allGroups = (evidenceAccess: EvidenceAccessMode = 'public') => [...gatewayOperationGroups({ evidenceAccess }), healthOperations];

/** The table `startGatewayServer` serves for this configuration: `/healthz`, then the gateway's routes. */
function gatewayTable(options: Options): Route[] {
  const gateway = createGateway({
    sql: database.sql,
    stores: createSqlGatewayStores(database.sql),
    keys: deriveGatewayKeys(new Uint8Array(32).fill(7)),
    networks: createNetworkRegistry(),
    publicUrl: 'https://pay.example.com',
    clock,
    signatureVerifier: createViemWalletSignatureVerifier(),
    rateLimiter: createMemoryRateLimiter({ clock }),
    ...(options.payments ? { payments: { signer: privateKeyToAccount(generatePrivateKey()) } } : {}),
    ...(options.evidence === undefined ? {} : { evidence: { chain: () => undefined, access: options.evidence } }),
    openapi: { operations: [healthOperations] },
    ...(options.orderMode === true ? { orderMode: true } : {}),
  });
  const ping = async () => (await database.sql.query('SELECT 1 AS one', [])).rows.length === 1;
  return [...healthRoutes({ database: { ping, engine: 'pglite' } }), ...gateway.routes];
}

/** Serves `routes` on a real listening server and fetches its document. */
async function servedDocument(routes: Route[]): Promise<{ response: Response; document: OpenApiDocument }> {
  const server = createServer(createGatewayListener(routes, silent));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`);
  return { response, document: (await response.clone().json()) as OpenApiDocument };
}

describe('the OpenAPI document and the route table', () => {
  it('documents every route of the full gateway in order mode and nothing else (OPTIONS preflights aside)', async () => {
    const routes = gatewayTable({ payments: true, evidence: 'public', orderMode: true });
    const { document } = await servedDocument(routes);
    expect(documentKeys(document)).toEqual(describedRouteKeys(routes, allGroups()));
    // Order mode, refund receipts and the pay page are all there; the pay page's two content-named files are one operation.
    for (const key of ['POST /order', 'POST /order/{orderId}/refund/{refundId}/reject', 'POST /refund-receipt/rejected', 'POST /verify-refund-receipt', 'GET /pay/{refId}']) {
      expect(documentKeys(document), key).toContain(key);
    }
    const assetRoutes = routes.filter((route) => route.path.startsWith('/pay/assets/'));
    expect(assetRoutes.map((route) => route.path)).toEqual([expect.stringMatching(/^\/pay\/assets\/pay-[0-9a-f]{16}\.js$/), expect.stringMatching(/^\/pay\/assets\/pay-[0-9a-f]{16}\.css$/)]);
    expect(describedRouteKeys(assetRoutes, allGroups())).toEqual(['GET /pay/assets/{file}']);
    // A route no descriptor serves keeps its own key, so the comparison above would show it.
    expect(describedRouteKeys([{ method: 'GET', path: '/undescribed' }, ...assetRoutes], allGroups())).toEqual(['GET /pay/assets/{file}', 'GET /undescribed']);
  });

  it('serves, in order mode, exactly the checked-in document', async () => {
    const { response, document } = await servedDocument(gatewayTable({ payments: true, evidence: 'public', orderMode: true }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await response.text()).toBe(checkedInText());
    expect(document.openapi).toBe('3.1.0');
  });

  it('serves, for the default configuration (order mode off), the checked-in document without the order-mode groups', async () => {
    const routes = gatewayTable({ payments: true, evidence: 'public' });
    const { response, document } = await servedDocument(routes);
    expect(documentKeys(document)).toEqual(describedRouteKeys(routes, allGroups()));
    const unconditional = allGroups().filter((group) => group.servedOnlyIn === undefined);
    expect(await response.text()).toBe(serializeOpenApiDocument(buildOpenApiDocument(unconditional)));
    // Everything it lists is listed the same way in the checked-in document.
    const checkedIn = JSON.parse(checkedInText()) as OpenApiDocument;
    expect(document.tags).toEqual(checkedIn.tags.filter((tag) => !['order', 'refund'].includes(tag.name)));
    for (const [path, item] of Object.entries(document.paths)) for (const [method, operation] of Object.entries(item)) expect(operation, `${method} ${path}`).toEqual(checkedIn.paths[path]?.[method]);
    for (const [name, schema] of Object.entries(document.components.schemas)) expect(schema, name).toEqual(checkedIn.components.schemas[name]);
    expect(Object.keys(document.components.schemas)).not.toContain('Order');
    expect(Object.keys(document.components.schemas)).not.toContain('RefundIntent');
    expect(checkedIn.info.description.startsWith(document.info.description)).toBe(true);
    expect(document.info.description).not.toContain('order mode');
  });

  it('lists only what a gateway without payments or evidence serves', async () => {
    // Order mode needs payments: asking for it here serves no order route.
    const routes = gatewayTable({ payments: false, evidence: undefined, orderMode: true });
    const { document } = await servedDocument(routes);
    expect(documentKeys(document)).toEqual(routeKeys(routes));
    expect(document.paths['/order']).toBeUndefined();
    expect(document.paths['/pay/{refId}']).toBeUndefined();
    expect(document.paths['/receive/{payTo}']).toBeUndefined();
    expect(document.paths['/recover-settlement']).toBeUndefined();
    expect(document.paths['/tx/{txHash}']).toBeUndefined();
    // No operation takes a PAYMENT-SIGNATURE, so the scheme is not declared either.
    expect(Object.keys(document.components.securitySchemes)).toEqual(['merchantApiKey']);
    expect(structuralProblems(document)).toEqual([]);
  });

  it('puts the chain-evidence routes and recovery behind the merchant key under the merchant policy', async () => {
    const { document } = await servedDocument(gatewayTable({ payments: true, evidence: 'merchant' }));
    for (const [path, method] of [['/verify-receipt', 'post'], ['/verify-refund-receipt', 'post'], ['/tx/{txHash}', 'get'], ['/txs', 'get'], ['/recover-settlement', 'post']] as const) {
      const operation = document.paths[path]?.[method] as { security: unknown; responses: Record<string, unknown> };
      expect(operation.security, path).toEqual([{ merchantApiKey: [] }]);
      expect(Object.keys(operation.responses), path).toContain('401');
    }
    const publicOne = (await servedDocument(gatewayTable({ payments: true, evidence: 'public' }))).document.paths['/txs']?.['get'] as { security: unknown; responses: Record<string, unknown> };
    expect(publicOne.security).toEqual([]);
    expect(Object.keys(publicOne.responses)).not.toContain('401');
  });
});

describe('the checked-in document', () => {
  it('is what `npm run openapi` generates from the sources, byte for byte', () => {
    expect(checkedInText(), 'docs/openapi/gateway.json is stale: run npm run openapi').toBe(serializeOpenApiDocument(gatewayOpenApiDocument()));
  });

  it('is a structurally valid OpenAPI 3.1 document whose schemas compile as JSON Schema 2020-12', () => {
    const document = JSON.parse(checkedInText()) as OpenApiDocument;
    expect(structuralProblems(document)).toEqual([]);
    // The structural checks themselves catch a broken document.
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, { parameters?: unknown[]; responses: Record<string, unknown> }>> };
    delete broken.paths['/ref/{refId}']?.['get']?.parameters;
    (broken.paths['/ref']!['post']!.responses['201'] as { content: unknown }).content = { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } };
    expect(structuralProblems(broken as unknown as OpenApiDocument)).toEqual(
      expect.arrayContaining(['GET /ref/{refId}: path parameter refId not declared as required', 'unresolved $ref #/components/schemas/Nope']),
    );
  });

  it('answers every error code an operation lists with the status of the gateway table', () => {
    const document = JSON.parse(checkedInText()) as OpenApiDocument;
    const notFound = document.paths['/ref/{refId}']?.['get'] as { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    expect(notFound.responses['404']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/NotFoundError' });
    expect(notFound.responses['429']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/RateLimitedError' });
    const receive = document.paths['/receive/{payTo}']?.['get'] as { responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }> };
    expect(receive.responses['410']?.content?.['application/json']?.schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/RefExpiredError' }, { $ref: '#/components/schemas/RefRevokedError' }, { $ref: '#/components/schemas/PaytoRevokedError' }],
    });
    expect(Object.keys(receive.responses['402']?.headers ?? {})).toEqual(['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE']);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['merchantApiKey', 'paymentSignature']);
  });

  it('refuses descriptors that contradict their route', () => {
    const [merchant] = gatewayOperationGroups({ evidenceAccess: 'public' });
    const retire = merchant!.operations.find((operation) => operation.path === '/payto/:payTo/revoke')!;
    expect(() => buildOpenApiDocument([{ ...merchant!, operations: [{ ...retire, pathParams: {} }] }])).toThrow(/path params payTo/);
    expect(() => buildOpenApiDocument([{ ...merchant!, operations: [retire, { ...retire, operationId: 'other' }] }])).toThrow(/described twice/);
    expect(() => buildOpenApiDocument([{ ...merchant!, operations: [{ ...retire, responses: { ...retire.responses, 404: { description: 'x', codes: ['ref_expired'] } } }] }])).toThrow(
      /codes that are not its errors/,
    );
  });
});
