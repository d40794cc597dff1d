import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborValue } from '../cbor';
import { LicenseClientError, renderGatewayError, renderLicenseClientError } from '../errors';
import { defineRoutes, route, toFetchHandler, type RouteTable } from './index';

const cborBody = { type: 'cbor', maxBytes: 16 * 1024, maxCompressedBytes: 64 * 1024 } as const;

const licenseTable = defineRoutes({
  renderError: renderLicenseClientError,
  routes: [
    route({
      method: 'POST',
      path: '/v1/activate',
      body: cborBody,
      handler: (req) => ({
        status: 200,
        headers: { 'content-type': 'application/cbor' },
        body: encodeCanonical(new Map<number, CborValue>([[0, req.body as CborValue]])),
      }),
    }),
    route({
      method: 'POST',
      path: '/v1/seat',
      body: cborBody,
      handler: () => {
        throw new LicenseClientError(1001, 'No seat left.');
      },
    }),
    route({
      method: 'GET',
      path: '/v1/crash',
      handler: () => {
        throw new Error('stack me');
      },
    }),
  ],
});

async function send(table: RouteTable, path: string, init: RequestInit & { duplex?: 'half' } = {}, options = {}) {
  const response = await toFetchHandler(table, options)(new Request(`https://license.test${path}`, init));
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes };
}

const post = (path: string, body: Uint8Array, headers: Record<string, string> = { 'content-type': 'application/cbor' }) =>
  send(licenseTable, path, { method: 'POST', headers, body: body as BodyInit });

const errorCode = (bytes: Uint8Array) => (decodeCanonical(bytes) as Map<number, unknown>).get(0);

describe('CBOR routes with the license client envelope', () => {
  it('decodes a canonical CBOR body into Maps for the handler', async () => {
    const sent = new Map<number, CborValue>([[1, 'device-1'], [2, new Uint8Array([1, 2])], [3, [1, -2, 3n ** 40n]]]);
    const response = await post('/v1/activate', encodeCanonical(sent));
    expect(response.status).toBe(200);
    expect((decodeCanonical(response.bytes) as Map<number, CborValue>).get(0)).toEqual(sent);
  });

  it('decodes gzip-compressed CBOR', async () => {
    const sent = new Map<number, CborValue>([[1, 'x'.repeat(5000)]]);
    const response = await post('/v1/activate', new Uint8Array(gzipSync(encodeCanonical(sent))), {
      'content-type': 'application/cbor',
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(200);
  });

  it('refuses non-canonical, unsorted, duplicate, truncated and trailing CBOR with 400 and code 1000', async () => {
    const bad = {
      nonShortest: [0xa1, 0x18, 0x01, 0x01],
      unsorted: [0xa2, 0x02, 0x00, 0x01, 0x00],
      duplicate: [0xa2, 0x01, 0x00, 0x01, 0x00],
      truncated: [0xa2, 0x01],
      trailing: [0x01, 0x02],
      indefinite: [0x9f, 0x01, 0xff],
      float: [0xf9, 0x3c, 0x00],
    };
    for (const [name, bytes] of Object.entries(bad)) {
      const response = await post('/v1/activate', new Uint8Array(bytes));
      expect(response.status, name).toBe(400);
      expect(errorCode(response.bytes), name).toBe(1000);
      expect(response.headers.get('content-type')).toBe('application/cbor');
    }
  });

  it('maps transport refusals to code 1000 with the statuses the protocol allows', async () => {
    const json = await post('/v1/activate', new Uint8Array([0x01]), { 'content-type': 'application/json' });
    expect([json.status, errorCode(json.bytes)]).toEqual([415, 1000]);
    const big = await post('/v1/activate', encodeCanonical('x'.repeat(17 * 1024)));
    expect([big.status, errorCode(big.bytes)]).toEqual([413, 1000]);
    const empty = await post('/v1/activate', new Uint8Array(0));
    expect([empty.status, errorCode(empty.bytes)]).toEqual([400, 1000]);
    const method = await send(licenseTable, '/v1/activate', { method: 'GET' });
    expect([method.status, errorCode(method.bytes), method.headers.get('allow')]).toEqual([405, 1000, 'POST']);
    const unknown = await send(licenseTable, '/v1/nope');
    expect([unknown.status, errorCode(unknown.bytes)]).toEqual([400, 1000]);
  });

  it('renders a stalled body as 400 code 1000 (408 is not a status the protocol allows)', async () => {
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) }, { highWaterMark: 0 });
    const response = await send(
      licenseTable,
      '/v1/activate',
      { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: stalled, duplex: 'half' },
      { bodyTimeoutMs: 50 },
    );
    expect([response.status, errorCode(response.bytes)]).toEqual([400, 1000]);
  });

  it('renders domain errors and crashes in the CBOR envelope', async () => {
    const seat = await post('/v1/seat', encodeCanonical(1));
    expect([seat.status, errorCode(seat.bytes)]).toEqual([409, 1001]);
    const crash = await send(licenseTable, '/v1/crash');
    expect([crash.status, errorCode(crash.bytes)]).toEqual([500, 5000]);
    expect(new TextDecoder().decode(crash.bytes)).not.toContain('stack me');
  });
});

describe('CBOR decode failures', () => {
  it('keep the decoder reason and offset in the refusal details', async () => {
    const table = defineRoutes({
      renderError: renderGatewayError,
      routes: [route({ method: 'POST', path: '/cbor', body: { type: 'cbor', maxBytes: 64 }, handler: () => ({ status: 204 }) })],
    });
    const response = await toFetchHandler(table)(
      new Request('http://gateway.test/cbor', {
        method: 'POST',
        headers: { 'content-type': 'application/cbor' },
        body: new Uint8Array([0xa2, 0x02, 0x00, 0x01, 0x00]),
      }),
    );
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; details: Record<string, unknown> } };
    expect(error.code).toBe('invalid_request');
    expect(error.details).toMatchObject({ reason: 'unsorted_keys', offset: expect.any(Number) });
  });

  it('apply the route cap as the decoder input limit and honour decoder options', async () => {
    const table = defineRoutes({
      renderError: renderGatewayError,
      routes: [
        route({ method: 'POST', path: '/big', body: { type: 'cbor', maxBytes: 64 * 1024 }, handler: () => ({ status: 204 }) }),
        route({ method: 'POST', path: '/floats', body: { type: 'cbor', maxBytes: 64, cborOptions: { allowFloats: true } }, handler: () => ({ status: 204 }) }),
      ],
    });
    const handle = toFetchHandler(table);
    const postTo = (path: string, body: Uint8Array) =>
      handle(new Request(`http://gateway.test${path}`, { method: 'POST', headers: { 'content-type': 'application/cbor' }, body: body as BodyInit }));
    // 40 KiB is above the decoder's 16 KiB default but within this route's cap.
    expect((await postTo('/big', encodeCanonical('y'.repeat(40 * 1024)))).status).toBe(204);
    expect((await postTo('/floats', new Uint8Array([0xf9, 0x3e, 0x00]))).status).toBe(204);
  });
});
