import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeDecompressors } from './node-decompress';
import { closeQuietly, pumpStream } from './node-stream-writer';
import { handleHttp, prepareRouteTable, type HandleHttpOptions } from './engine';
import type { SerializedResponse } from './response';
import type { RouteTable } from './types';

/**
 * Options of {@link toExpress}.
 *
 * @example
 * ```ts
 * import type { ExpressAdapterOptions } from '@tollgate/core/node';
 * const options: ExpressAdapterOptions = { fallthrough: true, bodyTimeoutMs: 5_000 };
 * ```
 */
export interface ExpressAdapterOptions extends HandleHttpOptions {
  /**
   * How long a streamed response may wait for a client that stopped reading (a full socket buffer that
   * never drains) before the connection is closed and the stream's producer released. Default
   * {@link defaultStreamStallTimeoutMs}.
   */
  readonly streamStallTimeoutMs?: number;
  /**
   * Resolves the client address. Default: the socket's peer address. Behind a proxy, pass a resolver
   * you trust, e.g. `(req) => (req as express.Request).ip` with Express's `trust proxy` configured.
   */
  readonly remoteAddress?: (request: IncomingMessage) => string | undefined;
}

/**
 * A Node request listener that is also Express middleware: `(req, res, next?)`. It needs nothing from
 * Express, so it also mounts on `http.createServer`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toExpress, type NodeRequestHandler } from '@tollgate/core/node';
 * const listener: NodeRequestHandler = toExpress(routes);
 * createServer(listener).listen(8080);
 * ```
 */
export type NodeRequestHandler = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * Serves a route table as Express middleware (or a plain `node:http` listener). It reads the raw
 * request stream itself, so mount it without `express.json()` or other body parsers in front of it.
 * Paths are matched against `req.url`, which Express makes relative to the mount point.
 *
 * With `fallthrough: true`, a request whose path no route of this table serves goes to `next()`, so
 * several tables (license client, admin, webhooks) can be mounted on one app, each with its own error
 * envelope. Decompression defaults to {@link nodeDecompressors} (gzip and brotli).
 *
 * When a response is sent before the request body was fully received (a 413, a 415, a route that
 * reads no body), the connection is closed after the response instead of reading the rest.
 *
 * @param table - The route table (validated now, so a bad table fails at startup).
 * @param options - Fallthrough, decompressors, body deadline, client address resolver.
 * @returns The middleware.
 * @example
 * ```ts
 * import express from 'express';
 * import { toExpress } from '@tollgate/core/node';
 * const app = express();
 * app.use(toExpress(adminRoutes, { fallthrough: true }));
 * app.use(toExpress(licenseClientRoutes));
 * app.listen(8080);
 * ```
 */
export function toExpress(table: RouteTable, options: ExpressAdapterOptions = {}): NodeRequestHandler {
  prepareRouteTable(table);
  const { remoteAddress: resolveAddress, fallthrough = false, streamStallTimeoutMs = defaultStreamStallTimeoutMs, ...engineOptions } = options;
  const decompressors = engineOptions.decompressors ?? nodeDecompressors;
  return (request, response, next) => {
    let remoteAddress: string | undefined;
    try {
      remoteAddress = resolveAddress ? resolveAddress(request) : request.socket.remoteAddress;
    } catch {
      // A failing resolver leaves the address unknown rather than failing the request.
    }
    const incoming = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      headers: request.headers,
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
      body: () => nodeBodySource(request),
    };
    handleHttp(table, incoming, { ...engineOptions, decompressors, fallthrough: fallthrough && next !== undefined })
      .then((serialized) => (serialized === undefined ? next?.() : writeResponse(request, response, serialized, streamStallTimeoutMs)))
      .catch(() => writeResponse(request, response, { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: undefined }));
  };
}

/**
 * How long a streamed response waits for a stalled client by default (see
 * {@link ExpressAdapterOptions.streamStallTimeoutMs}).
 *
 * @example
 * ```ts
 * import { defaultStreamStallTimeoutMs, toExpress } from '@tollgate/core/node';
 * const listener = toExpress(routes, { streamStallTimeoutMs: 2 * defaultStreamStallTimeoutMs });
 * ```
 */
export const defaultStreamStallTimeoutMs = 30_000;

function writeResponse(request: IncomingMessage, response: ServerResponse, serialized: SerializedResponse, stallTimeoutMs = defaultStreamStallTimeoutMs): void {
  if (response.headersSent || response.writableEnded || response.destroyed) {
    closeQuietly(serialized.stream);
    return;
  }
  try {
    // One writeHead with every header (cheaper than a setHeader per header on the hot path). An unread
    // body would otherwise be drained (or left stuck) on a kept-alive connection: close it instead.
    response.writeHead(serialized.status, request.complete ? serialized.headers : { ...serialized.headers, connection: 'close' });
    if (serialized.stream) void pumpStream(serialized.stream, response, stallTimeoutMs);
    else response.end(serialized.body);
  } catch {
    closeQuietly(serialized.stream);
    response.destroy();
  }
}

/**
 * The request body as an async iterable that pulls with `read()`. Unlike the stream's own iterator,
 * stopping early does not destroy the socket, so a refusal (413, 408) can still be written.
 */
function nodeBodySource(request: IncomingMessage): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      let ended = request.readableEnded;
      // Aborted before we started reading (during middleware): no event will come any more.
      let failure: unknown = request.destroyed && !ended ? new Error('the client closed the connection before the body ended') : undefined;
      let wake: (() => void) | undefined;
      const notify = (): void => {
        const resume = wake;
        wake = undefined;
        resume?.();
      };
      const onEnd = (): void => {
        ended = true;
        notify();
      };
      const onError = (error: unknown): void => {
        failure ??= error ?? new Error('request stream failed');
        notify();
      };
      const onClose = (): void => {
        if (!request.complete) failure ??= new Error('the client closed the connection before the body ended');
        notify();
      };
      request.on('readable', notify).on('end', onEnd).on('error', onError).on('close', onClose);
      const detach = (): void => {
        request.off('readable', notify).off('end', onEnd).off('error', onError).off('close', onClose);
      };
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          for (;;) {
            const chunk = request.read() as Uint8Array | string | null;
            if (chunk !== null) return { done: false, value: typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk };
            if (failure !== undefined) {
              detach();
              throw failure;
            }
            if (ended || request.readableEnded) {
              detach();
              return { done: true, value: undefined };
            }
            await new Promise<void>((resolve) => (wake = resolve));
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          detach();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
