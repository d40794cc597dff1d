import { describe, expect, expectTypeOf, it } from 'vitest';
import { renderGatewayError } from '../errors';
import { defineRoutes, handleHttp, route, toFetchHandler, type HttpRequest, type RouteTable } from './index';

type Envelope = Record<string, unknown> & { error: { code: string; message: string; details: Record<string, unknown> } };

const echo = (name: string) => (req: HttpRequest) => ({ status: 200, body: { route: name, params: { ...req.params }, query: { ...req.query } } });

const table = defineRoutes({
  renderError: renderGatewayError,
  routes: [
    route({ method: 'GET', path: '/ref/:refId', handler: echo('get-ref') }),
    route({ method: 'DELETE', path: '/ref/:id', handler: echo('delete-ref') }),
    route({ method: 'GET', path: '/refs/:refId/receipts/:receiptId', handler: echo('receipt') }),
    route({ method: 'GET', path: '/refs/:refId', handler: echo('refs-param') }),
    route({ method: 'GET', path: '/refs/export', handler: echo('refs-export') }),
    route({ method: 'POST', path: '/refs/export', handler: echo('refs-export-post') }),
    route({ method: 'GET', path: '/', handler: echo('root') }),
  ],
});
const fetchHandler = toFetchHandler(table);

async function call(path: string, method = 'GET') {
  const response = await fetchHandler(new Request(`http://gateway.test${path}`, { method }));
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as Envelope) : undefined };
}

describe('router', () => {
  it('extracts and percent-decodes params, keeping an encoded slash inside one param', async () => {
    const { status, json } = await call('/ref/a%20b%2Fc%C3%A9');
    expect(status).toBe(200);
    expect(json).toEqual({ route: 'get-ref', params: { refId: 'a b/cé' }, query: {} });
    expect((await call('/refs/r1/receipts/x9')).json?.params).toEqual({ refId: 'r1', receiptId: 'x9' });
    expect((await call('/')).json?.route).toBe('root');
  });

  it('names params per route when two methods share a path shape', async () => {
    expect((await call('/ref/abc', 'DELETE')).json).toMatchObject({ route: 'delete-ref', params: { id: 'abc' } });
  });

  it('prefers a literal segment over a param whatever the declaration order', async () => {
    expect((await call('/refs/export')).json?.route).toBe('refs-export');
    expect((await call('/refs/other')).json?.route).toBe('refs-param');
    // Literal segments are compared after decoding, like params.
    expect((await call('/refs/%65xport')).json?.route).toBe('refs-export');
  });

  it('answers an unknown path with 404 not_found in the table envelope', async () => {
    for (const path of ['/nope', '/ref', '/ref/', '/ref/abc/', '/REF/abc', '/ref/abc/extra', '//ref/abc']) {
      const { status, json } = await call(path);
      expect(status, path).toBe(404);
      expect(json?.error.code, path).toBe('not_found');
      expect(json?.x402Version).toBe(2);
    }
  });

  it('answers a known path with another method with 405 and an Allow header', async () => {
    const refs = await call('/ref/abc', 'PUT');
    expect(refs.status).toBe(405);
    expect(refs.headers.get('allow')).toBe('DELETE, GET, HEAD');
    expect(refs.json?.error).toMatchObject({ code: 'method_not_allowed', details: { allow: ['DELETE', 'GET', 'HEAD'] } });
    const exported = await call('/refs/export', 'PATCH');
    expect(exported.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('serves HEAD with the GET handler, the same headers and no body', async () => {
    const get = await call('/ref/abc');
    const head = await call('/ref/abc', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('refuses an invalid percent-encoding in the path with 400', async () => {
    for (const path of ['/ref/%zz', '/ref/%C3', '/ref/%FF']) {
      const { status, json } = await call(path);
      expect(status, path).toBe(400);
      expect(json?.error.code).toBe('invalid_request');
    }
  });
});

describe('query strings', () => {
  it('decodes keys and values, with + as a space and a bare key as an empty value', async () => {
    const { json } = await call('/ref/abc?amount=10&note=hello+w%C3%B6rld&flag&&x%3Dy=1');
    expect(json?.query).toEqual({ amount: '10', note: 'hello wörld', flag: '', 'x=y': '1' });
  });

  it('keeps prototype keys as plain data', async () => {
    const { status, json } = await call('/ref/abc?__proto__=x&constructor=y');
    expect(status).toBe(200);
    expect(json?.query).toEqual({ ['__proto__']: 'x', constructor: 'y' });
  });

  it('refuses a key given twice, even with the same value or a different encoding', async () => {
    for (const search of ['?ref=a&ref=b', '?ref=a&ref=a', '?ref=a&r%65f=b', '?a+b=1&a%20b=2']) {
      const { status, json } = await call(`/ref/abc${search}`);
      expect(status, search).toBe(400);
      expect(json?.error.code).toBe('invalid_request');
    }
  });

  it('refuses an invalid percent-encoding in the query', async () => {
    expect((await call('/ref/abc?x=%E0%A4%A')).status).toBe(400);
    expect((await call('/ref/abc?%zz=1')).status).toBe(400);
  });
});

describe('request targets', () => {
  const incoming = (url: string) => ({ method: 'GET', url, headers: {}, body: () => null });

  it('accepts the absolute form proxies send', async () => {
    const response = await handleHttp(table, incoming('http://gateway.test/ref/abc?x=1'));
    expect(response.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(response.body))).toMatchObject({ params: { refId: 'abc' }, query: { x: '1' } });
  });

  it('refuses targets without a path with 400', async () => {
    for (const url of ['*', 'ref/abc', 'http://[bad', '']) {
      const response = await handleHttp(table, incoming(url));
      expect(response.status, url).toBe(400);
    }
  });
});

describe('defineRoutes', () => {
  const handler = () => ({ status: 204 });
  const build = (routes: RouteTable['routes']) => () => defineRoutes({ renderError: renderGatewayError, routes });

  it('refuses tables that would be ambiguous or malformed', () => {
    expect(build([route({ method: 'GET', path: 'ref', handler })])).toThrow(/must start with/);
    expect(build([route({ method: 'GET', path: '/ref//x', handler })])).toThrow(/empty path segment/);
    expect(build([route({ method: 'GET', path: '/ref/:', handler })])).toThrow(/invalid param/);
    expect(build([route({ method: 'GET', path: '/ref/:a-b', handler })])).toThrow(/invalid param/);
    expect(build([route({ method: 'GET', path: '/ref/:a/:a', handler })])).toThrow(/appears twice/);
    expect(build([route({ method: 'GET', path: '/ref/:a', handler }), route({ method: 'GET', path: '/ref/:b', handler })])).toThrow(
      /already serves/,
    );
    expect(build([route({ method: 'POST', path: '/x', body: { type: 'json', maxBytes: 0 }, handler })])).toThrow(/maxBytes/);
    expect(build([route({ method: 'POST', path: '/x', body: { type: 'json', maxBytes: 1.5 }, handler })])).toThrow(/maxBytes/);
    expect(build([route({ method: 'POST', path: '/x', body: { type: 'json', maxBytes: 8, maxCompressedBytes: -1 }, handler })])).toThrow(
      /maxCompressedBytes/,
    );
    expect(build([route({ method: 'POST', path: '/x', body: { type: 'xml' as 'json', maxBytes: 8 }, handler })])).toThrow(/body type/);
  });

  it('accepts the same shape for different methods', () => {
    expect(build([route({ method: 'GET', path: '/ref/:a', handler }), route({ method: 'PUT', path: '/ref/:b', handler })])).not.toThrow();
  });

  it('checks hand-built tables when an adapter is created', () => {
    expect(() => toFetchHandler({ renderError: renderGatewayError, routes: [{ method: 'GET', path: 'x', handler }] })).toThrow(TypeError);
  });
});

describe('route() inference', () => {
  it('types params from the path and the body from the spec', async () => {
    const typed = route({
      method: 'POST',
      path: '/refs/:refId/receipts/:receiptId',
      body: { type: 'raw', maxBytes: 8, optional: true },
      handler: (req) => {
        expectTypeOf(req.params).toEqualTypeOf<{ refId: string } & { receiptId: string }>();
        expectTypeOf(req.body).toEqualTypeOf<Uint8Array | undefined>();
        return { status: 200, body: { ...req.params, size: req.body?.byteLength ?? 0 } };
      },
    });
    const noBody = route({
      method: 'GET',
      path: '/health',
      handler: (req) => {
        expectTypeOf(req.body).toEqualTypeOf<undefined>();
        return { status: 204 };
      },
    });
    const handle = toFetchHandler(defineRoutes({ renderError: renderGatewayError, routes: [typed, noBody] }));
    const response = await handle(
      new Request('http://gateway.test/refs/r1/receipts/x2', { method: 'POST', headers: { 'content-type': 'image/png' }, body: new Uint8Array(3) }),
    );
    expect(await response.json()).toEqual({ refId: 'r1', receiptId: 'x2', size: 3 });
  });
});
