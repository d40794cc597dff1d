// The server's listener serves /receive/ straight from its route table and everything else through the
// Express app: both must answer byte for byte alike, log alike, and resolve the client address alike.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Route } from '@tollgate/core';
import { route } from '@tollgate/core/http';
import type { LogSink } from '@tollgate/core/node';
import { createGatewayApp, createGatewayListener } from '@tollgate/gateway-server';

const routes: Route[] = [
  route({
    method: 'GET',
    path: '/receive/:payTo',
    handler: (request) => ({ status: 402, headers: { 'x-client': request.remoteAddress ?? 'unknown' }, body: { payTo: request.params.payTo, query: { ...request.query } } }),
  }),
  route({
    method: 'GET',
    path: '/healthz',
    handler: (request) => ({ status: 200, body: { ok: true, client: request.remoteAddress ?? 'unknown' } }),
  }),
  // Not a /receive/ route, yet it matches a path under /receive/: the direct path must serve it too.
  route({
    method: 'GET',
    path: '/:section/about/:topic',
    handler: (request) => ({ status: 200, body: { section: request.params.section } }),
  }),
  route({
    method: 'GET',
    path: '/receive/:payTo/boom',
    handler: () => {
      throw new Error('unexpected');
    },
  }),
];

function captureLogger(): LogSink & { lines: { level: string; object: Record<string, unknown>; message?: string }[] } {
  const lines: { level: string; object: Record<string, unknown>; message?: string }[] = [];
  const push = (level: string) => (object: object, message?: string) => lines.push({ level, object: object as Record<string, unknown>, ...(message === undefined ? {} : { message }) });
  return { lines, info: push('info'), warn: push('warn'), error: push('error'), isLevelEnabled: () => true };
}

const servers: Server[] = [];

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** What a client sees of an answer, without the headers that differ by connection and time. */
async function seen(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'keep-alive', 'connection'].includes(name)));
  return { status: response.status, headers, body: await response.text() };
}

describe('createGatewayListener', () => {
  it('answers /receive/ and every other path exactly as the Express app does, and logs each request once', async () => {
    const viaAppLog = captureLogger();
    const viaListenerLog = captureLogger();
    const app = await serve(createGatewayApp(routes, viaAppLog));
    const listener = await serve(createGatewayListener(routes, viaListenerLog));
    const cases: [string, RequestInit][] = [
      ['/receive/0xabc?ref=r1&amount=5', {}],
      ['/receive/0xabc', { method: 'POST', body: 'x' }],
      ['/receive/0xabc/nothing', {}],
      ['/receive/0xabc/boom', {}],
      ['/receive/about/x', {}],
      ['/healthz', {}],
      ['/nowhere', {}],
    ];
    for (const [path, init] of cases) expect(await seen(`${listener}${path}`, init)).toEqual(await seen(`${app}${path}`, init));
    expect(viaListenerLog.lines.filter((line) => line.message === 'request' || line.message === 'request failed')).toHaveLength(cases.length);
    // The unexpected error is logged (and answered as internal_error) on both.
    expect(viaListenerLog.lines.filter((line) => line.message === 'unhandled error')).toHaveLength(1);
    expect(viaAppLog.lines.filter((line) => line.message === 'unhandled error')).toHaveLength(1);
  });

  it('resolves the client address as Express trust proxy does: the socket, or the trusted hops of X-Forwarded-For', async () => {
    for (const trustProxy of [0, 1, 2]) {
      const app = await serve(createGatewayApp(routes, captureLogger(), { trustProxy }));
      const listener = await serve(createGatewayListener(routes, captureLogger(), { trustProxy }));
      for (const forwarded of [undefined, '203.0.113.7', '198.51.100.1, 203.0.113.7', 'junk, 198.51.100.1, 203.0.113.7']) {
        const init: RequestInit = forwarded === undefined ? {} : { headers: { 'x-forwarded-for': forwarded } };
        const fromListener = (await fetch(`${listener}/receive/0xabc`, init)).headers.get('x-client');
        const fromApp = (await fetch(`${app}/receive/0xabc`, init)).headers.get('x-client');
        expect(fromListener).toBe(fromApp);
        expect(fromListener).toBe(trustProxy === 0 || forwarded === undefined ? '127.0.0.1' : forwarded.split(', ').reverse()[Math.min(trustProxy, forwarded.split(', ').length) - 1]);
      }
    }
  });

  it('is the Express app itself when there is no /receive route', () => {
    const listener = createGatewayListener(routes.filter((r) => !r.path.startsWith('/receive/')), captureLogger());
    expect(typeof (listener as unknown as { use?: unknown }).use).toBe('function');
  });
});
