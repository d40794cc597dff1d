import { readRequestBody, type ReadBody } from './body';
import { webDecompressors, type Decompressors } from './decompress';
import type { BodySource } from './read-stream';
import { parseQuery, splitRequestTarget } from './request-target';
import { assertHttpResponse, serializeResponse, type SerializedResponse } from './response';
import { compileRouter, type RouteMatch, type Router } from './router';
import { validateRouteTable } from './routes';
import type { HttpRequest, HttpResponse, Middleware, RouteTable } from './types';

/**
 * A request as an adapter hands it to {@link handleHttp}: the raw method, request target and headers,
 * and a way to get the body that is only called when the matched route declares a body.
 *
 * @example
 * ```ts
 * import type { IncomingHttpRequest } from '@tollgate/core/http';
 * const incoming: IncomingHttpRequest = { method: 'GET', url: '/health?verbose=1', headers: { accept: 'application/json' }, body: () => null };
 * ```
 */
export interface IncomingHttpRequest {
  readonly method: string;
  /** The request target: `/path?query`, or an absolute URL. */
  readonly url: string;
  /** Header names in any case; repeated headers as arrays (joined with `", "`). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly remoteAddress?: string;
  /** The body chunks, or `null` when the request has none. Called at most once. */
  body(): BodySource | null | undefined;
}

/**
 * Options shared by {@link handleHttp} and both adapters.
 *
 * @example
 * ```ts
 * import { webDecompressors, type HandleHttpOptions } from '@tollgate/core/http';
 * const options: HandleHttpOptions = { decompressors: webDecompressors, bodyTimeoutMs: 5_000 };
 * ```
 */
export interface HandleHttpOptions {
  /** Decoders by `Content-Encoding` token. Default: {@link webDecompressors} (gzip). */
  readonly decompressors?: Decompressors;
  /** Deadline for a whole request body to arrive, in milliseconds. Default 10 000. */
  readonly bodyTimeoutMs?: number;
  /**
   * When no route of the table serves the path (whatever the method), resolve with `undefined`
   * instead of a 404, without running the table's middleware, so another handler can answer.
   */
  readonly fallthrough?: boolean;
}

/**
 * The default deadline for a request body: generous for 256 KiB on a slow link, short for a stalled one.
 *
 * @example
 * ```ts
 * import { toFetchHandler } from '@tollgate/core';
 * import { defaultBodyTimeoutMs } from '@tollgate/core/http';
 * const handler = toFetchHandler(routes, { bodyTimeoutMs: 2 * defaultBodyTimeoutMs });
 * ```
 */
export const defaultBodyTimeoutMs = 10_000;

const routers = new WeakMap<RouteTable, Router>();

/**
 * Validates a route table and compiles its router once (later calls reuse it). The adapters call it
 * when they are created, so a misconfigured table fails at startup; call it yourself before
 * {@link handleHttp} in a custom adapter.
 *
 * @param table - The route table.
 * @throws TypeError when the table is invalid (see `defineRoutes`).
 * @example
 * ```ts
 * import { prepareRouteTable } from '@tollgate/core/http';
 * prepareRouteTable(routes); // throws now rather than on the first request
 * ```
 */
export function prepareRouteTable(table: RouteTable): void {
  routerFor(table);
}

function routerFor(table: RouteTable): Router {
  let router = routers.get(table);
  if (!router) {
    validateRouteTable(table);
    router = compileRouter(table.routes);
    routers.set(table, router);
  }
  return router;
}

/**
 * The engine both adapters wrap: routes a request, runs the table's then the route's middleware, reads
 * and parses the body, runs the handler and serialises the response. It never rejects and never lets
 * an input produce anything but a rendered response: every error, including a handler's bug or an
 * invalid response, goes through the table's `renderError` (and, should that fail too, a plain 500).
 *
 * @param table - The route table.
 * @param incoming - The request from the adapter.
 * @param options - Decompressors, body deadline, fallthrough.
 * @returns The serialised response, or `undefined` when `fallthrough` is set and no route serves the path.
 * @example
 * ```ts
 * import { handleHttp } from '@tollgate/core/http';
 * const response = await handleHttp(routes, { method: 'GET', url: '/health', headers: {}, body: () => null });
 * ```
 */
export function handleHttp(
  table: RouteTable,
  incoming: IncomingHttpRequest,
  options: HandleHttpOptions & { fallthrough: true },
): Promise<SerializedResponse | undefined>;
export function handleHttp(
  table: RouteTable,
  incoming: IncomingHttpRequest,
  options?: HandleHttpOptions & { fallthrough?: false },
): Promise<SerializedResponse>;
export function handleHttp(
  table: RouteTable,
  incoming: IncomingHttpRequest,
  options?: HandleHttpOptions,
): Promise<SerializedResponse | undefined>;
export async function handleHttp(
  table: RouteTable,
  incoming: IncomingHttpRequest,
  options: HandleHttpOptions = {},
): Promise<SerializedResponse | undefined> {
  const extraHeaders = new WeakMap<object, Record<string, string>>();
  const render = (error: unknown): HttpResponse => renderSafely(table, error, extraHeaders);
  const method = String(incoming.method);
  try {
    const router = routerFor(table);
    const headers = normalizeHeaders(incoming.headers);
    let path = '';
    let query: Record<string, string> = Object.create(null) as Record<string, string>;
    let refusal: unknown;
    let match: RouteMatch | undefined;
    try {
      const target = splitRequestTarget(String(incoming.url));
      path = target.path;
      if (options.fallthrough && !router.servesPath(path)) return undefined;
      query = parseQuery(target.search);
      match = router.match(method, path);
    } catch (error) {
      if (options.fallthrough && !router.servesPath(path)) return undefined;
      refusal = error;
    }
    if (match?.kind === 'refusal') {
      refusal = match.error;
      if (match.allow) extraHeaders.set(match.error, { allow: match.allow.join(', ') });
    }
    const request: HttpRequest = {
      method,
      path,
      params: match?.kind === 'route' ? match.params : (Object.create(null) as Record<string, string>),
      query,
      headers,
      body: undefined,
      ...(incoming.remoteAddress === undefined ? {} : { remoteAddress: incoming.remoteAddress }),
    };
    const bodyOptions = {
      decompressors: options.decompressors ?? webDecompressors,
      bodyTimeoutMs: options.bodyTimeoutMs ?? defaultBodyTimeoutMs,
    };
    const routeStage = async (): Promise<HttpResponse> => {
      if (refusal !== undefined || match?.kind !== 'route') throw refusal;
      const { route } = match;
      return runChain(route.middleware ?? [], request, render, async () => {
        let read: ReadBody = { body: undefined };
        if (route.body) read = await readRequestBody(route.body, headers, incoming.body(), bodyOptions);
        return route.handler({ ...request, ...read });
      });
    };
    const response = await runChain(table.middleware ?? [], request, render, routeStage);
    return serializeSafely(response, method, render);
  } catch (error) {
    return serializeSafely(render(error), method, render);
  }
}

/**
 * Runs `layers` around `terminal`. Every step is guarded: whatever a layer or the terminal throws, or an
 * invalid value it returns, comes back rendered, which is why `next()` never throws.
 */
function runChain(
  layers: readonly Middleware[],
  request: HttpRequest,
  render: (error: unknown) => HttpResponse,
  terminal: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const dispatch = (index: number): Promise<HttpResponse> => {
    const layer = layers[index];
    let nextResult: Promise<HttpResponse> | undefined;
    // Memoised: a second call to next() must not run the handler (and read the body) twice.
    const next = (): Promise<HttpResponse> => (nextResult ??= dispatch(index + 1));
    return guarded(() => (layer ? layer(request, next) : terminal()), render);
  };
  return dispatch(0);
}

async function guarded(step: () => HttpResponse | Promise<HttpResponse>, render: (error: unknown) => HttpResponse): Promise<HttpResponse> {
  try {
    const response = await step();
    assertHttpResponse(response);
    return response;
  } catch (error) {
    return render(error);
  }
}

const internalError: HttpResponse = Object.freeze({
  status: 500,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  body: 'Internal error.',
});

function renderSafely(table: RouteTable, error: unknown, extraHeaders: WeakMap<object, Record<string, string>>): HttpResponse {
  let rendered: HttpResponse;
  try {
    rendered = table.renderError(error);
    assertHttpResponse(rendered);
  } catch {
    return internalError;
  }
  const extra = typeof error === 'object' && error !== null ? extraHeaders.get(error) : undefined;
  return extra ? { ...rendered, headers: { ...rendered.headers, ...extra } } : rendered;
}

function serializeSafely(response: HttpResponse, method: string, render: (error: unknown) => HttpResponse): SerializedResponse {
  try {
    return serializeResponse(response, method);
  } catch (error) {
    try {
      return serializeResponse(render(error), method);
    } catch {
      return serializeResponse(internalError, method);
    }
  }
}

function normalizeHeaders(raw: IncomingHttpRequest['headers']): Record<string, string> {
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return headers;
}
