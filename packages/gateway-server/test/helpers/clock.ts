// The clocks a test gateway runs on. A payment signed by a real party (the pay page in Chromium, the
// official x402 clients, `signPayment`) carries times from the wall clock, and the facilitator judges
// them by the wall clock too; a gateway whose clock stood still at the start of the file refuses such
// a payment as valid for too long (`validBefore` beyond maxTimeoutSeconds plus 60 s of skew) once the
// file has run for a minute, which a loaded CI machine reaches. So payment tests run the gateway on a
// wall clock that a test can still move; tests that count within a rate-limit window keep a
// `ManualClock`, whose windows never roll over under them.
import type { Clock } from '@tollgate/core';

/** A clock a test can move: the gateway helpers accept a `ManualClock` or a {@link WallClock}. */
export interface SteerableClock extends Clock {
  /** Moves the clock by `ms` (negative moves it back). */
  advance(ms: number): void;
  /** Jumps to `ms` since the epoch. */
  set(ms: number): void;
}

/**
 * The wall clock plus an offset the test moves with `advance` and `set`: time keeps passing between
 * moves, as it does for the chain, the facilitator and the payer.
 *
 * @example
 * ```ts
 * const clock = new WallClock();
 * clock.advance(400_000); // the gateway now lives 400 s ahead of the facilitator
 * ```
 */
export class WallClock implements SteerableClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  set(ms: number): void {
    this.#offsetMs = ms - Date.now();
  }
}
