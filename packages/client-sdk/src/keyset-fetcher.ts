import { systemClock, unixSeconds, type Clock, type VerifiedKeyset } from '@tollgate/core';
import { synchronousVerifier, verifyWithChecks, type SdkSignatureVerifier } from './signature-checks';
import { getLicenseResource, maxAgeSeconds, type FetchFunction } from './http';
import { verifyKeyset, type PinnedRoot } from './verify';

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
}

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
  /** The last verified keyset, even if stale, or `undefined` (for offline grace decisions). */
  current(): VerifiedKeyset | undefined;
  /** Unix time until which the cached keyset is fresh (0 when none). */
  freshUntil(): number;
  /** Forgets the cache, so the next `get()` fetches (after a `unknown_key`, for example). */
  invalidate(): void;
}

/**
 * An HTTP keyset fetcher that honours the server's `Cache-Control: max-age` (300 s on `/v1/keys`): no
 * request while the cached keyset is fresh, one shared request when it is stale. Works in Node and
 * browsers; inject `fetch` and `clock` in tests. An app that verifies offline after a restart stores the
 * bytes `onKeyset` hands it and passes them back as `initial`.
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
  const clock = options.clock ?? systemClock;
  const fetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v1/keys`;
  // The stored keyset is checked here, where nothing can be awaited: with the fastest synchronous check.
  let cached: VerifiedKeyset | undefined =
    options.initial === undefined ? undefined : verifyKeyset(options.initial, options.pinnedRoots, unixSeconds(clock), { verify: synchronousVerifier(options.verify) });
  let expiresAt = 0;
  let inFlight: Promise<VerifiedKeyset> | undefined;

  const load = async (): Promise<VerifiedKeyset> => {
    const response = await getLicenseResource(fetchFunction, url, [200]);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const now = unixSeconds(clock);
    const keyset = await verifyWithChecks(options.verify, (verify) => verifyKeyset(bytes, options.pinnedRoots, now, { verify }));
    cached = keyset;
    expiresAt = now + maxAgeSeconds(response.headers.get('cache-control'));
    options.onKeyset?.(bytes, keyset);
    return keyset;
  };

  return {
    get() {
      if (cached !== undefined && unixSeconds(clock) < expiresAt) return Promise.resolve(cached);
      inFlight ??= load().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    current: () => cached,
    freshUntil: () => (cached === undefined ? 0 : expiresAt),
    invalidate() {
      expiresAt = 0;
    },
  };
}
