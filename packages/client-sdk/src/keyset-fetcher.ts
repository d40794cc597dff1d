import { systemClock, unixSeconds, type Clock } from '@tollgate/core';
import type { VerifiedKeyset } from '@tollgate/core/license';
import { synchronousVerifier, verifyWithChecks, type SdkSignatureVerifier } from './signature-checks';
import { getLicenseResource, maxAgeSeconds, type FetchFunction } from './http';
import { RefetchGate } from './refetch-gate';
import { verifyKeyset, type PinnedRoot } from './verify';

/**
 * The least time between two forced keyset refetches ({@link KeysetFetcher.refetch}): 30 s. Anyone
 * can put a made-up `kid` into an artifact, so "unknown kid → refetch" must not turn a flood of them
 * into a flood of requests: at most two extra requests a minute (the keyset and the feed), while a
 * genuine rotation is picked up by the first artifact that needs it.
 *
 * @example
 * ```ts
 * import { createKeysetFetcher, defaultRefetchIntervalSeconds } from '@tollgate/client-sdk';
 * const keysets = createKeysetFetcher({ baseUrl, pinnedRoots, refetchIntervalSeconds: 2 * defaultRefetchIntervalSeconds });
 * ```
 */
export const defaultRefetchIntervalSeconds = 30;

/** Options of {@link createKeysetFetcher}. */
export interface KeysetFetcherOptions {
  /** The license server, e.g. `https://license.example.com`. */
  baseUrl: string;
  /** Root public keys pinned in the app (current and next). */
  pinnedRoots: readonly PinnedRoot[];
  /** The platform's `fetch` by default. */
  fetch?: FetchFunction;
  /** The system clock by default. */
  clock?: Clock;
  /**
   * A keyset body the app stored from an earlier run (see `onKeyset`): verified against the pins at
   * creation (a bad one throws like `get()` would) and served by `current()` at once, but stale
   * (`freshUntil()` is 0), so the next `get()` fetches.
   */
  initial?: Uint8Array;
  /** Called with the raw body each time a fetched keyset verified, so the app can persist those exact bytes. */
  onKeyset?: (bytes: Uint8Array, keyset: VerifiedKeyset) => void;
  /** The Ed25519 check: the runtime's fastest by default (Node's native Ed25519, else WebCrypto, else noble). */
  verify?: SdkSignatureVerifier;
  /** The least time between two forced refetches (`refetch()`): {@link defaultRefetchIntervalSeconds} (30 s) by default. */
  refetchIntervalSeconds?: number;
}

/** What {@link KeysetFetcher.refetch} did: fetched a new keyset, or nothing (the rate limit). */
export type KeysetRefetch = { readonly outcome: 'fetched'; readonly keyset: VerifiedKeyset } | { readonly outcome: 'rate_limited'; readonly retryAfterSeconds: number };

/** Fetches and caches the verified keyset. */
export interface KeysetFetcher {
  /**
   * The verified keyset: the cached one while its `max-age` lasts, otherwise a new `GET /v1/keys`
   * (concurrent callers share one request). A refused keyset is never cached.
   *
   * @throws `LicenseRequestError` (503 / 5000 with `retryAfterSeconds` while the server warms up,
   *   `network_error`), `ArtifactError` when the keyset does not verify against the pins.
   */
  get(): Promise<VerifiedKeyset>;
  /**
   * Fetches the keyset now, whatever its `max-age` says, and past a browser's HTTP cache (`cache:
   * 'no-cache'`): for an artifact whose `kid` the cached keyset does not list, an epoch the server
   * switched to since (an emergency rotation). Anyone can make up a `kid`, so it is rate-limited: at
   * most one forced fetch starts per `refetchIntervalSeconds` (30 s) and concurrent callers share it; in
   * between it resolves `rate_limited` without a request. A regular `get()` in flight is waited for
   * first (it may have left before the server changed its keys). Every fetcher keeps its own limit, so
   * all verifiers built over one fetcher share it.
   *
   * @throws As `get()`; a failed forced fetch still counts against the limit.
   */
  refetch(): Promise<KeysetRefetch>;
  /** The last verified keyset, even if stale, or `undefined` (for offline grace decisions). */
  current(): VerifiedKeyset | undefined;
  /** Unix time until which the cached keyset is fresh (0 when none). */
  freshUntil(): number;
  /** Forgets the cache, so the next `get()` fetches. */
  invalidate(): void;
}

/**
 * An HTTP keyset fetcher that honours the server's `Cache-Control: max-age` (300 s on `/v1/keys`): no
 * request while the cached keyset is fresh, one shared request when it is stale, and a rate-limited
 * forced `refetch()` for an unknown `kid`. Works in Node and browsers; inject `fetch` and `clock` in
 * tests. An app that verifies offline after a restart stores the bytes `onKeyset` hands it and passes
 * them back as `initial`.
 *
 * @param options - Server, pins, fetch, clock.
 * @returns The fetcher.
 *
 * @example
 * ```ts
 * import { createArtifactVerifier, createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
 * const baseUrl = 'https://license.example.com';
 * const keysets = createKeysetFetcher({ baseUrl, pinnedRoots: [ROOT_CURRENT_HEX, ROOT_NEXT_HEX] });
 * const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get() });
 * const ticket = await createArtifactVerifier({ keysets, revocations, productId: 'acme-editor' }).verify(body, 'validation-ticket');
 * ```
 */
export function createKeysetFetcher(options: KeysetFetcherOptions): KeysetFetcher {
  return new HttpKeysetFetcher(options);
}

class HttpKeysetFetcher implements KeysetFetcher {
  private readonly clock: Clock;
  private readonly fetchFunction: FetchFunction;
  private readonly url: string;
  private readonly forced: RefetchGate<VerifiedKeyset>;
  private cached: VerifiedKeyset | undefined;
  /** Invalidated by `max-age`, `invalidate()` and every fetch that verifies. */
  private expiresAt = 0;
  /** The fetch every `get()` joins, forced or not, so two fetches never race to fill the cache. */
  private inFlight: Promise<VerifiedKeyset> | undefined;

  constructor(private readonly options: KeysetFetcherOptions) {
    this.clock = options.clock ?? systemClock;
    this.fetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/v1/keys`;
    this.forced = new RefetchGate(this.clock, options.refetchIntervalSeconds ?? defaultRefetchIntervalSeconds);
    // The stored keyset is checked here, where nothing can be awaited: with the fastest synchronous check.
    this.cached =
      options.initial === undefined ? undefined : verifyKeyset(options.initial, options.pinnedRoots, unixSeconds(this.clock), { verify: synchronousVerifier(options.verify) });
  }

  get(): Promise<VerifiedKeyset> {
    if (this.cached !== undefined && unixSeconds(this.clock) < this.expiresAt) return Promise.resolve(this.cached);
    return this.inFlight ?? this.start(undefined);
  }

  async refetch(): Promise<KeysetRefetch> {
    const admission = this.forced.enter(async () => {
      await this.inFlight?.catch(() => undefined);
      return this.start('no-cache');
    });
    if (!admission.admitted) return { outcome: 'rate_limited', retryAfterSeconds: admission.retryAfterSeconds };
    return { outcome: 'fetched', keyset: await admission.result };
  }

  current(): VerifiedKeyset | undefined {
    return this.cached;
  }

  freshUntil(): number {
    return this.cached === undefined ? 0 : this.expiresAt;
  }

  invalidate(): void {
    this.expiresAt = 0;
  }

  private start(cache: RequestCache | undefined): Promise<VerifiedKeyset> {
    const loading: Promise<VerifiedKeyset> = this.load(cache).finally(() => {
      if (this.inFlight === loading) this.inFlight = undefined;
    });
    this.inFlight = loading;
    return loading;
  }

  private async load(cache: RequestCache | undefined): Promise<VerifiedKeyset> {
    const response = await getLicenseResource(this.fetchFunction, this.url, [200], cache === undefined ? {} : { cache });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const now = unixSeconds(this.clock);
    const keyset = await verifyWithChecks(this.options.verify, (verify) => verifyKeyset(bytes, this.options.pinnedRoots, now, { verify }));
    this.cached = keyset;
    this.expiresAt = now + maxAgeSeconds(response.headers.get('cache-control'));
    this.options.onKeyset?.(bytes, keyset);
    return keyset;
  }
}
