import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Node request listener, e.g. an Express app. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of {@link startHttpServer}. */
export interface StartHttpServerOptions {
  port: number;
  host: string;
  /** Maximum time to receive a whole request (headers and body). Default 30 s. */
  requestTimeoutMs?: number;
  /** Maximum time to receive the request headers. Default 10 s (slow-loris guard). */
  headersTimeoutMs?: number;
}

/** A listening server with a graceful close. */
export interface RunningHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:4020`. */
  url: string;
  /** The port actually bound (useful with port 0). */
  port: number;
  server: Server;
  /**
   * Stops accepting connections, lets in-flight requests finish, closes idle keep-alive sockets at once,
   * and after `graceMs` (default 10 s) destroys whatever is still open. Idempotent.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Listens with timeouts that keep a slow or stalled client from holding a socket forever.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { startHttpServer } from '@tollgate/core/node';
 * const running = await startHttpServer(express(), { port: 0, host: '127.0.0.1' });
 * await running.close();
 * ```
 */
export async function startHttpServer(listener: RequestListener, options: StartHttpServerOptions): Promise<RunningHttpServer> {
  const server = createServer(listener);
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    server,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT; a second signal exits at once. Returns a function
 * that removes the handlers.
 *
 * @example
 * ```ts
 * import { onShutdownSignal } from '@tollgate/core/node';
 * onShutdownSignal(async (signal) => { await server.close(); await db.close(); });
 * ```
 */
export function onShutdownSignal(shutdown: (signal: NodeJS.Signals) => Promise<void>, exit: (code: number) => void = process.exit): () => void {
  let started = false;
  const handler = (signal: NodeJS.Signals) => {
    if (started) {
      exit(130);
      return;
    }
    started = true;
    shutdown(signal).then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
