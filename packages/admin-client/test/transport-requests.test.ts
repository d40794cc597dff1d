import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AdminApiError, AdminResponseError } from '../src/errors';
import { createTransport, type AdminTransportHooks } from '../src/transport';

/** A fetch that answers from a script, recording what it was sent. */
function scriptedFetch(...steps: (Response | Error)[]) {
  const calls: { url: URL; method: string; headers: Headers; body: unknown }[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    calls.push({ url: new URL(String(input)), method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body });
    const step = steps[calls.length - 1];
    if (step === undefined) throw new Error(`unexpected call #${calls.length}`);
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const noWait: AdminTransportHooks = { sleep: async () => undefined, random: () => 0.5 };
const anything = v.looseObject({ ok: v.literal(true) });

function transportOver(fetch: typeof globalThis.fetch, baseUrl = 'https://license.example.com') {
  return createTransport({ baseUrl, token: 'tgla_secret', fetch }, noWait);
}

describe('admin transport: requests', () => {
  it('sends base URL + /v1/admin + path with bearer token, Accept and a JSON body', async () => {
    const server = scriptedFetch(json(201, { ok: true, id: 'a' }, { 'x-request-id': 'req-1' }));
    const answer = await transportOver(server.fetch, 'https://example.com/license/').request({
      method: 'POST', path: '/accounts', kind: 'mutation', body: { email: 'a@example.com' }, query: { limit: 5, skip: undefined, flag: false }, schema: anything,
    });
    const [call] = server.calls;
    expect(call?.url.pathname).toBe('/license/v1/admin/accounts');
    expect(call?.url.search).toBe('?limit=5&flag=false');
    expect(call?.headers.get('authorization')).toBe('Bearer tgla_secret');
    expect(call?.headers.get('accept')).toBe('application/json');
    expect(call?.headers.get('content-type')).toBe('application/json');
    expect(call?.body).toBe('{"email":"a@example.com"}');
    expect(answer).toMatchObject({ status: 201, body: { ok: true, id: 'a' }, requestId: 'req-1' });
    expect(answer.headers['x-request-id']).toBe('req-1');
  });

  it('generates one idempotency key per mutation and reuses it across its retries', async () => {
    const server = scriptedFetch(new TypeError('fetch failed'), json(503, { ok: false, error: { code: 'service_unavailable', message: 'busy' } }), json(200, { ok: true }), json(200, { ok: true }));
    const transport = transportOver(server.fetch);
    await transport.request({ method: 'POST', path: '/licenses', kind: 'mutation', body: {}, schema: anything });
    await transport.request({ method: 'POST', path: '/licenses', kind: 'mutation', body: {}, schema: anything });
    const keys = server.calls.map((call) => call.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('sends the caller’s key when given, and no key on reads (even POST reads)', async () => {
    const server = scriptedFetch(json(200, { ok: true }), json(200, { ok: true }), json(200, { ok: true }));
    const transport = transportOver(server.fetch);
    await transport.request({ method: 'PATCH', path: '/licenses/x', kind: 'mutation', body: {}, schema: anything, options: { idempotencyKey: 'my-key-1' } });
    await transport.request({ method: 'GET', path: '/licenses', kind: 'read', schema: anything });
    await transport.request({ method: 'POST', path: '/audit/verify', kind: 'read', body: {}, schema: anything });
    expect(server.calls.map((call) => call.headers.get('idempotency-key'))).toEqual(['my-key-1', null, null]);
  });

  it('makes destructive calls dry runs unless dryRun is false, with a key either way', async () => {
    const server = scriptedFetch(json(200, { ok: true }), json(200, { ok: true }), json(200, { ok: true }));
    const transport = transportOver(server.fetch);
    const revoke = { method: 'POST', path: '/licenses/l%2F1/revoke', kind: 'destructive', schema: anything } as const;
    await transport.request(revoke);
    await transport.request({ ...revoke, options: { dryRun: true } });
    await transport.request({ ...revoke, options: { dryRun: false, idempotencyKey: 'confirm-1' } });
    expect(server.calls.map((call) => call.url.searchParams.get('dry_run'))).toEqual(['true', 'true', 'false']);
    expect(server.calls[0]?.url.pathname).toBe('/v1/admin/licenses/l%2F1/revoke');
    expect(server.calls[0]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.calls[2]?.headers.get('idempotency-key')).toBe('confirm-1');
  });

  it('maps the error envelope to AdminApiError with code, status, message, request id and Retry-After', async () => {
    const server = scriptedFetch(json(409, { ok: false, error: { code: 'already_revoked', message: 'License x is already revoked.' } }, { 'x-request-id': 'r-9', 'retry-after': '7' }));
    const error = await transportOver(server.fetch).request({ method: 'GET', path: '/licenses/x', kind: 'read', schema: anything }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({ code: 'already_revoked', status: 409, message: 'License x is already revoked.', requestId: 'r-9', retryAfterSeconds: 7 });
    expect(server.calls).toHaveLength(1);
  });

  it('maps an answer without the envelope to http_<status>, and does not retry other 5xx', async () => {
    const server = scriptedFetch(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }), json(500, { message: 'no envelope' }));
    const transport = transportOver(server.fetch);
    await expect(transport.request({ method: 'GET', path: '/x', kind: 'read', schema: anything })).rejects.toMatchObject({ code: 'http_502', status: 502, message: 'HTTP 502 Bad Gateway: <html>Bad gateway</html>' });
    await expect(transport.request({ method: 'GET', path: '/x', kind: 'read', schema: anything })).rejects.toMatchObject({ code: 'http_500', status: 500 });
    expect(server.calls).toHaveLength(2);
  });

  it('refuses a success answer of the wrong shape or not JSON as invalid_response naming the path', async () => {
    const schema = v.looseObject({ ok: v.literal(true), license: v.looseObject({ seats: v.number() }) });
    const server = scriptedFetch(json(200, { ok: true, license: { seats: 'three' } }), new Response('not json', { status: 200 }));
    const transport = transportOver(server.fetch);
    const wrong = await transport.request({ method: 'GET', path: '/licenses/x', kind: 'read', schema }).catch((caught: unknown) => caught);
    expect(wrong).toBeInstanceOf(AdminResponseError);
    expect(wrong).toMatchObject({ code: 'invalid_response', status: 200 });
    expect((wrong as Error).message).toContain('license.seats');
    await expect(transport.request({ method: 'GET', path: '/licenses/x', kind: 'read', schema })).rejects.toMatchObject({ code: 'invalid_response' });
    expect(server.calls).toHaveLength(2);
  });

  it('sends raw bodies as given and returns raw answers as bytes', async () => {
    const server = scriptedFetch(new Response(new Uint8Array([1, 2, 3]), { status: 200, headers: { 'x-ls-signer-key': 'k1' } }));
    const answer = await transportOver(server.fetch).requestBytes({ method: 'POST', path: '/integrity/sign', kind: 'mutation', rawBody: new Uint8Array([9, 9]) });
    expect(answer.bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(answer.headers['x-ls-signer-key']).toBe('k1');
    expect(server.calls[0]?.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(server.calls[0]?.body as Uint8Array)).toEqual(new Uint8Array([9, 9]));
  });

  it('refuses invalid options before sending anything', () => {
    const { fetch } = scriptedFetch();
    expect(() => createTransport({ baseUrl: 'https://x', token: '', fetch })).toThrow(TypeError);
    expect(() => createTransport({ baseUrl: 'not a url', token: 't', fetch })).toThrow(TypeError);
    expect(() => createTransport({ baseUrl: 'https://x', token: 't', fetch, maxRetries: -1 })).toThrow(RangeError);
    expect(() => createTransport({ baseUrl: 'https://x', token: 't', fetch, maxResponseBytes: 0 })).toThrow(RangeError);
  });
});
