import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { Clock } from '../../time/clock';
import type { MerchantStore } from '../store/merchant-store';

/** Where housekeeping reports what it did or why it failed. */
export interface HousekeepingLogger {
  debug(object: object, message?: string): void;
  warn(object: object, message: string): void;
}

/** Options of {@link startHousekeeping}. */
export interface HousekeepingOptions {
  /** `merchants` deletes the expired registration challenges. */
  stores: { readonly merchants: Pick<MerchantStore, 'deleteExpiredChallenges'> };
  rateLimiter: Pick<RateLimiter, 'prune'>;
  clock: Clock;
  logger: HousekeepingLogger;
  /** How often to run. Default 10 minutes. */
  intervalMs?: number;
}

/** Challenges are kept an hour past expiry, so a late register still gets "expired" rather than "unknown". */
const challengeRetentionMs = 60 * 60 * 1000;

/**
 * Periodically deletes expired registration challenges and rate-limit state that carries no
 * information. Every instance may run it: both deletes are idempotent. The timer does not keep the
 * process alive; `stop()` waits for a run in progress.
 *
 * @param options - Merchant store, rate limiter, clock, logger and interval.
 * @returns `run()` (one pass now) and `stop()`.
 * @example
 * ```ts
 * import { createSqlGatewayStores, systemClock } from '@tollgate/core';
 * import { startHousekeeping } from '@tollgate/core/gateway';
 * const housekeeping = startHousekeeping({ stores: createSqlGatewayStores(sql), rateLimiter, clock: systemClock, logger });
 * await housekeeping.stop();
 * ```
 */
export function startHousekeeping(options: HousekeepingOptions): { run(): Promise<void>; stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = (): Promise<void> =>
    (running ??= (async () => {
      try {
        const challenges = await options.stores.merchants.deleteExpiredChallenges(new Date(options.clock.now() - challengeRetentionMs));
        const rateLimitKeys = await options.rateLimiter.prune();
        options.logger.debug({ challenges, rateLimitKeys }, 'housekeeping done');
      } catch (error) {
        options.logger.warn({ err: error }, 'housekeeping failed');
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void run(), options.intervalMs ?? 10 * 60 * 1000);
  timer.unref();
  return {
    run,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
