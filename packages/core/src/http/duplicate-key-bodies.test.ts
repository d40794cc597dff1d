import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderAdminError, renderGatewayError } from '../errors';
import { defineRoutes, route, toFetchHandler, type HttpRequest } from './index';

const seen: unknown[] = [];
const record = (req: HttpRequest) => {
  seen.push(req.body);
  return { status: 200, body: { ok: true, ownKeys: Object.keys(req.body as object) } };
};

const maxBytes = 64 * 1024;
const gateway = toFetchHandler(
  defineRoutes({ renderError: renderGatewayError, routes: [route({ method: 'POST', path: '/ref', body: { type: 'json', maxBytes }, handler: record })] }),
);
const admin = toFetchHandler(
  defineRoutes({ renderError: renderAdminError, routes: [route({ method: 'POST', path: '/v1/licenses', body: { type: 'json', maxBytes }, handler: record })] }),
);

async function post(handle: (request: Request) => Promise<Response>, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  const response = await handle(new Request(`http://tollgate.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body as BodyInit }));
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('JSON bodies with a repeated key', () => {
  it('are refused on a gateway route with 400 invalid_request in the gateway envelope, naming the key, before the handler runs', async () => {
    seen.length = 0;
    const answer = await post(gateway, '/ref', '{"payTo":"0xabc","amount":"5","amount":"6"}');
    expect(answer).toEqual({
      status: 400,
      json: { x402Version: 2, error: { code: 'invalid_request', message: 'Duplicate key "amount" in JSON body.', details: {} } },
    });
    expect(seen).toEqual([]);
  });

  it('are refused on an Admin route with invalid_request in the Admin envelope', async () => {
    seen.length = 0;
    const answer = await post(admin, '/v1/licenses', '{"product":"p","meta":{"seats":1,"\\u0073eats":99}}');
    expect(answer).toEqual({ status: 400, json: { ok: false, error: { code: 'invalid_request', message: 'Duplicate key "seats" in JSON body.' } } });
    expect(seen).toEqual([]);
  });

  it('are refused after decompression too', async () => {
    const answer = await post(gateway, '/ref', new Uint8Array(gzipSync('[{"a":1,"a":2}]')), { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(400);
    expect((answer.json['error'] as { message: string }).message).toBe('Duplicate key "a" in JSON body.');
  });

  it('never echo a huge key whole', async () => {
    const key = 'k'.repeat(10_000);
    const answer = await post(gateway, '/ref', `{"${key}":1,"${key}":2}`);
    const message = (answer.json['error'] as { message: string }).message;
    expect(answer.status).toBe(400);
    expect(message).toBe(`Duplicate key "${'k'.repeat(64)}…" in JSON body.`);
  });

  it('leave bodies without repeats as they were, a single __proto__ key included', async () => {
    seen.length = 0;
    expect(await post(gateway, '/ref', '{"a":{"a":1},"b":[{"a":1},{"a":2}],"s":"{\\"a\\":1,\\"a\\":2}"}')).toEqual({ status: 200, json: { ok: true, ownKeys: ['a', 'b', 's'] } });
    expect(await post(gateway, '/ref', '{"__proto__":{"admin":true},"x":1}')).toEqual({ status: 200, json: { ok: true, ownKeys: ['__proto__', 'x'] } });
    const body = seen[1] as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body['admin']).toBeUndefined();
    const twice = await post(gateway, '/ref', '{"__proto__":{"admin":true},"__proto__":{}}');
    expect(twice.status).toBe(400);
    expect((twice.json['error'] as { message: string }).message).toBe('Duplicate key "__proto__" in JSON body.');
  });

  it('keep the malformed-JSON refusal for text JSON.parse refuses', async () => {
    const answer = await post(gateway, '/ref', '{"a":1,"a":}');
    expect(answer).toEqual({ status: 400, json: { x402Version: 2, error: { code: 'invalid_request', message: 'The body is not valid JSON.', details: {} } } });
  });
});
