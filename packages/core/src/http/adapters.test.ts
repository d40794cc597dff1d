import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeCanonical, encodeCanonical } from '../cbor';
import { renderGatewayError, renderLicenseClientError } from '../errors';
import { nodeDecompressors } from './node-decompress';
import { toExpress } from './node-express-adapter';
import { defineRoutes, route, toFetchHandler, type HttpRequest, type HttpResponse, type Middleware } from './index';
import { eventually } from '../../../../test/eventually';

// One gateway-style JSON table and one license-style CBOR table, served by both adapters.
const finished: number[] = [];
const recordStatus: Middleware = async (_req, next) => {
  const response = await next();
  finished.push(response.status);
  return response;
};
const echo = (req: HttpRequest): HttpResponse => ({ status: 200, body: { body: req.body instanceof Uint8Array ? req.body.byteLength : req.body } });

const jsonTable = defineRoutes({
  renderError: renderGatewayError,
  middleware: [recordStatus],
  routes: [
    route({ method: 'POST', path: '/json', body: { type: 'json', maxBytes: 1024 }, handler: echo }),
    route({ method: 'POST', path: '/gz', body: { type: 'json', maxBytes: 64 * 1024, maxCompressedBytes: 64 * 1024 }, handler: echo }),
    route({ method: 'POST', path: '/raw', body: { type: 'raw', maxBytes: 64 * 1024 }, handler: echo }),
    route({ method: 'GET', path: '/whoami', handler: (req) => ({ status: 200, body: { address: req.remoteAddress ?? null } }) }),
    route({
      method: 'GET',
      path: '/boom',
      handler: () => {
        throw new Error('secret connection string');
      },
    }),
  ],
});
const cborTable = defineRoutes({
  renderError: renderLicenseClientError,
  routes: [
    route({
      method: 'POST',
      path: '/v1/echo',
      body: { type: 'cbor', maxBytes: 16 * 1024, maxCompressedBytes: 64 * 1024 },
      handler: (req) => ({ status: 200, headers: { 'content-type': 'application/cbor' }, body: encodeCanonical(req.body as Map<number, string>) }),
    }),
  ],
});

const bodyTimeoutMs = 300;

function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => (server.address() as AddressInfo).port);
}

function startExpress(): Server {
  const app = express();
  app.use(toExpress(cborTable, { fallthrough: true, bodyTimeoutMs }));
  app.use(toExpress(jsonTable, { bodyTimeoutMs }));
  return createServer(app);
}

/** A minimal node:http → fetch bridge, the way a Hono or a custom Node server would mount the handler. */
function startFetchBridge(): Server {
  const peers = new WeakMap<Request, string>();
  const options = { bodyTimeoutMs, decompressors: nodeDecompressors, remoteAddress: (r: Request) => peers.get(r) };
  const handlers = { cbor: toFetchHandler(cborTable, options), json: toFetchHandler(jsonTable, options) };
  const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);
  return createServer((req, res) => {
    const headers = Object.entries(req.headers).filter(([name]) => !hopByHop.has(name)) as [string, string][];
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      body: hasBody ? nodeToWeb(req) : null,
      duplex: 'half',
    } as RequestInit);
    peers.set(request, req.socket.remoteAddress ?? '');
    const handle = req.url?.startsWith('/v1/') ? handlers.cbor : handlers.json;
    void handle(request).then(async (response) => {
      const body = new Uint8Array(await response.arrayBuffer());
      if (!req.complete) res.setHeader('connection', 'close');
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(body);
    });
  });
}

// Cancelling must only pause the request: destroying it would also destroy the socket and the refusal.
function nodeToWeb(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => controller.close());
      req.on('error', (error) => controller.error(error));
    },
    pull: () => void req.resume(),
    cancel: () => void req.pause(),
  });
}

interface SendOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Keep writing this chunk until the response arrives (a body without Content-Length). */
  endlessChunk?: Uint8Array;
  /** Send this first part of the body and then neither more nor the end. */
  stallAfter?: Uint8Array;
}

interface Received {
  status: number;
  headers: IncomingMessage['headers'];
  body: Uint8Array;
  json: () => ReceivedJson;
}

// The shapes these tests read from JSON bodies: a gateway error envelope or an echo.
type ReceivedJson = Record<string, unknown> & { error: { code: string }; body: { list: unknown[] } };

function send(port: number, options: SendOptions): Promise<Received> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = new Uint8Array(Buffer.concat(chunks));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(new TextDecoder().decode(body)) as ReceivedJson });
        req.destroy();
      });
    });
    // Writing after the server refused and closed may fail; only a failure before any response counts.
    req.on('error', (error) => (responded ? undefined : reject(error)));
    if (options.endlessChunk) {
      const chunk = options.endlessChunk;
      const pump = (): void => {
        while (!responded && !req.destroyed && req.write(chunk));
        if (!responded && !req.destroyed) req.once('drain', pump);
      };
      pump();
    } else if (options.stallAfter) {
      req.write(options.stallAfter);
    } else {
      req.end(options.body);
    }
  });
}

const asJson = { 'content-type': 'application/json' };

describe.each([
  // Express falls through from the CBOR table to the JSON table; the bridge sends every /v1/ path to the CBOR table.
  { adapter: 'toExpress on an express() app', start: startExpress, unknownClientPath: { status: 404, type: 'application/json; charset=utf-8' } },
  { adapter: 'toFetchHandler behind node:http', start: startFetchBridge, unknownClientPath: { status: 400, type: 'application/cbor' } },
])('$adapter over a real server', ({ start, unknownClientPath }) => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = start();
    port = await listen(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('serves a JSON body and answers with JSON', async () => {
    const response = await send(port, { method: 'POST', path: '/json', headers: asJson, body: '{"hello":"wörld"}' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({ body: { hello: 'wörld' } });
    expect(response.headers.connection).not.toBe('close');
  });

  it('serves a CBOR body and answers with CBOR', async () => {
    const sent = encodeCanonical(new Map([[1, 'a'], [2, 'b']]));
    const response = await send(port, { method: 'POST', path: '/v1/echo', headers: { 'content-type': 'application/cbor' }, body: sent });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/cbor');
    expect(response.body).toEqual(sent);
  });

  it('decompresses gzip and brotli bodies', async () => {
    const json = JSON.stringify({ list: Array.from({ length: 500 }, (_, i) => i) });
    for (const [encoding, body] of [['gzip', gzipSync(json)], ['br', brotliCompressSync(json)]] as const) {
      const response = await send(port, { method: 'POST', path: '/gz', headers: { ...asJson, 'content-encoding': encoding }, body: new Uint8Array(body) });
      expect(response.status, encoding).toBe(200);
      expect(response.json().body.list).toHaveLength(500);
    }
  });

  it('refuses a gzip bomb with 413 quickly', async () => {
    const bomb = new Uint8Array(gzipSync(new Uint8Array(10 * 1024 * 1024)));
    const started = performance.now();
    const response = await send(port, { method: 'POST', path: '/gz', headers: { ...asJson, 'content-encoding': 'gzip' }, body: bomb });
    expect(response.status).toBe(413);
    expect(response.json().error.code).toBe('payload_too_large');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses truncated gzip with 400', async () => {
    const whole = gzipSync(JSON.stringify({ a: 'x'.repeat(300) }));
    const response = await send(port, { method: 'POST', path: '/gz', headers: { ...asJson, 'content-encoding': 'gzip' }, body: new Uint8Array(whole.subarray(0, whole.length - 8)) });
    expect(response.status).toBe(400);
  });

  it('refuses a wrong content type with 415 in each envelope', async () => {
    const json = await send(port, { method: 'POST', path: '/json', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect([json.status, json.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const cbor = await send(port, { method: 'POST', path: '/v1/echo', headers: asJson, body: '{}' });
    expect(cbor.status).toBe(415);
    expect((decodeCanonical(cbor.body) as Map<number, unknown>).get(0)).toBe(1000);
  });

  it('refuses an oversized body by Content-Length before reading it, closing the connection', async () => {
    const response = await send(port, {
      method: 'POST',
      path: '/raw',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(1024 * 1024 * 1024) },
      stallAfter: new Uint8Array(16),
    });
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
  });

  it('refuses an oversized chunked body without Content-Length once it passes the cap', async () => {
    const response = await send(port, {
      method: 'POST',
      path: '/raw',
      headers: { 'content-type': 'application/octet-stream' },
      endlessChunk: new Uint8Array(16 * 1024),
    });
    expect(response.status).toBe(413);
    expect(response.json().error.code).toBe('payload_too_large');
  });

  it('refuses a stalled body with 408 after the body timeout', async () => {
    const response = await send(port, { method: 'POST', path: '/json', headers: { ...asJson, 'content-length': '100' }, stallAfter: new TextEncoder().encode('{"a"') });
    expect(response.status).toBe(408);
  });

  it('refuses malformed JSON with 400', async () => {
    const response = await send(port, { method: 'POST', path: '/json', headers: asJson, body: '{"a":1,,}' });
    expect([response.status, response.json().error.code]).toEqual([400, 'invalid_request']);
  });

  it('renders a handler crash as a 500 envelope without the message or stack', async () => {
    const response = await send(port, { path: '/boom' });
    expect(response.status).toBe(500);
    expect(response.json()).toEqual({ x402Version: 2, error: { code: 'internal_error', message: 'Internal error.', details: {} } });
  });

  it('answers unknown paths in the envelope of the table that owns them', async () => {
    const unknownPath = await send(port, { path: '/nowhere' });
    expect([unknownPath.status, unknownPath.json().error.code]).toEqual([404, 'not_found']);
    const unknownV1 = await send(port, { method: 'POST', path: '/v1/unknown' });
    expect({ status: unknownV1.status, type: unknownV1.headers['content-type'] }).toEqual(unknownClientPath);
  });

  it('refuses an invalid percent-encoding in the path with 400', async () => {
    const response = await send(port, { path: '/who%zzami' });
    expect([response.status, response.json().error.code]).toEqual([400, 'invalid_request']);
  });

  it('serves HEAD without a body and with the GET length', async () => {
    const get = await send(port, { path: '/whoami' });
    const head = await send(port, { method: 'HEAD', path: '/whoami' });
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('passes the client address to handlers', async () => {
    expect((await send(port, { path: '/whoami' })).json()).toEqual({ address: '127.0.0.1' });
  });

  it('survives a client that aborts mid-body and keeps serving', async () => {
    const before = finished.length;
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/json', headers: { ...asJson, 'content-length': '500' } });
      req.on('error', () => resolve());
      req.write('{"partial":', () => setImmediate(() => req.destroy()));
      req.on('close', () => resolve());
    });
    await vi.waitFor(() => expect(finished.length).toBeGreaterThan(before), eventually);
    expect(finished.at(-1)).toBe(400);
    expect((await send(port, { path: '/whoami' })).status).toBe(200);
  });
});

describe('toExpress specifics', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = express();
    app.use('/api', toExpress(jsonTable, { fallthrough: true, remoteAddress: (req) => String(req.headers['x-client'] ?? 'unknown') }));
    app.use(toExpress(cborTable, { fallthrough: true }));
    app.get('/plain', (_req, res) => void res.send('from express'));
    server = createServer(app);
    port = await listen(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('falls through to the next handler when no route serves the path', async () => {
    const plain = await send(port, { path: '/plain' });
    expect([plain.status, new TextDecoder().decode(plain.body)]).toEqual([200, 'from express']);
    // Express's own 404 for a path no table serves: not rendered by either table.
    expect((await send(port, { path: '/api/nowhere' })).headers['content-type']).toMatch(/^text\/html/);
  });

  it('does not fall through on a wrong method: the path is served, so the table answers 405', async () => {
    const response = await send(port, { method: 'DELETE', path: '/api/json' });
    expect([response.status, response.headers.allow]).toEqual([405, 'POST']);
  });

  it('matches paths relative to the mount point and uses the address resolver', async () => {
    const response = await send(port, { path: '/api/whoami', headers: { 'x-client': '203.0.113.7' } });
    expect(response.json()).toEqual({ address: '203.0.113.7' });
  });

  it('leaves huge headers to Node, which refuses them with 431 rather than a 500', async () => {
    const response = await send(port, { path: '/api/whoami', headers: { 'x-huge': 'a'.repeat(64 * 1024) } });
    expect(response.status).toBe(431);
  });
});
