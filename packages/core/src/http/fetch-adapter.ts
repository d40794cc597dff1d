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
    const body = response.stream ? readableFrom(response.stream) : (response.body ?? null);
    return new Response(body as BodyInit | null, { status: response.status, headers: response.headers });
  };
}

/**
 * A web stream that pulls one chunk whenever the platform wants more (its back-pressure), cancels the
 * producer when the client goes away, and errors (a truncated body) when the producer fails.
 */
function readableFrom(stream: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = stream[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await iterator.next();
          if (step.done) controller.close();
          else controller.enqueue(step.value);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
