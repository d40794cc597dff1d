// The clocks a test gateway runs on. A payment signed by a real party (the pay page in Chromium, the
// official x402 clients, `signPayment`) carries times from the wall clock, and the facilitator judges
// them by the wall clock too; a gateway whose clock stood still at the start of the file refused such
// a payment as valid for too long (`validBefore` beyond maxTimeoutSeconds plus 60 s of skew) once the
// file had run for a minute, which a loaded CI machine reaches. A clock that simply follows the wall
// clock fixes that but makes "paidAt equals now" a race at every second boundary. So payment tests run
// the gateway on a {@link TestWallClock}: it stands still while a test runs (exact assertions hold) and
// catches up with the wall clock when the next test starts (a real payer's times stay acceptable).
// Tests that count within a rate-limit window keep a `ManualClock`, whose windows never roll over.
import type { Clock } from '@tollgate/core';
import { expect } from 'vitest';

/** A clock a test can move: the gateway helpers accept a `ManualClock` or a {@link TestWallClock}. */
export interface SteerableClock extends Clock {
  /** Moves the clock by `ms` (negative moves it back). */
  advance(ms: number): void;
  /** Jumps to `ms` since the epoch. */
  set(ms: number): void;
}

/** The running test (file and name), or undefined between tests and in `beforeAll`. */
function currentTest(): string | undefined {
  const state = expect.getState();
  return state.currentTestName === undefined ? undefined : `${state.testPath ?? ''}\u0000${state.currentTestName}`;
}

/**
 * A manual clock per test: it reads the wall clock once when a test first asks for the time, then moves
 * only when the test moves it (`advance`, `set`); the next test starts again from the wall clock.
 * Outside any test (in `beforeAll`, in a worker between tests) it reads the wall clock.
 *
 * @example
 * ```ts
 * const gateway = await startTestGateway(env, { clock: new TestWallClock() });
 * gateway.clock.advance(400_000); // this test's gateway lives 400 s ahead; the next test's does not
 * ```
 */
export class TestWallClock implements SteerableClock {
  #nowMs = Date.now();
  #test = currentTest();

  now(): number {
    this.#catchUp();
    return this.#nowMs;
  }

  advance(ms: number): void {
    this.#catchUp();
    this.#nowMs += ms;
  }

  set(ms: number): void {
    this.#catchUp();
    this.#nowMs = ms;
  }

  #catchUp(): void {
    const test = currentTest();
    if (test === undefined || test !== this.#test) {
      this.#test = test;
      this.#nowMs = Date.now();
    }
  }
}
