import { unixSeconds, type Clock } from '@tollgate/core';

/**
 * Where a {@link RefetchGate} stands:
 * - `idle`: nothing in flight and the interval since the last start is over: the next caller starts one;
 * - `in_flight`: one is running: every caller shares its promise;
 * - `cooling`: the last one finished less than the interval after it started: callers are turned away
 *   until `until` (no request).
 */
export type RefetchGateState<T> =
  | { readonly name: 'idle' }
  | { readonly name: 'in_flight'; readonly startedAt: number; readonly result: Promise<T> }
  | { readonly name: 'cooling'; readonly startedAt: number; readonly until: number };

/** What {@link RefetchGate.enter} decided: run (or join) the task, or wait `retryAfterSeconds`. */
export type RefetchAdmission<T> = { readonly admitted: true; readonly result: Promise<T> } | { readonly admitted: false; readonly retryAfterSeconds: number };

/**
 * Coalesces and rate-limits a task that anyone can trigger from outside (an artifact with a made-up
 * `kid` asks for a keyset refetch): concurrent callers share one run, and at most one run **starts**
 * per `intervalSeconds` of `clock`, whether it succeeded or failed (a failing server is not hammered
 * either). The interval counts from the start, so a slow request does not stretch it.
 *
 * A clock set back before the last start ends the cooling at once: a device whose clock jumped back a day
 * must not go a day without a forced refetch.
 *
 * @example
 * ```ts
 * import { ManualClock } from '@tollgate/core';
 * import { RefetchGate } from './refetch-gate';
 * const gate = new RefetchGate<string>(new ManualClock(0), 30);
 * const first = gate.enter(async () => 'fetched'); // { admitted: true, result }
 * await (first.admitted && first.result);
 * gate.enter(async () => 'again'); // { admitted: false, retryAfterSeconds: 30 }
 * ```
 */
export class RefetchGate<T> {
  private current: RefetchGateState<T> = { name: 'idle' };

  constructor(
    private readonly clock: Clock,
    readonly intervalSeconds: number,
  ) {
    if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 0) throw new TypeError('a refetch interval is a non-negative number of seconds');
  }

  /** The state now (cooling that is over reads as `idle`). */
  state(): RefetchGateState<T> {
    const current = this.current;
    if (current.name !== 'cooling') return current;
    const now = unixSeconds(this.clock);
    if (now >= current.until || now < current.startedAt) this.current = { name: 'idle' };
    return this.current;
  }

  /**
   * Starts `task` when idle, joins the run in flight, or turns the caller away while cooling.
   *
   * @param task - The run to start when idle (not called otherwise).
   * @returns The shared result, or how long until the next run may start.
   */
  enter(task: () => Promise<T>): RefetchAdmission<T> {
    const state = this.state();
    if (state.name === 'in_flight') return { admitted: true, result: state.result };
    if (state.name === 'cooling') return { admitted: false, retryAfterSeconds: state.until - unixSeconds(this.clock) };
    const startedAt = unixSeconds(this.clock);
    const result = Promise.resolve()
      .then(task)
      .finally(() => {
        this.current = { name: 'cooling', startedAt, until: startedAt + this.intervalSeconds };
      });
    this.current = { name: 'in_flight', startedAt, result };
    return { admitted: true, result };
  }
}
