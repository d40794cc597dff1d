import { describe, expect, it } from 'vitest';
import { GatewayError, renderGatewayError } from '../errors';
import { defineRoutes, route, toFetchHandler, type HttpResponse, type Middleware, type RouteTable } from './index';

type Envelope = Record<string, unknown> & { error: { code: string; message: string; details: Record<string, unknown> } };

const corsHeaders = { 'access-control-allow-origin': '*' };

/** A CORS-like middleware: answers preflights itself and decorates whatever next() returns. */
const cors: Middleware = async (req, next) => {
  if (req.method === 'OPTIONS') return { status: 204, headers: { ...corsHeaders, 'access-control-allow-methods': 'GET, POST' } };
  const response = await next();
  return { ...response, headers: { ...response.headers, ...corsHeaders } };
};

function bodyStream(onPull: () => void) {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      onPull();
      controller.enqueue(new TextEncoder().encode('{"n":1}'));
      controller.close();
    },
  }, { highWaterMark: 0 });
}

async function send(table: RouteTable, path: string, init: RequestInit & { duplex?: 'half' } = {}) {
  const response = await toFetchHandler(table)(new Request(`http://gateway.test${path}`, init));
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Envelope) : undefined };
}

describe('middleware order', () => {
  it('runs table middleware, then route middleware, then reads the body, then the handler', async () => {
    const log: string[] = [];
    const tag = (name: string): Middleware => async (req, next) => {
      log.push(`${name}:in:${String(req.body)}`);
      const response = await next();
      log.push(`${name}:out:${response.status}`);
      return response;
    };
    const table = defineRoutes({
      renderError: renderGatewayError,
      middleware: [tag('table1'), tag('table2')],
      routes: [
        route({
          method: 'POST',
          path: '/items/:id',
          body: { type: 'json', maxBytes: 100 },
          middleware: [tag('route')],
          handler: (req) => {
            log.push(`handler:${JSON.stringify(req.body)}:${req.params.id}`);
            return { status: 201 };
          },
        }),
      ],
    });
    const response = await send(table, '/items/7', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bodyStream(() => log.push('body:read')),
      duplex: 'half',
    });
    expect(response.status).toBe(201);
    expect(log).toEqual([
      'table1:in:undefined',
      'table2:in:undefined',
      'route:in:undefined',
      'body:read',
      'handler:{"n":1}:7',
      'route:out:201',
      'table2:out:201',
      'table1:out:201',
    ]);
  });

  it('does not read the body when a middleware answers without calling next()', async () => {
    let pulls = 0;
    const deny: Middleware = async () => ({ status: 401, body: { denied: true } });
    const table = defineRoutes({
      renderError: renderGatewayError,
      routes: [route({ method: 'POST', path: '/x', body: { type: 'json', maxBytes: 100 }, middleware: [deny], handler: () => ({ status: 200 }) })],
    });
    const response = await send(table, '/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyStream(() => pulls++), duplex: 'half' });
    expect(response.status).toBe(401);
    expect(pulls).toBe(0);
  });
});

describe('next() never throws', () => {
  const table = defineRoutes({
    renderError: renderGatewayError,
    middleware: [cors],
    routes: [
      route({ method: 'GET', path: '/ok', handler: () => ({ status: 200, body: { ok: true } }) }),
      route({
        method: 'GET',
        path: '/boom',
        handler: () => {
          throw new Error('database password is hunter2');
        },
      }),
      route({
        method: 'GET',
        path: '/gone',
        handler: () => {
          throw new GatewayError('ref_expired', 'This ref expired.', { details: { refId: 'r1' } });
        },
      }),
      route({ method: 'POST', path: '/small', body: { type: 'json', maxBytes: 4 }, handler: () => ({ status: 200 }) }),
    ],
  });

  it('lets a middleware decorate 404, 405, 413, domain errors and handler crashes', async () => {
    const cases: [string, RequestInit, number, string][] = [
      ['/ok', {}, 200, ''],
      ['/nowhere', {}, 404, 'not_found'],
      ['/ok', { method: 'DELETE' }, 405, 'method_not_allowed'],
      ['/small', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2,3,4]' }, 413, 'payload_too_large'],
      ['/gone', {}, 410, 'ref_expired'],
      ['/boom', {}, 500, 'internal_error'],
    ];
    for (const [path, init, status, code] of cases) {
      const response = await send(table, path, init);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      if (code) expect(response.json?.error.code, path).toBe(code);
    }
  });

  it('keeps the Allow header of a 405 when a middleware rebuilds the headers', async () => {
    const response = await send(table, '/ok', { method: 'PUT' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('lets a middleware answer OPTIONS preflights on paths that have no OPTIONS route', async () => {
    const response = await send(table, '/ok', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(response.text).toBe('');
  });

  it('renders a handler crash as a generic 500 without message or stack', async () => {
    const response = await send(table, '/boom');
    expect(response.json).toEqual({ x402Version: 2, error: { code: 'internal_error', message: 'Internal error.', details: {} } });
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain('at ');
  });

  it('hands every middleware the rendered error as a value', async () => {
    const seen: HttpResponse[] = [];
    const spy: Middleware = async (_req, next) => {
      const response = await next();
      seen.push(response);
      return response;
    };
    const spied = defineRoutes({ ...table, middleware: [spy] });
    await send(spied, '/gone');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.status).toBe(410);
  });
});

describe('misbehaving middleware and handlers', () => {
  const handlerReturning = (value: unknown) =>
    defineRoutes({
      renderError: renderGatewayError,
      routes: [route({ method: 'GET', path: '/x', handler: () => value as HttpResponse })],
    });

  it('renders a middleware that throws', async () => {
    const throwing: Middleware = async () => {
      throw new GatewayError('unauthorized', 'No key.');
    };
    const table = defineRoutes({ renderError: renderGatewayError, middleware: [throwing], routes: [route({ method: 'GET', path: '/x', handler: () => ({ status: 200 }) })] });
    expect((await send(table, '/x')).json?.error.code).toBe('unauthorized');
  });

  it('runs the handler once when next() is called twice', async () => {
    let calls = 0;
    const twice: Middleware = async (_req, next) => {
      await next();
      return next();
    };
    const table = defineRoutes({
      renderError: renderGatewayError,
      middleware: [twice],
      routes: [route({ method: 'GET', path: '/x', handler: () => ({ status: 200, body: { calls: ++calls } }) })],
    });
    expect((await send(table, '/x')).json).toEqual({ calls: 1 });
  });

  it('renders invalid responses as a 500 envelope', async () => {
    for (const value of [undefined, null, 'ok', { status: 99 }, { status: 200.5 }, { status: 200, headers: { 'x-bad': 'a\r\nset-cookie: x=1' } }, { status: 200, headers: { 'bad name': 'v' } }, { status: 200, body: { n: 1n } }]) {
      const response = await send(handlerReturning(value), '/x');
      expect(response.status, JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? 'bigint' : v))).toBe(500);
      expect(response.json?.error.code).toBe('internal_error');
    }
  });

  it('falls back to a plain 500 when renderError itself throws', async () => {
    const table = defineRoutes({
      renderError: () => {
        throw new Error('renderer bug');
      },
      routes: [],
    });
    const response = await send(table, '/anything');
    expect(response.status).toBe(500);
    expect(response.text).toBe('Internal error.');
  });
});
