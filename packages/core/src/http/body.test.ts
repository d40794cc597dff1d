import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderGatewayError, RequestError } from '../errors';
import { defineRoutes, route, toFetchHandler, type HttpRequest } from './index';

type Envelope = Record<string, unknown> & { error: { code: string; message: string; details: Record<string, unknown> } };

const echoBody = (req: HttpRequest) => ({
  status: 200,
  body: { body: req.body instanceof Uint8Array ? { bytes: [...req.body] } : (req.body ?? null), raw: req.rawBody ? [...req.rawBody] : null },
});

const table = defineRoutes({
  renderError: renderGatewayError,
  routes: [
    route({ method: 'POST', path: '/json', body: { type: 'json', maxBytes: 64 }, handler: echoBody }),
    route({ method: 'POST', path: '/json-optional', body: { type: 'json', maxBytes: 64, optional: true }, handler: echoBody }),
    route({ method: 'POST', path: '/json-raw', body: { type: 'json', maxBytes: 64, keepRaw: true }, handler: echoBody }),
    route({ method: 'POST', path: '/gz', body: { type: 'json', maxBytes: 64 * 1024, maxCompressedBytes: 1024 }, handler: echoBody }),
    route({ method: 'POST', path: '/raw', body: { type: 'raw', maxBytes: 8 }, handler: echoBody }),
    route({ method: 'POST', path: '/octets', body: { type: 'raw', maxBytes: 8, contentTypes: ['application/octet-stream'] }, handler: echoBody }),
    route({ method: 'POST', path: '/no-body', handler: () => ({ status: 200, body: { ok: true } }) }),
  ],
});
const handle = toFetchHandler(table, { bodyTimeoutMs: 200 });

type Body = Uint8Array | string | ReadableStream<Uint8Array> | null;

async function post(path: string, body: Body, headers: Record<string, string> = {}) {
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body: body as BodyInit | null };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const response = await handle(new Request(`http://gateway.test${path}`, init));
  const json = (await response.json()) as Envelope;
  return { status: response.status, json, code: json.error?.code as string | undefined };
}

const asJson = { 'content-type': 'application/json' };
const encode = (text: string) => new TextEncoder().encode(text);

/** A body stream that records how many chunks were pulled from it and whether it was cancelled. */
function trackedStream(chunks: Uint8Array[], options: { stallAfter?: number; failAfter?: number } = {}) {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulls += 1;
      const index = state.pulls - 1;
      if (options.failAfter === index) return controller.error(new Error('connection reset'));
      if (options.stallAfter === index) return new Promise<void>(() => {});
      const chunk = chunks[index];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
      return undefined;
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

describe('JSON bodies', () => {
  it('parses a JSON body, with or without charset=utf-8', async () => {
    expect((await post('/json', '{"a":[1,"é"]}', asJson)).json).toEqual({ body: { a: [1, 'é'] }, raw: null });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;Charset="UTF-8"']) {
      expect((await post('/json', '{"a":1}', { 'content-type': type })).status, type).toBe(200);
    }
  });

  it('refuses a wrong, missing or non-UTF-8 content type with 415', async () => {
    for (const type of ['text/plain', 'application/cbor', 'application/json; charset=latin1', 'application/jsonx', 'json', 'application/json; charset']) {
      const { status, code } = await post('/json', '{"a":1}', { 'content-type': type });
      expect(status, type).toBe(415);
      expect(code).toBe('unsupported_media_type');
    }
    const missing = await post('/json', new Uint8Array(encode('{"a":1}')));
    expect(missing.status).toBe(415);
  });

  it('refuses malformed JSON and invalid UTF-8 with 400', async () => {
    for (const body of ['{"a":', 'undefined', '{a:1}', new Uint8Array([0x22, 0xff, 0x22])]) {
      const { status, code } = await post('/json', body, asJson);
      expect(status, String(body)).toBe(400);
      expect(code).toBe('invalid_request');
    }
  });

  it('refuses an empty required body with 400 and accepts an empty optional one as undefined', async () => {
    expect(await post('/json', '', asJson)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await post('/json', null)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((await post('/json-optional', null)).json).toEqual({ body: null, raw: null });
    expect((await post('/json-optional', '', asJson)).json).toEqual({ body: null, raw: null });
  });

  it('keeps the decoded bytes when asked to', async () => {
    expect((await post('/json-raw', '{"a":1}', asJson)).json).toEqual({ body: { a: 1 }, raw: [...encode('{"a":1}')] });
  });
});

describe('size limits', () => {
  it('refuses a Content-Length over the cap with 413 before reading a byte', async () => {
    const { stream, state } = trackedStream([encode('{}')]);
    const { status, code } = await post('/json', stream, { ...asJson, 'content-length': '65' });
    expect(status).toBe(413);
    expect(code).toBe('payload_too_large');
    expect(state.pulls).toBe(0);
  });

  it('refuses a streamed body without Content-Length as soon as it passes the cap, and cancels it', async () => {
    const chunks = Array.from({ length: 100 }, () => encode('[1,1,1,1,1,1,1,1,1,1]'));
    const { stream, state } = trackedStream(chunks);
    expect(await post('/json', stream, asJson)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(state.pulls).toBeLessThan(10);
    expect(state.cancelled).toBe(true);
  });

  it('accepts a body of exactly the cap', async () => {
    const exact = `"${'x'.repeat(62)}"`;
    expect((await post('/json', exact, asJson)).status).toBe(200);
    expect((await post('/json', `"${'x'.repeat(63)}"`, asJson)).status).toBe(413);
  });

  it('refuses an absurd Content-Length with 413 and a malformed one with 400', async () => {
    expect((await post('/json', '{}', { ...asJson, 'content-length': '99999999999999999999999' })).status).toBe(413);
    for (const length of ['-1', '12abc', '1e3', '2, 3']) {
      expect((await post('/json', '{}', { ...asJson, 'content-length': length })).status, length).toBe(400);
    }
  });

  it('refuses a stalled body with 408 after the body timeout', async () => {
    const { stream, state } = trackedStream([encode('{"a":')], { stallAfter: 1 });
    const started = performance.now();
    expect(await post('/json', stream, asJson)).toMatchObject({ status: 408 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(state.cancelled).toBe(true);
  });

  it('refuses a body whose stream fails midway with 400', async () => {
    const { stream } = trackedStream([encode('{"a":')], { failAfter: 1 });
    expect(await post('/json', stream, asJson)).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('never reads the body of a route without a body spec', async () => {
    const { stream, state } = trackedStream([encode('x')]);
    expect((await post('/no-body', stream, { 'content-type': 'text/plain' })).status).toBe(200);
    expect(state.pulls).toBe(0);
  });
});

describe('content encodings', () => {
  const gz = (text: string) => new Uint8Array(gzipSync(text));

  it('decompresses gzip (and x-gzip) bodies', async () => {
    for (const encoding of ['gzip', 'GZIP', 'x-gzip', 'identity, gzip']) {
      const { status, json } = await post('/gz', gz('{"zipped":true}'), { ...asJson, 'content-encoding': encoding });
      expect(status, encoding).toBe(200);
      expect(json.body).toEqual({ zipped: true });
    }
  });

  it('caps the wire size of compressed bodies separately from the decoded size', async () => {
    // 2 KiB of incompressible-ish text compresses to more than the 1 KiB wire cap.
    const noisy = JSON.stringify(Array.from({ length: 300 }, (_, i) => ((i * 2654435761) % 4294967296).toString(36)));
    const compressed = gz(noisy);
    expect(compressed.byteLength).toBeGreaterThan(1024);
    expect(await post('/gz', compressed, { ...asJson, 'content-encoding': 'gzip' })).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('refuses a gzip bomb with 413 without expanding it', async () => {
    const bomb = gz('0'.repeat(10 * 1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(1024 * 12);
    const bombTable = defineRoutes({
      renderError: renderGatewayError,
      routes: [route({ method: 'POST', path: '/gz', body: { type: 'json', maxBytes: 64 * 1024, maxCompressedBytes: 64 * 1024 }, handler: echoBody })],
    });
    const started = performance.now();
    const response = await toFetchHandler(bombTable)(
      new Request('http://gateway.test/gz', { method: 'POST', headers: { ...asJson, 'content-encoding': 'gzip' }, body: bomb }),
    );
    expect(response.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses truncated and garbage gzip with 400', async () => {
    const whole = gz('{"a":"' + 'x'.repeat(200) + '"}');
    for (const body of [whole.subarray(0, whole.length - 10), whole.subarray(0, 12), encode('not gzip at all')]) {
      expect(await post('/gz', body, { ...asJson, 'content-encoding': 'gzip' })).toMatchObject({ status: 400, code: 'invalid_request' });
    }
  });

  it('refuses unknown, stacked and brotli (without a decoder) encodings with 415', async () => {
    const br = new Uint8Array(brotliCompressSync('{"a":1}'));
    for (const [encoding, body] of [['br', br], ['compress', encode('{}')], ['constructor', encode('{}')], ['gzip, br', br], ['deflate', encode('{}')]] as const) {
      expect(await post('/gz', body, { ...asJson, 'content-encoding': encoding }), encoding).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    }
  });

  it('treats a decompressor failure that is not a RequestError as a malformed body', async () => {
    const failing = toFetchHandler(table, {
      decompressors: {
        gzip: async () => {
          throw new Error('decoder exploded');
        },
      },
    });
    const response = await failing(new Request('http://gateway.test/gz', { method: 'POST', headers: { ...asJson, 'content-encoding': 'gzip' }, body: gz('{}') }));
    expect(response.status).toBe(400);
  });

  it('lets a decompressor refuse with its own RequestError', async () => {
    const refusing = toFetchHandler(table, {
      decompressors: {
        gzip: async () => {
          throw new RequestError('payload_too_large', 'nope');
        },
      },
    });
    const response = await refusing(new Request('http://gateway.test/gz', { method: 'POST', headers: { ...asJson, 'content-encoding': 'gzip' }, body: gz('{}') }));
    expect(response.status).toBe(413);
  });
});

describe('raw bodies', () => {
  it('hands the bytes to the handler under any content type unless narrowed', async () => {
    expect((await post('/raw', new Uint8Array([1, 2, 3]), { 'content-type': 'image/png' })).json.body).toEqual({ bytes: [1, 2, 3] });
    expect((await post('/octets', new Uint8Array([1]), { 'content-type': 'application/octet-stream' })).status).toBe(200);
    expect((await post('/octets', new Uint8Array([1]), { 'content-type': 'image/png' })).status).toBe(415);
    expect((await post('/raw', new Uint8Array([1]))).status).toBe(415);
    expect((await post('/raw', new Uint8Array(9), { 'content-type': 'image/png' })).status).toBe(413);
  });
});
