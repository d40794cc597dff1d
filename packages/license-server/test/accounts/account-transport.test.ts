/**
 * The account routes' transport refusals over real HTTP: every malformed, oversized, mistyped or
 * wrongly versioned request gets the protocol's CBOR error body (1000, 1004), never a 5xx.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCanonical, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage } from '@tollgate/core/license';
import { openAccountBench, postTo, type AccountApp, type AccountBench } from './account-sessions-harness';
import { serverEngines } from '../helpers';

const routes = ['/v1/account/login', '/v1/account/refresh', '/v1/account/logout'] as const;
const password = 'a password nobody echoes';

const map = (...entries: [number, CborValue][]) => new Map<number, CborValue>(entries);

/** Asserts a CBOR error body with `code` and the status, and returns its message. */
function expectError(answer: { status: number; headers: Headers; bytes: Uint8Array }, status: number, code: number, label: string): string {
  expect(answer.status, label).toBe(status);
  expect(answer.headers.get('content-type'), label).toBe('application/cbor');
  const body = decodeLicenseMessage('error-body', answer.bytes);
  expect(body.code, label).toBe(code);
  return body.message ?? '';
}

for (const engine of serverEngines) {
  describe(`account routes: transport refusals [${engine.name}]`, () => {
    let bench: AccountBench;
    let app: AccountApp;
    const validBodies = () => ({
      '/v1/account/login': map([0, 1], [1, bench.productId], [2, 'someone@example.com'], [3, password]),
      '/v1/account/refresh': map([0, 1], [1, randomBytes(32)]),
      '/v1/account/logout': map([0, 1], [1, randomBytes(32)]),
    });

    beforeAll(async () => {
      bench = await openAccountBench(engine);
      app = await bench.serve({ gates: { address: null } });
    });
    afterAll(() => bench?.close());

    it('refuses bytes that are not canonical CBOR with 400 code 1000', async () => {
      const bad = {
        nonShortest: [0xa1, 0x18, 0x00, 0x01],
        unsorted: [0xa2, 0x01, 0x00, 0x00, 0x01],
        duplicate: [0xa2, 0x00, 0x01, 0x00, 0x01],
        truncated: [0xa2, 0x00],
        trailing: [0xa1, 0x00, 0x01, 0x00],
        indefinite: [0xbf, 0x00, 0x01, 0xff],
        float: [0xa1, 0x00, 0xf9, 0x3c, 0x00],
        tag: [0xc1, 0x00],
        textNotUtf8: [0xa1, 0x00, 0x62, 0xc3, 0x28],
      };
      for (const path of routes) {
        for (const [name, bytes] of Object.entries(bad)) expectError(await postTo(app, path, new Uint8Array(bytes)), 400, 1000, `${path} ${name}`);
      }
    });

    it('refuses bodies that break the message layout with 400 code 1000, naming the problem but never echoing a value', async () => {
      const token = randomBytes(32);
      const layouts: Record<string, [string, CborValue][]> = {
        '/v1/account/login': [
          ['not a map', [1, 'x']],
          ['a number', 7],
          ['no proto_ver', map([1, bench.productId], [2, 'a@b.c'], [3, password])],
          ['no password', map([0, 1], [1, bench.productId], [2, 'a@b.c'])],
          ['an unknown key', map([0, 1], [1, bench.productId], [2, 'a@b.c'], [3, password], [4, 1])],
          ['a bad product id', map([0, 1], [1, 'Not A Product'], [2, 'a@b.c'], [3, password])],
          ['a 2-byte email', map([0, 1], [1, bench.productId], [2, 'ab'], [3, password])],
          ['a 255-byte email', map([0, 1], [1, bench.productId], [2, `${'e'.repeat(243)}@example.com`], [3, password])],
          ['an empty password', map([0, 1], [1, bench.productId], [2, 'a@b.c'], [3, ''])],
          ['a 1,025-byte password', map([0, 1], [1, bench.productId], [2, 'a@b.c'], [3, `${password}${'p'.repeat(1025 - password.length)}`])],
          ['a password in bytes', map([0, 1], [1, bench.productId], [2, 'a@b.c'], [3, new TextEncoder().encode(password)])],
        ],
        '/v1/account/refresh': [
          ['a short token', map([0, 1], [1, token.slice(0, 31)])],
          ['a long token', map([0, 1], [1, new Uint8Array([...token, 0])])],
          ['a text token', map([0, 1], [1, 'x'.repeat(32)])],
          ['an unknown key', map([0, 1], [1, token], [2, token])],
          ['an empty map', map()],
        ],
        '/v1/account/logout': [
          ['a short token', map([0, 1], [1, token.slice(0, 16)])],
          ['no token', map([0, 1])],
          ['a list', [1, token]],
        ],
      };
      for (const [path, cases] of Object.entries(layouts)) {
        for (const [name, body] of cases) {
          const message = expectError(await postTo(app, path, encodeCanonical(body)), 400, 1000, `${path} ${name}`);
          expect(message, `${path} ${name}`).not.toContain(password);
          expect(message.length, `${path} ${name}`).toBeGreaterThan(0);
        }
      }
    });

    it('answers 426 code 1004 for a proto_ver other than 1 and for a missing or other X-LS-Proto', async () => {
      for (const path of routes) {
        const body = validBodies()[path];
        for (const version of [0, 2, '1', 1_000_000]) {
          const versioned = new Map(body);
          versioned.set(0, version);
          expectError(await postTo(app, path, versioned), 426, 1004, `${path} proto_ver ${String(version)}`);
        }
        expectError(await postTo(app, path, body, { 'x-ls-proto': undefined }), 426, 1004, `${path} no header`);
        expectError(await postTo(app, path, body, { 'x-ls-proto': '2' }), 426, 1004, `${path} header 2`);
      }
    });

    it('answers 413, 415, 405 and 400 with code 1000 for oversized, mistyped, wrong-method and empty requests', async () => {
      for (const path of routes) {
        expectError(await postTo(app, path, encodeCanonical(map([0, 1], [1, 'x'.repeat(17 * 1024)]))), 413, 1000, `${path} 17 KiB`);
        expectError(await postTo(app, path, encodeCanonical(validBodies()[path]), { 'content-type': 'application/json' }), 415, 1000, `${path} json`);
        expectError(await postTo(app, path, new Uint8Array(0)), 400, 1000, `${path} empty`);
        const bomb = new Uint8Array(gzipSync(encodeCanonical(map([0, 1], [1, 'y'.repeat(40 * 1024)]))));
        expectError(await postTo(app, path, bomb, { 'content-encoding': 'gzip' }), 413, 1000, `${path} gzip over 16 KiB decoded`);
        expectError(await postTo(app, path, randomBytes(65 * 1024), { 'content-encoding': 'gzip' }), 413, 1000, `${path} 65 KiB on the wire`);
        expectError(await postTo(app, path, new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02])), 400, 1000, `${path} corrupt gzip sent raw`);
        expectError(await postTo(app, path, new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02]), { 'content-encoding': 'gzip' }), 400, 1000, `${path} corrupt gzip`);
        expectError(await postTo(app, path, encodeCanonical(validBodies()[path]), { 'content-encoding': 'zstd' }), 415, 1000, `${path} zstd`);
        const get = await fetch(new URL(path, app.url), { headers: { 'x-ls-proto': '1' } });
        const answer = { status: get.status, headers: get.headers, bytes: new Uint8Array(await get.arrayBuffer()) };
        expectError(answer, 405, 1000, `${path} GET`);
        expect(get.headers.get('allow')).toBe('POST');
      }
    });

    it('accepts gzip and br bodies, and answers CORS preflights without X-LS-Proto', async () => {
      const refresh = encodeCanonical(validBodies()['/v1/account/refresh']);
      expectError(await postTo(app, '/v1/account/refresh', new Uint8Array(gzipSync(refresh)), { 'content-encoding': 'gzip' }), 401, 1003, 'gzip');
      expectError(await postTo(app, '/v1/account/refresh', new Uint8Array(brotliCompressSync(refresh)), { 'content-encoding': 'br' }), 401, 1003, 'br');
      const logout = await postTo(app, '/v1/account/logout', new Uint8Array(gzipSync(encodeCanonical(validBodies()['/v1/account/logout']))), { 'content-encoding': 'gzip' });
      expect(logout.status).toBe(204);
      const preflight = await fetch(new URL('/v1/account/login', app.url), {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-ls-proto, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
}
