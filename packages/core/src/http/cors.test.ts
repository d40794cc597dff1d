import { describe, expect, it } from 'vitest';
import { renderLicenseClientError } from '../errors';
import { cors, defineRoutes, route, toFetchHandler, type CorsOptions } from './index';

function handlerWith(options?: CorsOptions) {
  return toFetchHandler(
    defineRoutes({
      renderError: renderLicenseClientError,
      middleware: [cors(options)],
      routes: [
        route({ method: 'POST', path: '/v1/validate', body: { type: 'cbor', maxBytes: 4 }, handler: () => ({ status: 200, body: 'ok' }) }),
      ],
    }),
  );
}

const call = (handle: (r: Request) => Promise<Response>, path: string, init: RequestInit = {}) => handle(new Request(`https://license.test${path}`, init));

describe('cors', () => {
  it('answers a preflight with 204 and echoes what it asks for by default', async () => {
    const response = await call(handlerWith(), '/v1/validate', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-ls-proto' },
    });
    expect(response.status).toBe(204);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, x-ls-proto',
      'access-control-max-age': '600',
    });
    expect(response.headers.get('vary')).toBeNull();
  });

  it('answers preflights with the configured lists and origin', async () => {
    const handle = handlerWith({ allowOrigin: 'https://app.test', allowMethods: ['GET', 'POST'], allowHeaders: ['content-type'], maxAgeSeconds: 60 });
    const response = await call(handle, '/v1/validate', { method: 'OPTIONS', headers: { 'access-control-request-method': 'DELETE' } });
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': 'https://app.test',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '60',
      vary: 'origin',
    });
  });

  it('leaves a plain OPTIONS request to routing (405 here) but still decorates it', async () => {
    const response = await call(handlerWith(), '/v1/validate', { method: 'OPTIONS' });
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('decorates successes and every rendered refusal, with exposed headers', async () => {
    const handle = handlerWith({ exposeHeaders: ['retry-after', 'x-ls-proto'] });
    const cases: [string, RequestInit, number][] = [
      ['/v1/validate', { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: new Uint8Array([0x01]) }, 200],
      ['/v1/validate', { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: new Uint8Array(5) }, 413],
      ['/v1/validate', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }, 415],
      ['/v1/nope', {}, 400],
    ];
    for (const [path, init, status] of cases) {
      const response = await call(handle, path, init);
      expect(response.status, `${path} ${status}`).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toBe('retry-after, x-ls-proto');
    }
  });
});
