/**
 * The Admin client's transport against real servers: an idempotent retry after a dropped connection
 * applies once, a huge streamed answer is cut off at the cap, Retry-After is honoured, and every
 * Admin answer carries a request id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminResponseError } from '../../../admin-client/src/errors';
import { createTransport } from '../../../admin-client/src/transport';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';

const issued = v.looseObject({ ok: v.literal(true), licenses: v.array(v.looseObject({ license_id: v.string() })) });

async function licenseCount(bench: AdminHarness, policyId: string): Promise<number> {
  const { rows } = await bench.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_licenses WHERE policy_id = $1', [policyId]);
  return Number(rows[0]?.n);
}

for (const engine of serverEngines) {
  describe(`admin client transport against the license server [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
    });
    afterAll(() => bench?.close());

    it('applies a mutation once when the connection drops after the server answered and the client retries', async () => {
      const policyId = await seedPolicy(bench, bench.vendorA);
      const keys: (string | null)[] = [];
      let dropped = false;
      // Forwards to the real server, then loses the first POST's answer as if the connection dropped.
      const droppingFetch: typeof fetch = async (input, init) => {
        keys.push(new Headers(init?.headers).get('idempotency-key'));
        const response = await fetch(input, init);
        if (!dropped && init?.method === 'POST') {
          dropped = true;
          await response.arrayBuffer();
          throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
        }
        return response;
      };
      const admin = createTransport({ baseUrl: bench.url, token: bench.vendorA.token, fetch: droppingFetch }, { sleep: async () => undefined });
      const answer = await admin.request({ method: 'POST', path: '/licenses', kind: 'mutation', body: { policy_id: policyId, count: 2 }, schema: issued });
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(answer.status).toBe(201);
      expect(answer.headers['idempotent-replayed']).toBe('true');
      expect(answer.body.licenses).toHaveLength(2);
      expect(await licenseCount(bench, policyId)).toBe(2);
    });

    it('honours Retry-After of a 429 before the retry reaches the server, which then applies the call once', async () => {
      // The Admin API has no rate limit of its own: a proxy in front of it answers the first 429.
      const policyId = await seedPolicy(bench, bench.vendorA);
      const sleeps: number[] = [];
      let limited = false;
      const rateLimitingProxy: typeof fetch = async (input, init) => {
        if (!limited) {
          limited = true;
          return new Response(JSON.stringify({ ok: false, error: { code: 'rate_limited', message: 'slow down' } }), { status: 429, headers: { 'retry-after': '2' } });
        }
        return fetch(input, init);
      };
      const admin = createTransport({ baseUrl: bench.url, token: bench.vendorA.token, fetch: rateLimitingProxy }, { sleep: async (ms) => void sleeps.push(ms) });
      const answer = await admin.request({ method: 'POST', path: '/licenses', kind: 'mutation', body: { policy_id: policyId, count: 1 }, schema: issued });
      expect(sleeps).toEqual([2000]);
      expect(answer.headers['idempotent-replayed']).toBeUndefined();
      expect(await licenseCount(bench, policyId)).toBe(1);
    });

    it('answers X-Request-Id on every Admin answer: the client’s when well formed, else a fresh one', async () => {
      const echoed = await bench.call('GET', '/epochs', { headers: { 'x-request-id': 'ops.Run_42-a' } });
      expect([echoed.status, echoed.headers.get('x-request-id')]).toEqual([200, 'ops.Run_42-a']);
      for (const refused of ['bad id!', 'x'.repeat(65), '']) {
        const answer = await bench.call('GET', '/epochs', { headers: { 'x-request-id': refused } });
        expect(answer.headers.get('x-request-id'), refused).toMatch(/^[0-9a-f]{32}$/);
      }
      const failed = await bench.call('GET', '/epochs', { token: null, headers: { 'x-request-id': 'failing-1' } });
      expect([failed.status, failed.headers.get('x-request-id')]).toEqual([401, 'failing-1']);
      const unknown = await bench.call('GET', '/no-such-route');
      expect(unknown.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
      const first = await bench.call('GET', '/epochs');
      const second = await bench.call('GET', '/epochs');
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    });
  });
}

describe('admin client transport against a server streaming a huge body', () => {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let server: Server;
  let url: string;
  /** Bytes the server handed to the socket before the connection closed, per request. */
  const closed: Promise<number>[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let written = 0;
      closed.push(
        new Promise((resolve) => {
          response.on('close', () => resolve(written));
        }),
      );
      response.writeHead(200, { 'content-type': 'application/json', ...(request.url?.includes('declared') ? { 'content-length': String(10 * 1024 ** 3) } : {}) });
      // Writes forever, as fast as the client takes it, until the socket closes.
      const pump = () => {
        while (!response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return;
        }
      };
      response.on('drain', pump);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['streamed past the cap', '/huge'],
    ['declared by Content-Length', '/declared'],
  ])('rejects with response_too_large and closes the connection (%s)', async (_case, path) => {
    const admin = createTransport({ baseUrl: url, token: 't', maxResponseBytes: 1024 * 1024, maxRetries: 0 });
    const error = await admin.request({ method: 'GET', path, kind: 'read', schema: v.unknown() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminResponseError);
    expect(error).toMatchObject({ code: 'response_too_large', status: 200 });
    const written = await closed[closed.length - 1];
    // Socket buffers on both ends hold a few MB at most; an unbounded client would have read on.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });
});
