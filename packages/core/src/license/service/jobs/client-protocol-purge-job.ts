import { purgeClientProtocolRecords } from '../../client-protocol/client-replay-store';
import type { Clock } from '../../../time/clock';
import type { RateLimiter } from '../../../storage/rate-limit/rate-limiter';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';

/** How often the client protocol's expired records are deleted. */
export const clientProtocolPurgeIntervalMs = 15 * 60 * 1000;

/** Options of {@link startClientProtocolPurgeJob}. */
export interface ClientProtocolPurgeJobOptions {
  sql: SqlClient;
  clock: Clock;
  logger: LicenseLogSink;
  /** The client budgets' limiter: its full buckets are pruned too. */
  rateLimiter?: RateLimiter;
  /** More purges to run in the same round (the account sessions' `purge`). */
  extra?: readonly (() => Promise<unknown>)[];
  intervalMs?: number;
}

/**
 * Every {@link clientProtocolPurgeIntervalMs}, deletes expired nonces, Idempotency-Key answers and
 * offline archives (`purgeClientProtocolRecords`), prunes full rate-limit buckets and runs `extra`.
 * Expired rows are never used, so this only reclaims space; every instance may run it. Failures are
 * logged and retried next round.
 *
 * @param options - Database, clock, logger, limiter, extra purges.
 * @returns `runOnce()` and `close()`.
 * @example
 * ```ts
 * import { startClientProtocolPurgeJob } from './jobs/client-protocol-purge-job';
 * const purge = startClientProtocolPurgeJob({ sql, clock: systemClock, logger });
 * await purge.close();
 * ```
 */
export function startClientProtocolPurgeJob(options: ClientProtocolPurgeJobOptions): { runOnce(): Promise<void>; close(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const purge = async () => {
    const steps: [string, () => Promise<unknown>][] = [
      ['client protocol records', () => purgeClientProtocolRecords(options.sql, new Date(options.clock.now()))],
      ...(options.rateLimiter === undefined ? [] : [['rate-limit buckets', () => (options.rateLimiter as RateLimiter).prune()] as [string, () => Promise<unknown>]]),
      ...(options.extra ?? []).map((run) => ['account sessions', run] as [string, () => Promise<unknown>]),
    ];
    for (const [what, run] of steps) {
      try {
        await run();
      } catch (error) {
        options.logger.error({ err: error }, `purging expired ${what} failed; retrying next round`);
      }
    }
  };
  const runOnce = () => {
    running = running.then(purge);
    return running;
  };
  const timer = setInterval(() => void runOnce(), options.intervalMs ?? clientProtocolPurgeIntervalMs);
  timer.unref();
  return {
    runOnce,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
