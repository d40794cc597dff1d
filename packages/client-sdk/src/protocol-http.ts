import { decodeLicenseMessage, inspectArtifact, isArtifactError, licenseProtocolHeader, licenseProtocolVersion, type InspectedArtifact } from '@tollgate/core/license';
import { LicenseRequestError } from './errors';

/** The `fetch` the SDK uses: the platform's by default, injectable for tests, proxies and retries. */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

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
  /**
   * Milliseconds one request may take, answer body included, before it counts as `network_error`
   * (so the life cycle treats it as an unreachable server): 30,000 by default, 1 to 2,147,483,647.
   * Each resend of an idempotent call gets its own deadline.
   */
  readonly requestTimeoutMs?: number;
}

/** How long a request may take by default: long enough for a slow link, short enough not to wedge the client. */
export const defaultRequestTimeoutMs = 30_000;

/** The request timeout of `options`, checked (a bad value is a programming error, thrown before any request). @internal */
export function requestTimeoutOf(options: { readonly requestTimeoutMs?: number | undefined }): number {
  const ms = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
  // setTimeout fires at once for delays above 2^31 - 1, which would time every request out.
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > 2_147_483_647) throw new TypeError('requestTimeoutMs is an integer from 1 to 2147483647');
  return ms;
}

/**
 * Runs one request under a deadline: `work` gets an `AbortSignal` to hand to `fetch`, and the result
 * is abandoned with `network_error` when the deadline passes first, even when `work` ignores the signal
 * (an injected fetch, a body stream that never ends). The timer is cleared when the request settles and
 * unref'd meanwhile, so it never keeps a process alive by itself.
 *
 * @internal
 */
export async function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new Error(`no answer within ${timeoutMs} ms`);
      reason.name = 'TimeoutError';
      // Reject before aborting, so the race settles with the timeout rather than the fetch's AbortError.
      reject(networkError(reason));
      controller.abort(reason);
    }, timeoutMs);
    (timer as unknown as { unref?: () => void }).unref?.();
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
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

/**
 * Reads the kind of a 200 body that must be a signed envelope. A body that is no COSE_Sign1 at all (an
 * HTML page from a TLS-inspecting proxy, a captive portal, a WAF) says nothing about the license: it is
 * `unexpected_response`, which the life cycle treats as an unreachable server (grace), like a malformed
 * heartbeat answer. An envelope that decodes but fails verification is still refused by the verifier.
 *
 * @internal
 */
export function inspectEnvelope(bytes: Uint8Array, status: number): InspectedArtifact {
  try {
    return inspectArtifact(bytes);
  } catch (error) {
    if (!isArtifactError(error) || error.code !== 'bad_encoding') throw error;
    throw new LicenseRequestError('unexpected_response', `The license server sent HTTP ${status} without a signed envelope: ${error.message}`, { status, cause: error });
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
 * {@link licenseErrorOf} maps, a failed fetch or one without a whole answer within `options.requestTimeoutMs`
 * `network_error` (after `extras.resends` resends).
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
  const timeoutMs = requestTimeoutOf(options);
  const init = {
    method: 'POST',
    headers: { ...extras.headers, [licenseProtocolHeader]: String(licenseProtocolVersion), 'content-type': 'application/cbor', accept: 'application/cbor' },
    body: body as BodyInit,
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await postOnce(options, path, init, expected, timeoutMs);
    } catch (error) {
      const lost = error instanceof LicenseRequestError && error.code === 'network_error';
      if (!lost || attempt >= (extras.resends ?? 0)) throw error;
    }
  }
}

function postOnce(options: LicenseServerOptions, path: string, init: RequestInit, expected: number, timeoutMs: number): Promise<{ readonly status: number; readonly bytes: Uint8Array }> {
  // The deadline covers the body too: a server that sends headers and then stalls is as hung as one that never answers.
  return withDeadline(timeoutMs, async (signal) => {
    let response: Response;
    try {
      response = await fetchOf(options)(endpointUrl(options.baseUrl, path), { ...init, signal });
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
  });
}
