import { decodeLicenseMessage, isArtifactError, licenseProtocolHeader, licenseProtocolVersion } from '@tollgate/core';
import { LicenseRequestError } from './errors';
import type { FetchFunction } from './http';

/**
 * Where and how the client-protocol calls reach the license server.
 *
 * @example
 * ```ts
 * import type { LicenseServerOptions } from '@tollgate/client-sdk';
 * const server: LicenseServerOptions = { baseUrl: 'https://license.example.com' };
 * ```
 */
export interface LicenseServerOptions {
  /** The license server, e.g. `https://license.example.com`. */
  readonly baseUrl: string;
  /** The platform's `fetch` by default. */
  readonly fetch?: FetchFunction;
}

/** The platform's `fetch` unless one is injected (looked up per call, so a polyfill installed later counts). */
export function fetchOf(options: { readonly fetch?: FetchFunction | undefined }): FetchFunction {
  return options.fetch ?? ((input, init) => globalThis.fetch(input, init));
}

/** `baseUrl` + `path`, tolerating a trailing slash on the base. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * The delay of a `Retry-After` header in seconds: only the delta-seconds form the server sends (digits);
 * an absent, empty or date-valued header gives `undefined`, never 0.
 */
function retryAfterHeaderSeconds(value: string | null): number | undefined {
  return value !== null && /^\s*\d{1,10}\s*$/.test(value) ? Number(value) : undefined;
}

/**
 * Turns a response whose status the caller did not expect into the error to throw: the CBOR error body
 * becomes a {@link LicenseRequestError} with the server's numeric code, HTTP status and `retry_after`
 * (body key 2, else the `Retry-After` header); a body that is no error map becomes `unexpected_response`.
 *
 * @internal
 */
export async function licenseErrorOf(response: Response): Promise<LicenseRequestError> {
  const headerRetry = retryAfterHeaderSeconds(response.headers.get('retry-after'));
  const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  try {
    const decoded = decodeLicenseMessage('error-body', bytes);
    const retryAfterSeconds = decoded.retryAfter ?? headerRetry;
    return new LicenseRequestError(decoded.code, decoded.message ?? `License server error ${decoded.code}.`, {
      status: response.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  } catch (cause) {
    if (!isArtifactError(cause)) throw cause;
    return new LicenseRequestError('unexpected_response', `Unexpected HTTP ${response.status} from the license server.`, {
      status: response.status,
      ...(headerRetry === undefined ? {} : { retryAfterSeconds: headerRetry }),
    });
  }
}

/** A transport failure (no response at all) as the SDK reports it. */
export function networkError(error: unknown): LicenseRequestError {
  return new LicenseRequestError('network_error', `The license server is unreachable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/** Extras of one {@link postLicenseMessage}. */
export interface PostExtras {
  /** More request headers (`Idempotency-Key`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * How many times to resend the **identical** bytes after a network failure (0 by default). Only for
   * routes under an `Idempotency-Key`: the server answers a resend of a request it already handled with
   * the byte-identical response, so a lost answer costs neither a second seat nor a spent nonce.
   */
  readonly resends?: number;
}

/**
 * POSTs one canonical CBOR message with `X-LS-Proto: 1` (and `extras.headers`, e.g. `Idempotency-Key`)
 * and returns the body bytes when the status is `expected`; any other status throws the error
 * {@link licenseErrorOf} maps, a failed fetch `network_error` (after `extras.resends` resends).
 *
 * @internal
 */
export async function postLicenseMessage(
  options: LicenseServerOptions,
  path: string,
  body: Uint8Array,
  expected: number,
  extras: PostExtras = {},
): Promise<{ readonly status: number; readonly bytes: Uint8Array }> {
  const init = {
    method: 'POST',
    headers: { ...extras.headers, [licenseProtocolHeader]: String(licenseProtocolVersion), 'content-type': 'application/cbor', accept: 'application/cbor' },
    body: body as BodyInit,
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await postOnce(options, path, init, expected);
    } catch (error) {
      const lost = error instanceof LicenseRequestError && error.code === 'network_error';
      if (!lost || attempt >= (extras.resends ?? 0)) throw error;
    }
  }
}

async function postOnce(options: LicenseServerOptions, path: string, init: RequestInit, expected: number): Promise<{ readonly status: number; readonly bytes: Uint8Array }> {
  let response: Response;
  try {
    response = await fetchOf(options)(endpointUrl(options.baseUrl, path), init);
  } catch (error) {
    throw networkError(error);
  }
  if (response.status !== expected) throw await licenseErrorOf(response);
  try {
    return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
  } catch (error) {
    // The connection broke mid-body: as unreachable as no answer at all.
    throw networkError(error);
  }
}
