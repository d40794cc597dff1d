import { decodeLicenseMessage, isArtifactError, licenseProtocolHeader, licenseProtocolVersion } from '@tollgate/core';
import { LicenseRequestError } from './errors';

/** The `fetch` the SDK uses: the platform's by default, injectable for tests, proxies and retries. */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * The delay of a `Retry-After` header in seconds: only the delta-seconds form the server sends (digits);
 * an absent, empty or date-valued header gives `undefined`, never 0.
 */
function retryAfterHeaderSeconds(value: string | null): number | undefined {
  if (value === null || !/^\s*\d{1,10}\s*$/.test(value)) return undefined;
  return Number(value);
}

/**
 * GETs a client-protocol URL with `X-LS-Proto: 1` and returns the response when its status is one of
 * `expected`; otherwise decodes the CBOR error body into a {@link LicenseRequestError}.
 *
 * @internal
 */
export async function getLicenseResource(fetchFunction: FetchFunction, url: string, expected: readonly number[]): Promise<Response> {
  let response: Response;
  try {
    response = await fetchFunction(url, { method: 'GET', headers: { [licenseProtocolHeader]: String(licenseProtocolVersion), accept: 'application/cbor, application/cbor-seq' } });
  } catch (error) {
    throw new LicenseRequestError('network_error', `The license server is unreachable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (expected.includes(response.status)) return response;
  const headerRetry = retryAfterHeaderSeconds(response.headers.get('retry-after'));
  const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  try {
    const body = decodeLicenseMessage('error-body', bytes);
    const retryAfterSeconds = body.retryAfter ?? headerRetry;
    throw new LicenseRequestError(body.code, body.message ?? `License server error ${body.code}.`, {
      status: response.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  } catch (error) {
    if (!isArtifactError(error)) throw error;
    throw new LicenseRequestError('unexpected_response', `Unexpected HTTP ${response.status} from the license server.`, { status: response.status });
  }
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
