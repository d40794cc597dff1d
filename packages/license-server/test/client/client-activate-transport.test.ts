/**
 * The transport rules of `POST /v1/activate` and `/v1/offline/request` over real HTTP, and the client
 * error codes these routes can answer, each as the CBOR error map: `X-LS-Proto` (1004), `proto_ver`
 * (1004), body and compressed-body limits, content types, non-canonical CBOR, malformed requests (1000,
 * never 5000), and the per-address and per-license budgets (1005 with `retry_after` and `Retry-After`).
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { freshKey } from '../admin/admin-harness';
import { activationBody, expectClientError, issueClientLicense, newDevice, openClientBench, postRaw, type ClientBench } from './client-harness';
import { serverEngines } from '../helpers';

const routes = [
  { path: '/v1/activate', kind: 'activation-request' },
  { path: '/v1/offline/request', kind: 'offline-request' },
] as const;

/** Headers with a fresh Idempotency-Key. */
const withKey = (headers: Record<string, string | undefined> = {}) => ({
  'idempotency-key': freshKey(),
  ...headers,
});

for (const engine of serverEngines) {
  describe(`activation transport and errors [${engine.name}]`, () => {
    let bench: ClientBench;
    let licenseKey: string;
    beforeAll(async () => {
      bench = await openClientBench(engine);
      licenseKey = (await issueClientLicense(bench, { seats: 1000 })).key;
    });
    afterAll(() => bench?.close());

    for (const { path, kind } of routes) {
      describe(path, () => {
        const validBody = () => activationBody(kind, newDevice(), { licenseKey }, bench.productId);

        it('accepts a valid request (the baseline of the cases below)', async () => {
          expect((await postRaw(bench.url, path, await validBody(), withKey())).status).toBe(200);
        });

        it('answers a missing or other X-LS-Proto 1004 (426), with CORS', async () => {
          for (const proto of [undefined, '2', '']) {
            const answer = await postRaw(bench.url, path, await validBody(), withKey({ 'x-ls-proto': proto }));
            expectClientError(answer, 1004, 426);
            expect(answer.headers.get('access-control-allow-origin')).toBe('*');
          }
        });

        it('answers a body whose proto_ver is not 1 with 1004 (426)', async () => {
          const body = decodeCanonical(await validBody()) as Map<CborKey, CborValue>;
          body.set(0, 2);
          expectClientError(await postRaw(bench.url, path, encodeCanonical(body), withKey()), 1004, 426);
        });

        it('refuses a body over 16 KiB (1000, 413) and takes a gzip or br body within the limits', async () => {
          const huge = encodeCanonical(
            new Map<CborKey, CborValue>([
              [0, 1],
              [1, 'x'.repeat(17 * 1024)],
            ]),
          );
          expectClientError(await postRaw(bench.url, path, huge, withKey()), 1000, 413);
          expect((await postRaw(bench.url, path, gzipSync(await validBody()), withKey({ 'content-encoding': 'gzip' }))).status).toBe(200);
          expect((await postRaw(bench.url, path, brotliCompressSync(await validBody()), withKey({ 'content-encoding': 'br' }))).status).toBe(200);
          // A small compressed body that inflates past 16 KiB (a zip bomb) is refused like a large one.
          expectClientError(await postRaw(bench.url, path, gzipSync(new Uint8Array(1024 * 1024)), withKey({ 'content-encoding': 'gzip' })), 1000, 413);
        });

        it('refuses a compressed body over 64 KiB on the wire (1000, 413) and a corrupt one (1000, 400)', async () => {
          const incompressible = gzipSync(randomBytes(70 * 1024), { level: 0 });
          expect(incompressible.length).toBeGreaterThan(64 * 1024);
          expectClientError(await postRaw(bench.url, path, incompressible, withKey({ 'content-encoding': 'gzip' })), 1000, 413);
          const corrupt = gzipSync(await validBody()).subarray(0, 20);
          const answer = await postRaw(bench.url, path, corrupt, withKey({ 'content-encoding': 'gzip' }));
          expectClientError(answer, 1000, 400);
          expectClientError(await postRaw(bench.url, path, await validBody(), withKey({ 'content-encoding': 'compress' })), 1000, 415);
        });

        it('refuses another content type (1000, 415) and a wrong method (1000, 405)', async () => {
          expectClientError(await postRaw(bench.url, path, await validBody(), withKey({ 'content-type': 'application/json' })), 1000, 415);
          const get = await fetch(new URL(path, bench.url), {
            headers: { 'x-ls-proto': '1' },
          });
          expectClientError(
            {
              status: get.status,
              headers: get.headers,
              bytes: new Uint8Array(await get.arrayBuffer()),
            },
            1000,
            405,
          );
        });

        it('refuses non-canonical CBOR with 1000 (400): indefinite lengths, long-form integers, unsorted keys, duplicate keys, trailing bytes', async () => {
          const canonical = await validBody();
          // Indefinite-length map: 0xbf … 0xff instead of 0xaN.
          const indefinite = Uint8Array.from([0xbf, ...canonical.subarray(1), 0xff]);
          // proto_ver 1 written as a one-byte-argument integer (0x18 0x01) instead of 0x01.
          const longInt = Uint8Array.from([canonical[0] as number, 0x00, 0x18, 0x01, ...canonical.subarray(3)]);
          const trailing = Uint8Array.from([...canonical, 0x00]);
          const unsorted = Uint8Array.from([0xa2, 0x01, 0x00, 0x00, 0x01]);
          const duplicate = Uint8Array.from([0xa2, 0x00, 0x01, 0x00, 0x01]);
          for (const bytes of [indefinite, longInt, trailing, unsorted, duplicate, new Uint8Array(0), Uint8Array.from([0xff])]) {
            expectClientError(await postRaw(bench.url, path, bytes, withKey()), 1000, 400);
          }
        });

        it('answers malformed requests 1000 (400), never 5000: wrong types, missing fields, bad lengths, foreign keys', async () => {
          const base = decodeCanonical(await validBody()) as Map<CborKey, CborValue>;
          const variants: [string, (map: Map<CborKey, CborValue>) => void][] = [
            ['not a map', () => undefined],
            ['missing fingerprint', (map) => map.delete(3)],
            ['short device key', (map) => map.set(4, randomBytes(31))],
            ['nonce as text', (map) => map.set(6, 'nonce')],
            ['negative client_time', (map) => map.set(7, -1)],
            ['unknown key', (map) => map.set(12, 1)],
            ['text key', (map) => map.set('extra', 1)],
            [
              'both credentials',
              (map) =>
                map.set(
                  2,
                  new Map<CborKey, CborValue>([
                    [0, licenseKey],
                    [1, randomBytes(32)],
                  ]),
                ),
            ],
            ['empty credential', (map) => map.set(2, new Map())],
            ['client_info not a map', (map) => map.set(8, [1, 2])],
            [
              'app_version too long',
              (map) =>
                map.set(
                  8,
                  new Map<CborKey, CborValue>([
                    [0, 'v'.repeat(65)],
                    [1, '0.1.0'],
                    [2, 'linux'],
                    [3, 'x64'],
                  ]),
                ),
            ],
            ['proof of 63 bytes', (map) => map.set(15, randomBytes(63))],
          ];
          for (const [label, edit] of variants) {
            const map = new Map(base);
            edit(map);
            const bytes = label === 'not a map' ? encodeCanonical([1, 2, 3]) : encodeCanonical(map);
            const answer = await postRaw(bench.url, path, bytes, withKey());
            expect(answer.status, label).toBe(400);
            expectClientError(answer, 1000, 400);
          }
        });
      });
    }
  });

  describe(`activation rate limits [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      // Small budgets: 4 requests per address per route a minute, 2 per license per route a minute.
      bench = await openClientBench(engine, {
        LICENSE_RATE_LIMIT_PER_ADDRESS: '4/60',
        LICENSE_RATE_LIMIT_PER_LICENSE: '2/60',
      });
    });
    afterAll(() => bench?.close());

    const expectLimited = (answer: Awaited<ReturnType<typeof postRaw>>) => {
      const body = expectClientError(answer, 1005, 429);
      expect(body.retryAfter).toBeGreaterThanOrEqual(1);
      expect(body.retryAfter).toBeLessThanOrEqual(60);
      expect(answer.headers.get('retry-after')).toBe(String(body.retryAfter));
    };

    it('limits each license per route: the third activation and the third offline request of one license a minute get 1005', async () => {
      const license = await issueClientLicense(bench, { seats: 20 });
      const other = await issueClientLicense(bench, { seats: 20 });
      for (const send of [(key: string) => bench.activate(newDevice(), { licenseKey: key }), (key: string) => bench.offline(newDevice(), { licenseKey: key })]) {
        expect((await send(license.key)).status).toBe(200);
        expect((await send(license.key)).status).toBe(200);
        expectLimited(await send(license.key));
      }
      // Another license has its own budget (the address budget of 4 is not spent yet on offline: 3 used).
      expect((await bench.offline(newDevice(), { licenseKey: other.key })).status).toBe(200);
    });

    it('limits each address per route, before the credential is even looked at', async () => {
      // So far from 127.0.0.1: 3 activations and 4 offline requests. The 4th activation still passes the
      // address budget (and is refused for its key); the 5th of each route is refused before that.
      expectClientError(await bench.activate(newDevice(), { licenseKey: 'UNKNOWN-KEY' }), 1000, 401);
      expectLimited(await bench.activate(newDevice(), { licenseKey: 'UNKNOWN-KEY' }));
      expectLimited(await bench.offline(newDevice(), { licenseKey: 'UNKNOWN-KEY' }));
      // A limited address is refused even with a perfectly good request.
      const license = await issueClientLicense(bench);
      expectLimited(await bench.activate(newDevice(), { licenseKey: license.key }));
    });
  });
}
