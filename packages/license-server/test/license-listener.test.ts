/**
 * The server's listener serves the client table under `/v1/` without Express: it must answer exactly as
 * the Express app does (same middleware: CORS, X-LS-Proto, no-store, error map) and resolve the client
 * address exactly as Express's `trust proxy` with a hop count, which the per-address budgets key on.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '@tollgate/core';
import { defineRoutes } from '@tollgate/core/http';
import { createLicenseApp, createLicenseListener } from '../src/app';
import { protoHeaders } from './helpers';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

const client: Route[] = [
  { method: 'GET', path: '/v1/whoami', handler: (request) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: new TextEncoder().encode(request.remoteAddress ?? 'unknown') }) },
];
const admin = defineRoutes({ renderError: () => ({ status: 500, headers: {}, body: undefined }), routes: [{ method: 'GET', path: '/v1/admin/ping', handler: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: new TextEncoder().encode('admin') }) }] });

async function listen(listener: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const forwardedHeaders = [undefined, '', '10.0.0.1', '10.0.0.1, 10.0.0.2', ' 10.0.0.1 ,10.0.0.2 ,, 10.0.0.3 ', '1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4', ',,,', 'not-an-ip, 10.0.0.9'];

async function answer(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const response = await fetch(`${url}${path}`, { headers });
  const kept: Record<string, string> = {};
  for (const name of ['access-control-allow-origin', 'cache-control', 'content-type', 'access-control-expose-headers']) kept[name] = response.headers.get(name) ?? '';
  return { status: response.status, body: await response.text(), headers: kept };
}

for (const trustProxy of [0, 1, 2, 3]) {
  describe(`license listener against the Express app [trust proxy ${trustProxy}]`, () => {
    const servers: Server[] = [];
    let direct: string;
    let viaExpress: string;
    beforeAll(async () => {
      const one = await listen(createLicenseListener({ client, admin }, logger, { trustProxy }));
      const two = await listen(createLicenseApp({ client, admin }, logger, { trustProxy }));
      servers.push(one.server, two.server);
      direct = one.url;
      viaExpress = two.url;
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    });

    it('resolves the client address as Express does for every X-Forwarded-For', async () => {
      const seen = new Set<string>();
      for (const forwarded of forwardedHeaders) {
        const headers: Record<string, string> = { ...protoHeaders, ...(forwarded === undefined ? {} : { 'x-forwarded-for': forwarded }) };
        const ours = await answer(direct, '/v1/whoami', headers);
        expect(ours).toEqual(await answer(viaExpress, '/v1/whoami', headers));
        expect(ours.status).toBe(200);
        seen.add(ours.body);
      }
      // With no trusted hop the socket address wins whatever the header says; with hops it does not.
      if (trustProxy === 0) expect([...seen]).toEqual(['127.0.0.1']);
      else expect(seen.size).toBeGreaterThan(1);
    });

    it('keeps the client table’s middleware and error map, and hands /v1/admin to the Admin table', async () => {
      for (const [path, headers] of [
        ['/v1/whoami', {}],
        ['/v1/nowhere', protoHeaders],
        ['/v1/admin/ping', {}],
        ['/v1/whoami?x=1', protoHeaders],
      ] as const) {
        const ours = await answer(direct, path, headers);
        expect(ours).toEqual(await answer(viaExpress, path, headers));
      }
      expect((await answer(direct, '/v1/whoami', {})).status).not.toBe(200);
      expect(await answer(direct, '/v1/admin/ping', {})).toMatchObject({ status: 200, body: 'admin' });
      expect((await answer(direct, '/v1/whoami', protoHeaders)).headers).toMatchObject({ 'access-control-allow-origin': '*', 'cache-control': 'no-store' });
    });
  });
}
