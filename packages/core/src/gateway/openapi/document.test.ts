import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { gatewayErrorCodes } from '../../errors/gateway';
import { renderGatewayError } from '../../errors/render';
import { defineRoutes, route } from '../../http/routes';
import { toFetchHandler } from '../../http/fetch-adapter';
import type { Route } from '../../http/types';
import { openApiRoutes } from '../routes/openapi-routes';
import { payPageAssets } from '../pay-page/pay-assets';
import { named, operationServes, type OperationGroup } from '../../openapi/descriptors';
import { serializeOpenApiDocument } from '../../openapi/document';
import { buildOpenApiDocument } from './document';
import { gatewayOpenApiDocument, gatewayOperationGroups, servedOperationGroups } from './gateway-operations';
import { healthOperations } from './operations/health-operations';
import { payPageOperations } from './operations/pay-page-operations';
import { refOperations } from './operations/ref-operations';

type Operation = { security: unknown; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }> };
const operationOf = (document: ReturnType<typeof buildOpenApiDocument>, path: string, method: string) => document.paths[path]?.[method] as unknown as Operation;

describe('buildOpenApiDocument', () => {
  it('is deterministic', () => {
    expect(serializeOpenApiDocument(gatewayOpenApiDocument())).toBe(serializeOpenApiDocument(gatewayOpenApiDocument()));
  });

  it('answers each listed code, and what the route shape implies, with the status of the gateway table', () => {
    const document = gatewayOpenApiDocument();
    for (const group of [...gatewayOperationGroups({ evidenceAccess: 'public' }), healthOperations]) {
      for (const operation of group.operations) {
        const responses = operationOf(document, operation.path.replace(/:(\w+)/g, '{$1}'), operation.method.toLowerCase()).responses;
        for (const code of operation.errors) expect(Object.keys(responses), `${operation.operationId} ${code}`).toContain(String(gatewayErrorCodes[code].status));
        expect(Object.keys(responses)).toContain('default');
        expect(Object.keys(responses)).toContain('400');
        if (operation.security === 'bearer') expect(responses['401']?.headers).toHaveProperty('WWW-Authenticate');
        if (operation.body !== undefined) expect(Object.keys(responses)).toEqual(expect.arrayContaining(['408', '413', '415']));
        if (operation.rateLimited === true) expect(responses['429']?.headers).toHaveProperty('Retry-After');
      }
    }
    expect(operationOf(document, '/ref', 'post').security).toEqual([{ merchantApiKey: [] }]);
    expect(operationOf(document, '/merchant/register', 'post').security).toEqual([{}, { merchantApiKey: [] }]);
    expect(operationOf(document, '/receive/{payTo}', 'get').security).toEqual([{}, { paymentSignature: [] }]);
    expect(operationOf(document, '/healthz', 'get').responses['503']?.headers).toBeUndefined();
  });

  it('refuses one name for two schemas, or for a request and a response', () => {
    const group = (body: ReturnType<typeof named>, response: ReturnType<typeof named>): OperationGroup => ({
      name: 'test',
      description: 'test',
      operations: [{ method: 'POST', path: '/thing', operationId: 'postThing', summary: 'x', security: 'public', body: { schema: body, maxBytes: 10 }, responses: { 200: { description: 'ok', body: response } }, errors: [] }],
    });
    const twice = group(named('In', v.string()), named('Thing', v.string()));
    const again = { ...twice.operations[0]!, path: '/other', operationId: 'postOther', responses: { 200: { description: 'ok', body: named('Thing', v.number()) } } };
    expect(() => buildOpenApiDocument([{ ...twice, operations: [...twice.operations, again] }])).toThrow(/two different schemas are named Thing/);
    const thing = named('Thing', v.string());
    expect(() => buildOpenApiDocument([group(thing, thing)])).toThrow(/both as a request and as a response/);
  });
});

describe('non-JSON answers, optional bodies, alternative bodies and conditional groups', () => {
  const document = gatewayOpenApiDocument();

  it('states text bodies by media type, never as JSON, and refuses a text body with error codes', () => {
    const page = operationOf(document, '/pay/{refId}', 'get').responses;
    for (const status of ['200', '404', '410', '429']) expect(Object.keys(page[status]?.content ?? {}), status).toEqual(['text/html']);
    expect(page['429']?.headers).toHaveProperty('Retry-After');
    expect(page['200']?.headers).toHaveProperty('Content-Security-Policy');
    expect(Object.keys(operationOf(document, '/pay/assets/{file}', 'get').responses['200']?.content ?? {})).toEqual(['text/javascript', 'text/css']);
    // Before the handler, the routing layer still answers JSON envelopes.
    expect(page['400']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/InvalidRequestError' });
    const clash: OperationGroup = {
      name: 'test',
      description: 'test',
      operations: [{ method: 'GET', path: '/page', operationId: 'page', summary: 'x', security: 'public', responses: { 404: { description: 'x', text: ['text/html'] } }, errors: ['not_found'] }],
    };
    expect(() => buildOpenApiDocument([clash])).toThrow(/text body and a JSON body/);
  });

  it('marks an optional request body as not required, and a body of alternatives as anyOf', () => {
    const reject = document.paths['/order/{orderId}/refund/{refundId}/reject']?.['post'] as { requestBody: { required: boolean } };
    expect(reject.requestBody.required).toBe(false);
    expect((document.paths['/order']?.['post'] as { requestBody: { required: boolean } }).requestBody.required).toBe(true);
    for (const path of ['/receive/{payTo}', '/recover-settlement']) {
      const settled = operationOf(document, path, path === '/receive/{payTo}' ? 'get' : 'post').responses['200'];
      const either = { anyOf: [{ $ref: '#/components/schemas/SettlementSuccess' }, { $ref: '#/components/schemas/RefundSettlementSuccess' }] };
      expect(settled?.content?.['application/json']?.schema, path).toEqual(either);
      expect((settled?.headers?.['PAYMENT-RESPONSE'] as { schema: { contentSchema: unknown } }).schema.contentSchema, path).toEqual(either);
    }
  });

  it('says which groups only order mode serves, in their tags and in info.description', () => {
    expect(document.tags.filter((tag) => tag.description.includes('Served only in order mode')).map((tag) => tag.name)).toEqual(['order', 'refund']);
    expect(document.info.description).toContain('the order and refund tags, in order mode (GATEWAY_ORDER_MODE=on)');
    const withoutOrders = buildOpenApiDocument(gatewayOperationGroups({ evidenceAccess: 'public' }).filter((group) => group.servedOnlyIn === undefined));
    expect(withoutOrders.info.description).not.toContain('order mode');
  });
});

describe('servedOperationGroups', () => {
  it('keeps the operations of served routes and drops empty groups', () => {
    const groups = servedOperationGroups(gatewayOperationGroups({ evidenceAccess: 'public' }), [
      { method: 'GET', path: '/ref/:refId' },
      { method: 'OPTIONS', path: '/receive/:payTo' },
    ]);
    expect(groups.map((group) => [group.name, group.operations.map((operation) => operation.operationId)])).toEqual([['ref', ['getRef']]]);
  });

  it('matches content-named files to the operation whose path and parameters they fit, and nothing else', () => {
    const assets = payPageOperations.operations.find((operation) => operation.operationId === 'getPayPageAsset')!;
    const { script, style } = payPageAssets();
    for (const asset of [script, style]) expect(operationServes(assets, { method: 'GET', path: asset.path }), asset.path).toBe(true);
    for (const path of ['/pay/assets/pay-0123.js', '/pay/assets/pay-0123456789abcdef.html', '/pay/assets/x/pay-0123456789abcdef.js', '/pay/assets/:file']) {
      expect(operationServes(assets, { method: 'GET', path }), path).toBe(false);
    }
    expect(operationServes(assets, { method: 'POST', path: script.path })).toBe(false);
    // An exact operation is matched by its declared path only, never by a concrete one.
    const getRef = refOperations.operations.find((operation) => operation.operationId === 'getRef')!;
    expect(operationServes(getRef, { method: 'GET', path: `/ref/${'a'.repeat(32)}` })).toBe(false);
    const groups = servedOperationGroups(gatewayOperationGroups({ evidenceAccess: 'public' }), [{ method: 'GET', path: style.path }]);
    expect(groups.map((group) => [group.name, group.operations.map((operation) => operation.operationId)])).toEqual([['pay-page', ['getPayPageAsset']]]);
  });
});

describe('GET /openapi.json', () => {
  it('serves the document of the table it is part of, public and cacheable, built once', async () => {
    const routes: Route[] = [route({ method: 'GET', path: '/ref/:refId', handler: () => ({ status: 200 }) })];
    routes.push(...openApiRoutes({ routes: () => routes, groups: gatewayOperationGroups({ evidenceAccess: 'public' }), hostGroups: [healthOperations] }));
    const fetchHandler = toFetchHandler(defineRoutes({ routes, renderError: renderGatewayError }));
    const first = await fetchHandler(new Request('https://pay.example.com/openapi.json'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const text = await first.text();
    expect(Object.keys((JSON.parse(text) as { paths: object }).paths)).toEqual(['/ref/{refId}', '/openapi.json', '/healthz']);
    expect(await (await fetchHandler(new Request('https://pay.example.com/openapi.json'))).text()).toBe(text);
    const head = await fetchHandler(new Request('https://pay.example.com/openapi.json', { method: 'HEAD' }));
    expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
  });
});
