import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { createMemoryRateLimiter } from '@tollgate/core/storage';

const rule = { limit: 1, windowMs: 1_000 };

describe('createMemoryRateLimiter', () => {
  it('makes room by evicting the oldest key once it is refilled, keeping limited keys limited', async () => {
    const clock = new ManualClock(0);
    const limiter = createMemoryRateLimiter({ clock, maxKeys: 2 });
    await limiter.consume('stale', rule);
    clock.advance(1_000);
    await limiter.consume('active', rule);
    await limiter.consume('newcomer', rule);
    // 'stale' was refilled and evicted; 'active' is still remembered and so still limited.
    expect((await limiter.consume('active', rule)).allowed).toBe(false);
    expect(await limiter.prune()).toBe(0);
  });

  it('evicts the least recently used key when every key is still limited', async () => {
    const clock = new ManualClock(0);
    const limiter = createMemoryRateLimiter({ clock, maxKeys: 2 });
    await limiter.consume('first', rule);
    await limiter.consume('second', rule);
    await limiter.consume('first', rule);
    await limiter.consume('third', rule);
    // 'second' was the least recently used: forgotten, so it gets a fresh bucket; 'first' is still limited.
    expect((await limiter.consume('first', rule)).allowed).toBe(false);
    expect((await limiter.consume('second', rule)).allowed).toBe(true);
  });

  it('never holds more than maxKeys keys', async () => {
    const clock = new ManualClock(0);
    const limiter = createMemoryRateLimiter({ clock, maxKeys: 100 });
    for (let n = 0; n < 1_000; n += 1) await limiter.consume(`key-${n}`, { limit: 5, windowMs: 60_000 });
    clock.advance(60_000);
    expect(await limiter.prune()).toBe(100);
  });

  it('refuses a bad maxKeys', () => {
    expect(() => createMemoryRateLimiter({ clock: new ManualClock(0), maxKeys: 0 })).toThrow(RangeError);
  });
});
