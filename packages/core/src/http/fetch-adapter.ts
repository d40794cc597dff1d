import { handleHttp, prepareRouteTable, type HandleHttpOptions } from './engine';
import type { RouteTable } from './types';

/**
 * Options of {@link toFetchHandler}.
 *
 * @example
 * ```ts
 * import type { FetchHandlerOptions } from '@tollgate/core';
 * const options: FetchHandlerOptions = { remoteAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined };
 * ```
 */
export interface FetchHandlerOptions extends Omit<HandleHttpOptions, 'fallthrough'> {
  /**
   * Resolves the client address, which the standard `Request` does not carry: for example from the
   * platform's own header (`cf-connecting-ip`) or from a proxy header you trust. Default: unknown.
   */
  readonly remoteAddress?: (request: Request) => string | undefined;
}

/**
 * Serves a route table as a standard fetch handler, for Hono, Next.js route handlers, Cloudflare
 * Workers, Deno, Bun, or Node's own `fetch`-style servers. Platform-neutral: only `Request`, `Response`
 * and web streams are used.
 *
 * @param table - The route table (validated now, so a bad table fails at startup).
 * @param options - Decompressors (default gzip only), body deadline, client address resolver.
 * @returns A function from `Request` to `Response` that never rejects.
 * @example
 * ```ts
 * import { toFetchHandler } from '@tollgate/core';
 * import { routes } from './routes';
 * export default { fetch: toFetchHandler(routes) }; // a Cloudflare Worker
 * ```
 */
export function toFetchHandler(table: RouteTable, options: FetchHandlerOptions = {}): (request: Request) => Promise<Response> {
  prepareRouteTable(table);
  const { remoteAddress: resolveAddress, ...engineOptions } = options;
  return async (request) => {
    let remoteAddress: string | undefined;
    try {
      remoteAddress = resolveAddress?.(request);
    } catch {
      // A failing resolver leaves the address unknown rather than failing the request.
    }
    const response = await handleHttp(
      table,
      {
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
        ...(remoteAddress === undefined ? {} : { remoteAddress }),
        body: () => request.body,
      },
      { ...engineOptions, fallthrough: false },
    );
    return new Response((response.body ?? null) as BodyInit | null, { status: response.status, headers: response.headers });
  };
}
