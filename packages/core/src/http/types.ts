/**
 * The plain-data vocabulary of the HTTP layer: requests, responses, handlers, middleware, body specs,
 * routes and route tables. Nothing here depends on a framework; the adapters translate to and from it.
 *
 * @module
 */
import type { DecodeOptions } from '../cbor';

/**
 * Methods a route can be declared for. `HEAD` is also served by the `GET` route of the same path.
 *
 * @example
 * ```ts
 * import type { HttpMethod } from '@tollgate/core/http';
 * const method: HttpMethod = 'POST';
 * ```
 */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * A request as handlers and middleware see it.
 *
 * - `headers` names are lower-case; a header sent several times is joined with `", "` as HTTP allows.
 * - `path` is the path as sent (percent-encoding intact, no query); `params` are the decoded values of
 *   the route's `:name` segments.
 * - `query` holds each decoded query key once; a key sent twice is refused before any handler runs.
 * - `body` is `undefined` in middleware (it is read after middleware, so a refused request costs nothing)
 *   and in routes without a body spec; in handlers it is the parsed body the route's {@link BodySpec}
 *   describes.
 * - `rawBody` holds the decoded (decompressed) bytes when the body spec sets `keepRaw`, e.g. to check a
 *   webhook HMAC over exactly the bytes that were parsed.
 *
 * @example
 * ```ts
 * import type { HttpRequest } from '@tollgate/core';
 * const refId = (req: HttpRequest<{ refId: string }>) => req.params.refId;
 * ```
 */
export interface HttpRequest<Params extends Record<string, string> = Record<string, string>, Body = unknown> {
  readonly method: string;
  readonly path: string;
  readonly params: Params;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Body;
  readonly rawBody?: Uint8Array;
  /** The client address the adapter resolved (socket address by default), when known. */
  readonly remoteAddress?: string;
}

/**
 * A response as handlers return it. The body is serialised by the adapters:
 * - `Uint8Array`: sent as-is (`application/octet-stream` unless the handler sets `content-type`);
 * - `string`: sent as UTF-8 (`text/plain; charset=utf-8` unless set);
 * - `undefined`: no body;
 * - an {@link HttpStreamBody} (an async iterable of chunks): streamed chunk by chunk with
 *   `transfer-encoding: chunked` and no `content-length` (`application/octet-stream` unless set). The
 *   next chunk is pulled only when the client has taken the previous ones (back-pressure); when the
 *   client disconnects, or stalls longer than the adapter's `streamStallTimeoutMs`, the iterator's
 *   `return()` runs so the producer can release what it holds. A producer that throws mid-stream
 *   aborts the connection (the status is already sent, so the client sees a truncated body, never a
 *   complete-looking one);
 * - anything else: serialised once with `JSON.stringify` (`application/json; charset=utf-8` unless set).
 *
 * Header names may be given in any case; they are sent lower-case. No body is ever sent for 204, 304
 * or a HEAD request (a stream is then closed without being read).
 *
 * @example
 * ```ts
 * import type { HttpResponse } from '@tollgate/core';
 * const created: HttpResponse = { status: 201, headers: { location: '/ref/abc' }, body: { refId: 'abc' } };
 * ```
 */
export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A streamed response body: chunks as `Uint8Array` or `string` (sent as UTF-8), pulled one at a time.
 * An async generator is the natural producer; its `finally` runs on completion, failure and client
 * disconnect alike.
 *
 * @example
 * ```ts
 * import type { HttpResponse } from '@tollgate/core';
 * import type { HttpStreamBody } from '@tollgate/core/http';
 * async function* lines(): HttpStreamBody { yield '{"n":1}\n'; yield '{"n":2}\n'; }
 * const response: HttpResponse = { status: 200, headers: { 'content-type': 'application/x-ndjson' }, body: lines() };
 * ```
 */
export type HttpStreamBody = AsyncIterable<Uint8Array | string>;

/**
 * Describes the body a route accepts. Routes without a body spec never read the body.
 *
 * - `type`: `'json'` (`application/json`; a `charset` parameter, if given, must be `utf-8`), `'cbor'`
 *   (`application/cbor`, decoded with the strict canonical decoder), or `'raw'` (the bytes as a
 *   `Uint8Array`; any content type unless `contentTypes` narrows it).
 * - `maxBytes`: cap on the decoded body (after decompression).
 * - `maxCompressedBytes`: cap on the wire size of a `Content-Encoding`d body (defaults to `maxBytes`).
 * - `optional`: an empty body is accepted and yields `undefined` (otherwise it is `malformed_body`).
 * - `keepRaw`: also expose the decoded bytes as `request.rawBody`.
 * - `contentTypes`: accepted media types (lower-case, without parameters), replacing the type's default.
 * - `cborOptions`: options for the strict CBOR decoder; its input and string limits default to `maxBytes`.
 *
 * @example
 * ```ts
 * import type { BodySpec } from '@tollgate/core/http';
 * const clientBody: BodySpec = { type: 'cbor', maxBytes: 16 * 1024, maxCompressedBytes: 64 * 1024 };
 * ```
 */
export interface BodySpec {
  readonly type: 'json' | 'cbor' | 'raw';
  readonly maxBytes: number;
  readonly maxCompressedBytes?: number;
  readonly optional?: boolean;
  readonly keepRaw?: boolean;
  readonly contentTypes?: readonly string[];
  readonly cborOptions?: DecodeOptions;
}

/**
 * The `params` object a path pattern produces.
 *
 * @example
 * ```ts
 * import type { PathParams } from '@tollgate/core/http';
 * type P = PathParams<'/refs/:refId/receipts/:receiptId'>; // { refId: string } & { receiptId: string }
 * ```
 */
export type PathParams<Path extends string> = string extends Path
  ? Record<string, string>
  : Path extends `${string}:${infer Name}/${infer Rest}`
    ? { [K in Name]: string } & PathParams<`/${Rest}`>
    : Path extends `${string}:${infer Name}`
      ? { [K in Name]: string }
      : Record<never, string>;

/**
 * The parsed body a {@link BodySpec} yields in the handler: `unknown` for JSON and CBOR (validate it),
 * `Uint8Array` for raw, `undefined` without a spec; optional bodies add `undefined`.
 *
 * @example
 * ```ts
 * import type { BodyOf } from '@tollgate/core/http';
 * type B = BodyOf<{ type: 'raw'; maxBytes: 256; optional: true }>; // Uint8Array | undefined
 * ```
 */
export type BodyOf<Spec extends BodySpec | undefined> = Spec extends BodySpec
  ? (Spec['type'] extends 'raw' ? Uint8Array : unknown) | (Spec['optional'] extends true ? undefined : never)
  : undefined;

/**
 * Turns a request into a response. Whatever it throws is rendered by the table's `renderError`.
 *
 * @example
 * ```ts
 * import type { Handler } from '@tollgate/core';
 * const health: Handler = () => ({ status: 200, body: { ok: true } });
 * ```
 */
export type Handler<Params extends Record<string, string> = Record<string, string>, Body = unknown> = (
  request: HttpRequest<Params, Body>,
) => HttpResponse | Promise<HttpResponse>;

/**
 * Wraps everything after it. `next()` **never throws**: an error thrown further down (a 404, a 405, a
 * refused body, a failing handler) comes back already rendered by the table's `renderError`, so a
 * middleware can decorate every response (CORS headers, request ids) by adding headers to what `next()`
 * returns. Calling `next()` twice returns the same response; not calling it short-circuits (an OPTIONS
 * preflight answered by a CORS middleware). The request body is not read yet when middleware runs.
 *
 * @example
 * ```ts
 * import type { Middleware } from '@tollgate/core/http';
 * const noStore: Middleware = async (_req, next) => {
 *   const response = await next();
 *   return { ...response, headers: { ...response.headers, 'cache-control': 'no-store' } };
 * };
 * ```
 */
export type Middleware = (request: HttpRequest, next: () => Promise<HttpResponse>) => Promise<HttpResponse>;

/**
 * One endpoint: a method, a path pattern with `:name` segments, an optional body spec, optional
 * route-level middleware (run after the table's) and the handler. Declare it with `route(...)` to get
 * `params` and `body` typed.
 *
 * @example
 * ```ts
 * import type { Route } from '@tollgate/core';
 * const revoke: Route<'/ref/:refId'> = { method: 'DELETE', path: '/ref/:refId', handler: (req) => ({ status: 204 }) };
 * ```
 */
export interface Route<Path extends string = string, Spec extends BodySpec | undefined = BodySpec | undefined> {
  readonly method: HttpMethod;
  readonly path: Path;
  readonly body?: Spec;
  readonly middleware?: readonly Middleware[];
  // Method syntax on purpose: a route with precise params stays assignable to `Route` in a table.
  handler(request: HttpRequest<PathParams<Path>, BodyOf<Spec>>): HttpResponse | Promise<HttpResponse>;
}

/**
 * A route table: plain data that both adapters (`toFetchHandler`, `toExpress`) serve. `renderError`
 * turns anything thrown (transport refusals, domain errors, bugs) into the table's error envelope; it
 * must not leak internals of unknown errors (should it throw, a plain 500 is sent). Treat a table as
 * immutable once served: its router is compiled once.
 *
 * @example
 * ```ts
 * import { renderAdminError, type RouteTable } from '@tollgate/core';
 * const admin: RouteTable = { renderError: renderAdminError, routes: [] };
 * ```
 */
export interface RouteTable {
  readonly routes: readonly Route[];
  readonly renderError: (error: unknown) => HttpResponse;
  readonly middleware?: readonly Middleware[];
}
