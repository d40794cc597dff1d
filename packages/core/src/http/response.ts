import type { HttpResponse, HttpStreamBody } from './types';

/**
 * A response ready for the wire: lower-case headers (with `content-type` and `content-length` filled
 * in) and the body as bytes, or `undefined` when none may be sent. What `handleHttp` resolves to.
 *
 * @example
 * ```ts
 * import { handleHttp, type SerializedResponse } from '@tollgate/core/http';
 * const out: SerializedResponse = await handleHttp(routes, { method: 'GET', url: '/health', headers: {}, body: () => null });
 * ```
 */
export interface SerializedResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /**
   * A streamed body (then `body` is `undefined` and there is no `content-length`): chunks as bytes,
   * pulled one at a time. Adapters must call its iterator's `return()` when they stop early.
   */
  stream?: AsyncIterable<Uint8Array>;
}

const headerName = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
// Field values: visible ASCII, obs-text, space and tab. CR, LF and NUL would split or end the header.
const headerValue = /^[\t\x20-\x7e\x80-\xff]*$/;
const utf8 = new TextEncoder();

/**
 * Checks that a handler or middleware returned a well-formed {@link HttpResponse}.
 *
 * @param value - What was returned.
 * @throws TypeError when it is not an object with an integer status 200–599 and string headers.
 */
export function assertHttpResponse(value: unknown): asserts value is HttpResponse {
  if (typeof value !== 'object' || value === null) throw new TypeError('a handler must return an HttpResponse object');
  const { status, headers } = value as HttpResponse;
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new TypeError(`invalid response status ${String(status)}`);
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) throw new TypeError('response headers must be an object');
}

/**
 * Serialises a response once: JSON-able bodies with `JSON.stringify`, strings as UTF-8, `Uint8Array`
 * as-is. Drops the body for HEAD requests (keeping the `content-length` a GET would get) and for 204
 * and 304 responses.
 *
 * @param response - The response from the handler chain.
 * @param method - The request method.
 * @returns The wire form.
 * @throws TypeError for an invalid status, an invalid header name or value, or a body that cannot be
 *   serialised (a `BigInt`, a cycle); the engine renders that as an internal error.
 */
export function serializeResponse(response: HttpResponse, method: string): SerializedResponse {
  assertHttpResponse(response);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!headerName.test(lower)) throw new TypeError(`invalid response header name ${JSON.stringify(name)}`);
    if (typeof value !== 'string' || !isValidHeaderValue(value)) throw new TypeError(`invalid value for response header ${lower}`);
    // The body is always sent whole with a content-length; a handler's transfer-encoding would contradict it.
    if (lower !== 'transfer-encoding') headers[lower] = value;
  }
  if (isStreamBody(response.body)) return serializeStream(response.status, headers, response.body, method);
  const [body, defaultType] = encodeBody(response.body);
  if (response.status === 204 || response.status === 304) {
    delete headers['content-length'];
    return { status: response.status, headers: { ...headers }, body: undefined };
  }
  if (body !== undefined && defaultType !== undefined) headers['content-type'] ??= defaultType;
  headers['content-length'] = String(body?.byteLength ?? 0);
  return { status: response.status, headers: { ...headers }, body: method === 'HEAD' ? undefined : body };
}

// Long header values that passed the check. Cached answers (a 402's PAYMENT-REQUIRED is ~4 KB) repeat
// the same string on every request; V8 keeps a string's hash, so the lookup is cheaper than the scan.
const validLongValues = new Set<string>();
const longValue = 256;

function isValidHeaderValue(value: string): boolean {
  if (value.length < longValue) return headerValue.test(value);
  if (validLongValues.has(value)) return true;
  if (!headerValue.test(value)) return false;
  if (validLongValues.size >= 1_024) validLongValues.clear();
  validLongValues.add(value);
  return true;
}

function encodeBody(payload: unknown): [Uint8Array | undefined, string | undefined] {
  if (payload === undefined) return [undefined, undefined];
  if (payload instanceof Uint8Array) return [payload, 'application/octet-stream'];
  if (typeof payload === 'string') return [utf8.encode(payload), 'text/plain; charset=utf-8'];
  const json = JSON.stringify(payload) as string | undefined;
  if (json === undefined) throw new TypeError('response body is not JSON-serialisable');
  return [utf8.encode(json), 'application/json; charset=utf-8'];
}

/**
 * Whether a response body is a stream: an async iterable that is not bytes or a string.
 *
 * @param body - A handler's response body.
 * @returns True for an {@link HttpStreamBody}.
 */
export function isStreamBody(body: unknown): body is HttpStreamBody {
  return typeof body === 'object' && body !== null && !(body instanceof Uint8Array) && typeof (body as Partial<HttpStreamBody>)[Symbol.asyncIterator] === 'function';
}

function serializeStream(status: number, headers: Record<string, string>, body: HttpStreamBody, method: string): SerializedResponse {
  // The length is unknown until the end: a handler's content-length would contradict the chunking.
  delete headers['content-length'];
  if (status === 204 || status === 304 || method === 'HEAD') {
    discardStream(body);
    return { status, headers: { ...headers }, body: undefined };
  }
  headers['content-type'] ??= 'application/octet-stream';
  return { status, headers: { ...headers }, body: undefined, stream: bytesOf(body) };
}

/** Closes a stream that will never be sent, so a producer holding a resource (a cursor) releases it. */
function discardStream(body: HttpStreamBody): void {
  try {
    void Promise.resolve(body[Symbol.asyncIterator]().return?.()).catch(() => undefined);
  } catch {
    // A stream that cannot be closed is simply abandoned.
  }
}

/** The chunks as UTF-8 bytes, empty ones skipped; anything but bytes or a string fails the stream. */
async function* bytesOf(body: HttpStreamBody): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
    if (!(bytes instanceof Uint8Array)) throw new TypeError('a streamed response body must yield Uint8Array or string chunks');
    if (bytes.byteLength > 0) yield bytes;
  }
}
