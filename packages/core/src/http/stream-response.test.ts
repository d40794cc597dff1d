/**
 * Streamed response bodies through both adapters: whole delivery, back-pressure, release of the
 * producer on disconnect and on a stalled client, a failing producer, HEAD.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGatewayError } from '../errors';
import { toExpress } from './node-express-adapter';
import { defineRoutes, route, toFetchHandler, type HttpStreamBody } from './index';

/** What the producers did: chunks pulled and whether their `finally` ran, per route. */
const pulled: Record<string, number> = {};
const released: Record<string, () => void> = {};
const releasedPromise: Record<string, Promise<void>> = {};
function track(name: string): void {
  pulled[name] = 0;
  releasedPromise[name] = new Promise<void>((resolve) => (released[name] = resolve));
}

const chunk64k = new Uint8Array(64 * 1024).fill(120);

async function* endless(name: string): HttpStreamBody {
  try {
    for (;;) {
      pulled[name] = (pulled[name] ?? 0) + 1;
      yield chunk64k;
    }
  } finally {
    released[name]?.();
  }
}

async function* lines(count: number): HttpStreamBody {
  for (let n = 0; n < count; n += 1) yield `${JSON.stringify({ n })}\n`;
}

async function* failing(): HttpStreamBody {
  yield 'first\n';
  await new Promise((resolve) => setTimeout(resolve, 10));
  throw new Error('producer failed');
}

const table = defineRoutes({
  renderError: renderGatewayError,
  routes: [
    route({ method: 'GET', path: '/lines', handler: () => ({ status: 200, headers: { 'content-type': 'application/x-ndjson', 'content-length': '5' }, body: lines(1000) }) }),
    route({ method: 'GET', path: '/endless/:name', handler: (req) => ({ status: 200, body: endless(req.params.name) }) }),
    route({ method: 'GET', path: '/failing', handler: () => ({ status: 200, body: failing() }) }),
  ],
});

const expected = Array.from({ length: 1000 }, (_, n) => `${JSON.stringify({ n })}\n`).join('');

function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** Polls until `read()` stops changing (the producer is held back), then returns it. */
async function settled(read: () => number): Promise<number> {
  let last = -1;
  for (let round = 0; round < 100; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = read();
    if (now === last) return now;
    last = now;
  }
  return read();
}

/** Opens a GET and stops reading after the headers. */
function openPaused(url: string): Promise<{ response: IncomingMessage; abort: () => void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, (response) => {
      response.pause();
      resolve({ response, abort: () => request.destroy() });
    });
    request.on('error', () => undefined);
    request.once('error', reject);
    request.end();
  });
}

describe('streamed responses through toExpress', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(toExpress(table, { streamStallTimeoutMs: 400 }));
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends every chunk, chunked, without a content-length, with the handler’s content type', async () => {
    const response = await fetch(`${base}/lines`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(await response.text()).toBe(expected);
  });

  it('sends no body for HEAD and never starts the producer', async () => {
    track('head');
    const response = await fetch(`${base}/endless/head`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(pulled['head']).toBe(0);
  });

  it('holds the producer back while the client does not read, and releases it when the client leaves', async () => {
    track('paused');
    const { abort } = await openPaused(`${base}/endless/paused`);
    const held = await settled(() => pulled['paused'] ?? 0);
    // Socket buffers hold a few MiB at most; without back-pressure the producer would run on unbounded.
    expect(held * chunk64k.byteLength).toBeLessThan(64 * 1024 * 1024);
    abort();
    await releasedPromise['paused'];
    const after = pulled['paused'] ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pulled['paused']).toBe(after);
  });

  it('closes the connection and releases the producer when a client stalls past the stall timeout', async () => {
    track('stalled');
    const { response } = await openPaused(`${base}/endless/stalled`);
    await releasedPromise['stalled'];
    // Reading again drains what the socket buffered and then finds the connection closed mid-body.
    const closed = once(response, 'close');
    response.resume();
    await expect(closed).rejects.toThrow('aborted');
    expect(response.complete).toBe(false);
  });

  it('aborts the body (never a complete-looking one) when the producer fails mid-stream', async () => {
    const response = await fetch(`${base}/failing`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });
});

describe('streamed responses through toFetchHandler', () => {
  const handle = toFetchHandler(table);

  it('sends every chunk as a web stream', async () => {
    const response = await handle(new Request('http://local/lines'));
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('content-length')).toBeNull();
    expect(await response.text()).toBe(expected);
  });

  it('pulls only what the reader asks for and releases the producer on cancel', async () => {
    track('fetch');
    const response = await handle(new Request('http://local/endless/fetch'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (let n = 0; n < 3; n += 1) expect((await reader.read()).done).toBe(false);
    expect(await settled(() => pulled['fetch'] ?? 0)).toBeLessThanOrEqual(4);
    await reader.cancel();
    await releasedPromise['fetch'];
  });

  it('errors the stream when the producer fails', async () => {
    const response = await handle(new Request('http://local/failing'));
    await expect(response.text()).rejects.toThrow('producer failed');
  });
});
