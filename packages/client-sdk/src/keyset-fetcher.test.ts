import { describe, expect, it, vi } from 'vitest';
import { ManualClock, hexEncode } from '@tollgate/core';
import { encodeCanonical } from '@tollgate/core/cbor';
import { ArtifactError, decodeSign1, encodeKeyset, encodeSign1 } from '@tollgate/core/license';
import { LicenseRequestError, createKeysetFetcher, maxAgeSeconds } from '@tollgate/client-sdk';
import { vectorEpochs, vectorNow, vectorRoots } from '../../core/test/vectors/license-fixtures';
import { createFakeLicenseServer } from '../test/fake-server';
import { eventually } from '../../../test/eventually';

const pins = [hexEncode(vectorRoots.current.publicKey), hexEncode(vectorRoots.next.publicKey)];

async function setup() {
  const clock = new ManualClock(vectorNow * 1000);
  const server = await createFakeLicenseServer({ clock });
  const fetcher = createKeysetFetcher({ baseUrl: 'https://license.test/', pinnedRoots: pins, fetch: server.fetch, clock });
  return { clock, server, fetcher };
}

describe('createKeysetFetcher', () => {
  it('fetches with X-LS-Proto: 1 and returns a keyset verified against the pins', async () => {
    const { server, fetcher } = await setup();
    const keyset = await fetcher.get();
    expect([...keyset.epochs.keys()]).toEqual([vectorEpochs.global.epochIdHex, vectorEpochs.acme.epochIdHex]);
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]).toMatchObject({ url: 'https://license.test/v1/keys', headers: { 'x-ls-proto': '1' } });
  });

  it('serves the cached keyset for max-age seconds, then fetches again', async () => {
    const { server, fetcher, clock } = await setup();
    await fetcher.get();
    clock.advance(299_000);
    await fetcher.get();
    expect(server.seen).toHaveLength(1);
    expect(fetcher.freshUntil()).toBe(vectorNow + 300);
    clock.advance(1_000);
    await fetcher.get();
    expect(server.seen).toHaveLength(2);
  });

  it('shares one request between concurrent callers, and refetches after invalidate()', async () => {
    const { server, fetcher } = await setup();
    const [first, second] = await Promise.all([fetcher.get(), fetcher.get()]);
    expect(first).toBe(second);
    expect(server.seen).toHaveLength(1);
    fetcher.invalidate();
    await fetcher.get();
    expect(server.seen).toHaveLength(2);
  });

  it('refetches past a fresh cache and the HTTP cache, at most once per 30 s, sharing the request between callers', async () => {
    const { server, clock } = await setup();
    const seenInit: (RequestInit | undefined)[] = [];
    const counting = createKeysetFetcher({
      baseUrl: 'https://license.test',
      pinnedRoots: pins,
      clock,
      fetch: (input, init) => {
        seenInit.push(init);
        return server.fetch(input, init);
      },
    });
    await counting.get();
    const refetches = await Promise.all([counting.refetch(), counting.refetch(), counting.refetch()]);
    expect(refetches.map((refetch) => refetch.outcome)).toEqual(['fetched', 'fetched', 'fetched']);
    expect(seenInit).toHaveLength(2);
    // A browser would otherwise answer from its HTTP cache (max-age=300) with the keyset it already has.
    expect(seenInit[1]?.cache).toBe('no-cache');
    expect(seenInit[0]?.cache).toBeUndefined();
    clock.advance(29_000);
    expect(await counting.refetch()).toEqual({ outcome: 'rate_limited', retryAfterSeconds: 1 });
    expect(seenInit).toHaveLength(2);
    // The rate limit binds forced refetches only: the regular cache rules are unchanged.
    expect(counting.freshUntil()).toBe(vectorNow + 300);
    clock.advance(1_000);
    expect((await counting.refetch()).outcome).toBe('fetched');
    expect(seenInit).toHaveLength(3);
    expect(counting.freshUntil()).toBe(vectorNow + 30 + 300);
  });

  it('takes the interval as an option, and counts a failed refetch against it', async () => {
    const { server, clock } = await setup();
    let down = true;
    const fetcher = createKeysetFetcher({
      baseUrl: 'https://license.test',
      pinnedRoots: pins,
      clock,
      refetchIntervalSeconds: 5,
      fetch: (input, init) => (down ? Promise.reject(new Error('ECONNREFUSED')) : server.fetch(input, init)),
    });
    await expect(fetcher.refetch()).rejects.toMatchObject({ code: 'network_error' });
    down = false;
    expect(await fetcher.refetch()).toEqual({ outcome: 'rate_limited', retryAfterSeconds: 5 });
    expect(server.seen).toHaveLength(0);
    clock.advance(5_000);
    expect((await fetcher.refetch()).outcome).toBe('fetched');
    expect(server.seen).toHaveLength(1);
  });

  it('lets a regular fetch in flight land before a forced one, and serves get() from the forced one meanwhile', async () => {
    const { server, clock } = await setup();
    const releases: (() => void)[] = [];
    const gated = (input: string, init?: RequestInit) => new Promise<void>((resolve) => releases.push(resolve)).then(() => server.fetch(input, init));
    const fetcher = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: pins, clock, fetch: gated });
    const regular = fetcher.get();
    const forced = fetcher.refetch();
    await vi.waitFor(() => expect(releases).toHaveLength(1), eventually);
    releases[0]?.();
    const landed = await regular;
    await vi.waitFor(() => expect(releases).toHaveLength(2), eventually);
    // Still fresh: the cache answers; once stale, get() joins the forced fetch instead of starting another.
    expect(await fetcher.get()).toBe(landed);
    clock.advance(300_000);
    const joined = fetcher.get();
    releases[1]?.();
    const [refetch, keyset] = await Promise.all([forced, joined]);
    expect(refetch.outcome === 'fetched' && refetch.keyset).toBe(keyset);
    expect(keyset).not.toBe(landed);
    expect(server.seen).toHaveLength(2);
  });

  it('turns a cold server (503, code 5000) into a LicenseRequestError with its retry delay, caching nothing', async () => {
    const { server, fetcher } = await setup();
    server.replaceKeysetResponse(
      () => new Response(encodeCanonical(new Map<number, number | string>([[0, 5000], [1, 'The keyset is not ready yet.'], [2, 1]])) as BodyInit, { status: 503, headers: { 'retry-after': '1' } }),
    );
    const error = await fetcher.get().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LicenseRequestError);
    expect(error).toMatchObject({ code: 5000, status: 503, retryAfterSeconds: 1 });
    expect(fetcher.current()).toBeUndefined();
  });

  it('refuses a keyset none of whose certificates comes from a pinned root, caching nothing', async () => {
    const clock = new ManualClock(vectorNow * 1000);
    const server = await createFakeLicenseServer({ clock });
    const fetcher = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: [vectorRoots.unpinned.publicKey], fetch: server.fetch, clock });
    await expect(fetcher.get()).rejects.toMatchObject({ reason: 'unpinned_root' });
    await expect(fetcher.get()).rejects.toBeInstanceOf(ArtifactError);
    expect(fetcher.current()).toBeUndefined();
  });

  it('refuses a tampered keyset and keeps the previous one for offline decisions', async () => {
    const { server, fetcher, clock } = await setup();
    const previous = await fetcher.get();
    const [first, second] = server.certificates as [Uint8Array, Uint8Array];
    const parts = decodeSign1(first);
    // Names the pinned root but carries another key's signature.
    const tampered = encodeSign1(parts.protectedBytes, parts.payload, await vectorRoots.unpinned.signer.sign(parts.payload));
    server.replaceKeysetResponse(
      () =>
        new Response(encodeKeyset({ protoVersion: 1, certificates: [tampered, second], revocationEpoch: 9 }) as BodyInit, {
          status: 200,
          headers: { 'cache-control': 'public, max-age=300' },
        }),
    );
    clock.advance(300_000);
    await expect(fetcher.get()).rejects.toMatchObject({ reason: 'bad_signature' });
    expect(fetcher.current()).toBe(previous);
    expect(fetcher.freshUntil()).toBe(vectorNow + 300);
    expect(server.seen).toHaveLength(2);
  });

  it('leaves retryAfterSeconds undefined when the server sent no Retry-After', async () => {
    const { server, fetcher } = await setup();
    server.replaceKeysetResponse(() => new Response(encodeCanonical(new Map<number, number>([[0, 5000]])) as BodyInit, { status: 500 }));
    const error = await fetcher.get().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 5000, status: 500 });
    expect((error as LicenseRequestError).retryAfterSeconds).toBeUndefined();
    server.replaceKeysetResponse(() => new Response(encodeCanonical(new Map<number, number>([[0, 5000]])) as BodyInit, { status: 503, headers: { 'retry-after': '7' } }));
    expect(await fetcher.get().catch((caught: unknown) => caught)).toMatchObject({ retryAfterSeconds: 7 });
    server.replaceKeysetResponse(
      () => new Response(encodeCanonical(new Map<number, number>([[0, 5000]])) as BodyInit, { status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' } }),
    );
    expect(((await fetcher.get().catch((caught: unknown) => caught)) as LicenseRequestError).retryAfterSeconds).toBeUndefined();
  });

  it('reports unreachable servers and non-protocol answers', async () => {
    const clock = new ManualClock(vectorNow * 1000);
    const offline = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: pins, clock, fetch: () => Promise.reject(new Error('ECONNREFUSED')) });
    await expect(offline.get()).rejects.toMatchObject({ code: 'network_error' });
    const proxy = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: pins, clock, fetch: async () => new Response('<html>bad gateway</html>', { status: 502 }) });
    await expect(proxy.get()).rejects.toMatchObject({ code: 'unexpected_response', status: 502 });
  });

  it('reads max-age, and treats no-store, no-cache or no header as zero', () => {
    expect(maxAgeSeconds('public, max-age=300')).toBe(300);
    expect(maxAgeSeconds('max-age=31536000, immutable')).toBe(86_400);
    expect(maxAgeSeconds('no-store')).toBe(0);
    expect(maxAgeSeconds('no-cache, max-age=60')).toBe(0);
    expect(maxAgeSeconds(null)).toBe(0);
  });

  it('hands every verified keyset body to onKeyset, and starts from an initial body that is served but stale', async () => {
    const { server, clock } = await setup();
    const stored: Uint8Array[] = [];
    const fetcher = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: pins, fetch: server.fetch, clock, onKeyset: (bytes) => stored.push(bytes) });
    const fetched = await fetcher.get();
    expect(stored).toHaveLength(1);
    const restarted = createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: pins, fetch: server.fetch, clock, initial: stored[0] as Uint8Array });
    expect([...(restarted.current()?.epochs.keys() ?? [])]).toEqual([...fetched.epochs.keys()]);
    expect(restarted.freshUntil()).toBe(0);
    expect(server.seen).toHaveLength(1);
    await restarted.get();
    expect(server.seen).toHaveLength(2);
  });

  it('refuses an initial body that does not verify against the pins', async () => {
    const { server, clock } = await setup();
    const bytes = encodeKeyset({ protoVersion: 1, certificates: server.certificates as Uint8Array[], revocationEpoch: 0 });
    expect(() => createKeysetFetcher({ baseUrl: 'https://license.test', pinnedRoots: [vectorRoots.unpinned.publicKey], clock, initial: bytes })).toThrow(ArtifactError);
  });
});
