import type { Clock } from '../../time/clock';
import { gcraRefilledAtMs, gcraStep, type GcraState } from './gcra';
import { assertRateLimitInput, type RateLimitDecision, type RateLimiter, type RateLimitRule } from './rate-limiter';

/** Options of {@link createMemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  clock: Clock;
  /**
   * Most keys kept (default 10 000). Past it the least recently used keys are evicted, stale ones
   * first; evicting a key that is still limited gives it a fresh bucket, so size it above the number
   * of keys active within one window.
   */
  maxKeys?: number;
}

/**
 * A {@link RateLimiter} in process memory, for a single instance or tests. Same algorithm and
 * decisions as the SQL limiter; memory is bounded by `maxKeys`.
 *
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createMemoryRateLimiter } from '@tollgate/core/storage';
 * const limiter = createMemoryRateLimiter({ clock: systemClock, maxKeys: 50_000 });
 * await limiter.consume('ip:203.0.113.7', { limit: 10, windowMs: 1_000 });
 * ```
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions): RateLimiter {
  const { clock, maxKeys = 10_000 } = options;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer.');
  // Map iteration order is insertion order; re-inserting on every use keeps it least-recently-used first.
  const states = new Map<string, GcraState>();

  const evictOverflow = (nowMs: number): void => {
    for (const [key, state] of states) {
      if (states.size <= maxKeys) return;
      if (gcraRefilledAtMs(state) > nowMs) break;
      states.delete(key);
    }
    for (const key of states.keys()) {
      if (states.size <= maxKeys) return;
      states.delete(key);
    }
  };

  return {
    async consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
      assertRateLimitInput(key, rule);
      const nowMs = Math.floor(clock.now());
      const { decision, state } = gcraStep(states.get(key), nowMs, rule);
      states.delete(key);
      states.set(key, state);
      evictOverflow(nowMs);
      return decision;
    },

    async prune(): Promise<number> {
      const nowMs = Math.floor(clock.now());
      let removed = 0;
      for (const [key, state] of states) {
        if (gcraRefilledAtMs(state) <= nowMs) {
          states.delete(key);
          removed += 1;
        }
      }
      return removed;
    },
  };
}
