/**
 * The source of "now" for everything that depends on time: expiries, windows, retention, backoff.
 * Inject a {@link ManualClock} in tests instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that only moves when told to: deterministic tests of expiry and backoff.
 *
 * @example
 * ```ts
 * import { ManualClock } from '@tollgate/core';
 * const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.advance(60_000);
 * ```
 */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms` (negative values move it back, to test clock rollback). */
  advance(ms: number): void {
    this.#now += ms;
  }

  /** Jumps to an absolute time in milliseconds. */
  set(ms: number): void {
    this.#now = ms;
  }
}

/** Whole seconds since the Unix epoch according to `clock`. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
