import { expect, it } from 'vitest';
import type { RateLimiter } from '../storage/rate-limit/rate-limiter';
import { ManualClock, type Clock } from '../time/clock';
import { describeConformance, type ConformanceFixture, type ConformanceSuiteOptions } from './conformance';

/** A store for the RateLimiter suite: builds limiters over it with the suite's clock. */
export interface RateLimiterConformanceFixture extends ConformanceFixture {
  createLimiter(options: { clock: Clock }): RateLimiter;
}

const start = Date.UTC(2026, 0, 1);

/**
 * Conformance suite of the {@link RateLimiter} port: bursts up to the limit, exact GCRA refill and
 * `retryAfterMs` under a `ManualClock`, independent keys, rule changes, pruning, input validation,
 * and 50 parallel `consume` calls on one key never exceeding the limit.
 *
 * @param options - `name` and `open()` returning a fixture that builds limiters
 *
 * @example
 * ```ts
 * import { describeRateLimiterConformance } from '@tollgate/core/testing';
 * import { createMemoryRateLimiter } from '@tollgate/core/storage';
 * describeRateLimiterConformance({ name: 'memory', open: async () => ({ createLimiter: createMemoryRateLimiter }) });
 * ```
 */
export function describeRateLimiterConformance(options: ConformanceSuiteOptions<RateLimiterConformanceFixture>): void {
  describeConformance('RateLimiter', options, (fixture) => {
    const limiterAt = () => {
      const clock = new ManualClock(start);
      return { clock, limiter: fixture().createLimiter({ clock }) };
    };

    it('allows a burst of `limit` requests, then refuses with the time until the next one', async () => {
      const { limiter } = limiterAt();
      const rule = { limit: 3, windowMs: 1_000 };
      const decisions = [];
      for (let n = 0; n < 4; n += 1) decisions.push(await limiter.consume('burst', rule));
      expect(decisions).toEqual([
        { allowed: true, remaining: 2, retryAfterMs: 0 },
        { allowed: true, remaining: 1, retryAfterMs: 0 },
        { allowed: true, remaining: 0, retryAfterMs: 0 },
        // One request refills every 1000/3 ms: 333.3… ms, rounded up to whole milliseconds.
        { allowed: false, remaining: 0, retryAfterMs: 334 },
      ]);
    });

    it('refills continuously and fully after an idle window', async () => {
      const { limiter, clock } = limiterAt();
      const rule = { limit: 3, windowMs: 1_000 };
      for (let n = 0; n < 3; n += 1) await limiter.consume('refill', rule);
      clock.advance(333);
      expect(await limiter.consume('refill', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1 });
      clock.advance(1);
      expect(await limiter.consume('refill', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      clock.advance(1_000);
      const afterIdle = [];
      for (let n = 0; n < 4; n += 1) afterIdle.push((await limiter.consume('refill', rule)).allowed);
      expect(afterIdle).toEqual([true, true, true, false]);
    });

    it('spaces out a sustained stream to the average rate', async () => {
      const { limiter, clock } = limiterAt();
      const rule = { limit: 10, windowMs: 1_000 };
      let allowed = 0;
      // 10 s of one request every 10 ms: the burst of 10, then one per 100 ms.
      for (let tick = 0; tick < 1_000; tick += 1) {
        if ((await limiter.consume('stream', rule)).allowed) allowed += 1;
        clock.advance(10);
      }
      expect(allowed).toBe(10 + 99);
    });

    it('keeps keys independent', async () => {
      const { limiter } = limiterAt();
      const rule = { limit: 1, windowMs: 60_000 };
      expect((await limiter.consume('a', rule)).allowed).toBe(true);
      expect((await limiter.consume('a', rule)).allowed).toBe(false);
      expect((await limiter.consume('b', rule)).allowed).toBe(true);
    });

    it('starts a fresh bucket when a key is used with another rule', async () => {
      const { limiter } = limiterAt();
      await limiter.consume('changed', { limit: 1, windowMs: 60_000 });
      expect((await limiter.consume('changed', { limit: 1, windowMs: 60_000 })).allowed).toBe(false);
      expect(await limiter.consume('changed', { limit: 5, windowMs: 60_000 })).toEqual({ allowed: true, remaining: 4, retryAfterMs: 0 });
    });

    it('never exceeds the limit under 50 parallel calls on one key', async () => {
      const { limiter } = limiterAt();
      const rule = { limit: 10, windowMs: 60_000 };
      const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.consume('parallel', rule)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
      expect(decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    });

    it('prunes only keys whose bucket is full again', async () => {
      const { limiter, clock } = limiterAt();
      await limiter.consume('short', { limit: 2, windowMs: 1_000 });
      await limiter.consume('long', { limit: 2, windowMs: 60_000 });
      expect(await limiter.prune()).toBe(0);
      clock.advance(500);
      expect(await limiter.prune()).toBe(1);
      expect(await limiter.consume('long', { limit: 2, windowMs: 60_000 })).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      expect(await limiter.consume('short', { limit: 2, windowMs: 1_000 })).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    });

    it('rejects bad keys and rules', async () => {
      const { limiter } = limiterAt();
      await expect(limiter.consume('', { limit: 1, windowMs: 1_000 })).rejects.toThrow(TypeError);
      await expect(limiter.consume('k', { limit: 0, windowMs: 1_000 })).rejects.toThrow(RangeError);
      await expect(limiter.consume('k', { limit: 1.5, windowMs: 1_000 })).rejects.toThrow(RangeError);
      await expect(limiter.consume('k', { limit: 1, windowMs: 0 })).rejects.toThrow(RangeError);
      await expect(limiter.consume('k', { limit: 2_000_000, windowMs: 1_000 })).rejects.toThrow(RangeError);
    });
  });
}
