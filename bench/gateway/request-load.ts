/**
 * Load generator for routes with a request body (and the GETs beside them): `concurrency` workers on
 * Node `http` keep-alive sockets, like `load.ts`'s `requestsPerSecond`, but each request takes its body
 * from a source (rotating over a few bodies, or spending a pool of one-use bodies such as signed requests
 * with fresh nonces), and per-request latencies can be kept for percentiles.
 */
import { Agent, request } from 'node:http';

/** One load run. */
export interface LoadOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** The next request's path and query (rotating over a few resources); `url`'s own path when omitted. */
  readonly nextPath?: () => string;
  /** The next request body; `undefined` when a one-use pool is spent (the run then ends early). Omit for GETs. */
  readonly nextBody?: () => Uint8Array | undefined;
  readonly concurrency: number;
  readonly durationMs: number;
  /** Every answer must have this status (a bench that counts errors as requests measures nothing). */
  readonly expectStatus: number;
  /** Keep each request's latency (milliseconds) in the result. */
  readonly latencies?: boolean;
}

/** What a run measured. */
export interface LoadResult {
  readonly perSecond: number;
  readonly completed: number;
  /** Latencies in milliseconds, when asked for. */
  readonly latenciesMs: number[];
  /** Whether the body pool ran out before `durationMs` (the rate is then over the shorter time). */
  readonly exhausted: boolean;
}

/**
 * Runs `options.concurrency` workers against `options.url` for `options.durationMs`.
 *
 * @example
 * ```ts
 * const bodies = [Buffer.from('{"a":1}')];
 * const run = await runLoad({ url, method: 'POST', headers: { 'content-type': 'application/json' }, nextBody: () => bodies[0], concurrency: 16, durationMs: 3000, expectStatus: 200 });
 * run.perSecond;
 * ```
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(options.url);
  const path = `${target.pathname}${target.search}`;
  const deadline = performance.now() + options.durationMs;
  const latenciesMs: number[] = [];
  let completed = 0;
  let exhausted = false;
  const one = (body: Uint8Array | undefined, requestPath: string) =>
    new Promise<void>((resolve, reject) => {
      const headers = body === undefined ? options.headers : { ...options.headers, 'content-length': String(body.length) };
      const req = request({ host: target.hostname, port: target.port, path: requestPath, agent, method: options.method, headers }, (res) => {
        if (res.statusCode !== options.expectStatus) {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => reject(new Error(`${options.method} ${options.url} answered ${res.statusCode}, expected ${options.expectStatus}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`)));
          return;
        }
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        let body: Uint8Array | undefined;
        if (options.nextBody !== undefined) {
          body = options.nextBody();
          if (body === undefined) {
            exhausted = true;
            return;
          }
        }
        const sent = performance.now();
        await one(body, options.nextPath?.() ?? path);
        if (options.latencies === true) latenciesMs.push(performance.now() - sent);
        completed += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  agent.destroy();
  return { perSecond: (completed * 1000) / elapsed, completed, latenciesMs, exhausted };
}

/** The `p`-th percentile (0–100) of `values` (nearest rank); `NaN` for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** A body source cycling over `bodies` forever (requests that may repeat, such as a receipt to verify). */
export function rotating(bodies: readonly Uint8Array[]): () => Uint8Array {
  let index = 0;
  return () => bodies[index++ % bodies.length] as Uint8Array;
}
