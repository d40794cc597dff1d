import { licenseProtocolHeader, licenseProtocolVersion } from '@tollgate/core/license';
import { defaultRequestTimeoutMs, licenseErrorOf, networkError, requestTimeoutOf, withDeadline, type FetchFunction } from './protocol-http';

export type { FetchFunction } from './protocol-http';

/** Statuses whose `Response` may not carry a body (the constructor refuses one). */
const nullBodyStatuses = new Set([204, 205, 304]);

/**
 * GETs a client-protocol URL with `X-LS-Proto: 1` and returns the response when its status is one of
 * `expected`; otherwise decodes the CBOR error body into a `LicenseRequestError` (the mapping the
 * POST calls share, in `protocol-http.ts`). The body is read within the deadline (`timeoutMs`, 30 s by
 * default) and handed back buffered, so a caller's later `arrayBuffer()` cannot hang; no answer in time
 * is `network_error`. `cache: 'no-cache'` makes a browser revalidate instead of answering from its HTTP
 * cache (a forced keyset refetch must reach the server).
 *
 * @internal
 */
export async function getLicenseResource(
  fetchFunction: FetchFunction,
  url: string,
  expected: readonly number[],
  options: { timeoutMs?: number; cache?: RequestCache } = {},
): Promise<Response> {
  return withDeadline(requestTimeoutOf({ requestTimeoutMs: options.timeoutMs ?? defaultRequestTimeoutMs }), async (signal) => {
    let response: Response;
    const headers = { [licenseProtocolHeader]: String(licenseProtocolVersion), accept: 'application/cbor, application/cbor-seq' };
    try {
      response = await fetchFunction(url, { method: 'GET', headers, signal, ...(options.cache === undefined ? {} : { cache: options.cache }) });
    } catch (error) {
      throw networkError(error);
    }
    if (!expected.includes(response.status)) throw await licenseErrorOf(response);
    let body: ArrayBuffer;
    try {
      body = await response.arrayBuffer();
    } catch (error) {
      // The connection broke mid-body: as unreachable as no answer at all.
      throw networkError(error);
    }
    return new Response(nullBodyStatuses.has(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  });
}

/**
 * Seconds a response may be reused, from `Cache-Control` (`max-age`; 0 for `no-store`, `no-cache` or
 * none), capped at one day.
 *
 * @param cacheControl - The header value.
 * @returns Seconds.
 *
 * @example
 * ```ts
 * import { maxAgeSeconds } from '@tollgate/client-sdk';
 * maxAgeSeconds('public, max-age=300'); // 300
 * ```
 */
export function maxAgeSeconds(cacheControl: string | null): number {
  if (cacheControl === null || /\b(no-store|no-cache)\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d{1,10})\b/i.exec(cacheControl);
  return match === null ? 0 : Math.min(Number(match[1]), 86_400);
}
