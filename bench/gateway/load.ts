/**
 * A small closed-loop HTTP load generator over keep-alive sockets (lighter than `fetch`, so the client
 * steals less CPU from the servers on a 2-core machine), and a sequential paid-request loop.
 */
import { Agent, request } from 'node:http';

/** Requests per second of `concurrency` workers hammering `url` with GET for `durationMs`. */
export async function requestsPerSecond(url: string, options: { concurrency: number; durationMs: number; expectStatus: number }): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(url);
  const deadline = performance.now() + options.durationMs;
  let completed = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, agent, method: 'GET' }, (res) => {
        if (res.statusCode !== options.expectStatus) reject(new Error(`${url} answered ${res.statusCode}, expected ${options.expectStatus}`));
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end();
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        await one();
        completed += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  agent.destroy();
  return (completed * 1000) / elapsed;
}

/** Payments per second of `pay()` called one after another for `durationMs` (at least `minimum` calls). */
export async function paymentsPerSecond(pay: () => Promise<void>, options: { durationMs: number; minimum: number }): Promise<number> {
  const started = performance.now();
  let completed = 0;
  while (performance.now() - started < options.durationMs || completed < options.minimum) {
    await pay();
    completed += 1;
  }
  return (completed * 1000) / (performance.now() - started);
}
