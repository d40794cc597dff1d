import { describe, expect, it } from 'vitest';
import { renderGatewayError } from '../errors';
import { defineRoutes, handleHttp, route, type HttpResponse } from './index';

function serve(response: HttpResponse, method = 'GET') {
  const table = defineRoutes({
    renderError: renderGatewayError,
    routes: [route({ method: 'GET', path: '/x', handler: () => response })],
  });
  return handleHttp(table, { method, url: '/x', headers: {}, body: () => null });
}

const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : undefined);

describe('response serialisation', () => {
  it('serialises JSON bodies once with a JSON content type and length', async () => {
    const out = await serve({ status: 200, body: { a: [1, 'é'], b: null } });
    expect(text(out.body)).toBe('{"a":[1,"é"],"b":null}');
    expect(out.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(out.headers['content-length']).toBe(String(out.body?.byteLength));
    expect(text((await serve({ status: 200, body: null })).body)).toBe('null');
    expect(text((await serve({ status: 200, body: false })).body)).toBe('false');
  });

  it('sends strings as UTF-8 text and bytes as-is, keeping a content type the handler set', async () => {
    expect(await serve({ status: 200, body: 'héllo' })).toMatchObject({ headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '6' } });
    const bytes = new Uint8Array([0xa1, 0x00, 0x01]);
    const binary = await serve({ status: 200, headers: { 'Content-Type': 'application/cbor' }, body: bytes });
    expect(binary.body).toEqual(bytes);
    expect(binary.headers['content-type']).toBe('application/cbor');
    expect((await serve({ status: 200, body: bytes })).headers['content-type']).toBe('application/octet-stream');
    expect((await serve({ status: 200, headers: { 'content-type': 'application/problem+json' }, body: {} })).headers['content-type']).toBe('application/problem+json');
  });

  it('lower-cases header names and drops a transfer-encoding that would contradict content-length', async () => {
    const out = await serve({ status: 200, headers: { 'X-Request-Id': 'r1', 'Transfer-Encoding': 'chunked' }, body: 'ok' });
    expect(out.headers).toMatchObject({ 'x-request-id': 'r1', 'content-length': '2' });
    expect(out.headers).not.toHaveProperty('transfer-encoding');
  });

  it('never sends a body for 204, 304 or HEAD', async () => {
    for (const status of [204, 304]) {
      const out = await serve({ status, headers: { 'content-length': '5' }, body: { ignored: true } });
      expect(out.body, String(status)).toBeUndefined();
      expect(out.headers).not.toHaveProperty('content-length');
      expect(out.headers).not.toHaveProperty('content-type');
    }
    const head = await serve({ status: 200, body: { a: 1 } }, 'HEAD');
    expect(head.body).toBeUndefined();
    expect(head.headers['content-length']).toBe('7');
  });

  it('sends an empty body with content-length 0 when there is none', async () => {
    const out = await serve({ status: 202 });
    expect(out.body).toBeUndefined();
    expect(out.headers['content-length']).toBe('0');
  });
});
