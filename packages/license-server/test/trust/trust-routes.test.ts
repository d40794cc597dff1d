import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCborSequence } from '@tollgate/core/license';
import { createKeysetFetcher, createRevocationFollower, verifyArtifact, verifyKeyset } from '@tollgate/client-sdk';
import type { RunningLicenseServer } from '@tollgate/license-server';
import { bodyBytes, errorBody, openServerSandbox, protoHeaders, serverEngines, type ServerSandbox } from '../helpers';

const licenseId = (n: number) => Uint8Array.from({ length: 16 }, (_, index) => (index === 15 ? n : 0x5a));

for (const engine of serverEngines) {
  describe(`GET /v1/keys and /v1/revocations [${engine.name}]`, () => {
    let sandbox: ServerSandbox;
    let server: RunningLicenseServer;
    let releaseKeyset: () => void = () => undefined;

    beforeAll(async () => {
      sandbox = await openServerSandbox(engine);
      const gate = new Promise<void>((resolve) => (releaseKeyset = resolve));
      server = await sandbox.start({}, { keysetGate: gate });
    });
    afterAll(async () => {
      releaseKeyset();
      await sandbox.cleanup();
    });

    it('answers 503 with code 5000 and Retry-After: 1 while the keyset cache is cold', async () => {
      const response = await fetch(`${server.url}/v1/keys`, { headers: protoHeaders });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('content-type')).toBe('application/cbor');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(Object.fromEntries(await errorBody(response))).toEqual({ 0: 5000, 1: 'The keyset is not ready yet.', 2: 1 });
    });

    it('serves the CBOR keyset, cacheable for 300 s, verifying against the pinned root with the client SDK', async () => {
      releaseKeyset();
      await server.context.trust.refresh();
      const response = await fetch(`${server.url}/v1/keys`, { headers: protoHeaders });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/cbor');
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const keyset = verifyKeyset(await bodyBytes(response), server.context.pinnedRoots, Math.floor(Date.now() / 1000));
      expect([...keyset.epochs.keys()]).toEqual(server.context.trust.signingEpochs().map(({ epoch }) => epoch.epochIdHex));
      expect(keyset.epochs.size).toBe(1);
      expect(keyset.revocationEpoch).toBe(0);

      const fetcher = createKeysetFetcher({ baseUrl: server.url, pinnedRoots: server.context.pinnedRoots });
      expect((await fetcher.get()).epochs.size).toBe(1);
      expect(fetcher.freshUntil() - Math.floor(Date.now() / 1000)).toBeGreaterThan(295);
    });

    it('answers 204 no-store while nothing is newer than since', async () => {
      const response = await fetch(`${server.url}/v1/revocations?since=0`, { headers: protoHeaders });
      expect(response.status).toBe(204);
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('streams published batches as a CBOR sequence: partial pages no-store, full pages immutable', async () => {
      for (let n = 1; n <= 3; n += 1) await server.context.trust.publishRevocation({ licenseIds: [licenseId(n)] });
      const partial = await fetch(`${server.url}/v1/revocations?since=0`, { headers: protoHeaders });
      expect(partial.status).toBe(200);
      expect(partial.headers.get('content-type')).toBe('application/cbor-seq');
      expect(partial.headers.get('cache-control')).toBe('no-store');
      const keys = verifyKeyset(await bodyBytes(await fetch(`${server.url}/v1/keys`, { headers: protoHeaders })), server.context.pinnedRoots, Math.floor(Date.now() / 1000));
      expect(keys.revocationEpoch).toBe(3);
      const items = splitCborSequence(await bodyBytes(partial));
      expect(items.map((item) => verifyArtifact(item, 'revocation-batch', keys, { revokedEpochIds: [] }).payload.seq)).toEqual([1, 2, 3]);

      for (let n = 4; n <= 64; n += 1) await server.context.trust.publishRevocation({ licenseIds: [licenseId(n)] });
      const full = await fetch(`${server.url}/v1/revocations?since=2`, { headers: protoHeaders });
      expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(splitCborSequence(await bodyBytes(full))).toHaveLength(62);
      expect((await fetch(`${server.url}/v1/revocations?since=64`, { headers: protoHeaders })).status).toBe(204);
      expect((await fetch(`${server.url}/v1/revocations?since=18446744073709551615`, { headers: protoHeaders })).status).toBe(204);
    });

    it('lets the client SDK follow the feed to the announced revocation epoch', async () => {
      const keysets = createKeysetFetcher({ baseUrl: server.url, pinnedRoots: server.context.pinnedRoots });
      const follower = createRevocationFollower({ baseUrl: server.url, keys: () => keysets.get() });
      follower.observe((await keysets.get()).revocationEpoch);
      expect((await follower.sync()).map((batch) => batch.seq)).toEqual(Array.from({ length: 64 }, (_, n) => n + 1));
      expect(follower.state().revocationEpoch).toBe(64);
    });

    it('refuses a malformed since with 400 and code 1000', async () => {
      for (const query of ['', '?since=', '?since=01', '?since=-1', '?since=%2B1', '?since=1.5', '?since=abc', '?since=18446744073709551616', '?since=1&since=2']) {
        const response = await fetch(`${server.url}/v1/revocations${query}`, { headers: protoHeaders });
        expect(response.status, query).toBe(400);
        expect(response.headers.get('content-type')).toBe('application/cbor');
        expect((await errorBody(response)).get(0), query).toBe(1000);
      }
    });
  });
}

describe('client protocol rules', () => {
  let sandbox: ServerSandbox;
  let server: RunningLicenseServer;

  beforeAll(async () => {
    sandbox = await openServerSandbox({ name: 'pglite' });
    server = await sandbox.start();
    await server.context.trust.refresh();
  });
  afterAll(() => sandbox.cleanup());

  it('refuses a missing or other X-LS-Proto with 426 and CBOR code 1004, on every client path', async () => {
    for (const [path, headers] of [
      ['/v1/keys', {}],
      ['/v1/keys', { 'x-ls-proto': '2' }],
      ['/v1/keys', { 'x-ls-proto': '1, 1' }],
      ['/v1/revocations?since=0', {}],
      ['/v1/activate', {}],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { headers });
      expect(response.status, path).toBe(426);
      expect(response.headers.get('content-type')).toBe('application/cbor');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect((await errorBody(response)).get(0)).toBe(1004);
    }
  });

  it('answers CORS preflights without X-LS-Proto, allowing the header', async () => {
    const response = await fetch(`${server.url}/v1/keys`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-ls-proto' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET');
    expect(response.headers.get('access-control-allow-headers')).toBe('x-ls-proto');
  });

  it('exposes Retry-After to browser scripts and keeps /health JSON without X-LS-Proto', async () => {
    const keys = await fetch(`${server.url}/v1/keys`, { headers: protoHeaders });
    expect(keys.headers.get('access-control-expose-headers')).toBe('retry-after');
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, service: 'tollgate-license' });
  });

  it('renders unknown client paths and wrong methods as code 1000, no-store', async () => {
    const unknown = await fetch(`${server.url}/v1/nothing-here`, { headers: protoHeaders });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect((await errorBody(unknown)).get(0)).toBe(1000);
    const wrongMethod = await fetch(`${server.url}/v1/keys`, { method: 'POST', headers: protoHeaders });
    expect(wrongMethod.status).toBe(405);
    expect((await errorBody(wrongMethod)).get(0)).toBe(1000);
  });
});
