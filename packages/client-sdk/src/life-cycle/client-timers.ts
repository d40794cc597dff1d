import type { Scheduler } from './scheduler';

/**
 * The license client's timers, at most one per slot: the next validation, the next heartbeat, and the
 * moment the stored standing changes on its own (the grace window ends, the license expires).
 */
export type TimerSlot = 'validation' | 'heartbeat' | 'standing';

/** The license client's timers (see {@link TimerSlot}). */
export interface ClientTimers {
  /** Replaces the pending task of `slot` with `task` after `delayMs`. */
  set(slot: TimerSlot, delayMs: number, task: () => Promise<unknown>): void;
  /** Whether a task of `slot` is pending. */
  has(slot: TimerSlot): boolean;
  /** Cancels the pending task of `slot`, or of every slot. */
  cancel(slot?: TimerSlot): void;
}

const slots: readonly TimerSlot[] = ['validation', 'heartbeat', 'standing'];

/**
 * Timers whose tasks never throw into the scheduler: a task's failure goes to `onError`.
 *
 * @param scheduler - Where the timers run.
 * @param onError - Receives what a task threw.
 * @returns The timers.
 * @example
 * ```ts
 * const timers = createClientTimers(platformScheduler, (error) => events.emit('error', error));
 * timers.set('validation', 60_000, validateNow);
 * ```
 */
export function createClientTimers(scheduler: Scheduler, onError: (error: unknown) => void): ClientTimers {
  const cancels = new Map<TimerSlot, () => void>();
  const cancel = (slot: TimerSlot) => {
    cancels.get(slot)?.();
    cancels.delete(slot);
  };
  return {
    set(slot, delayMs, task) {
      cancel(slot);
      const cancelThis = scheduler.after(delayMs, () => {
        if (cancels.get(slot) === cancelThis) cancels.delete(slot);
        void task().catch(onError);
      });
      cancels.set(slot, cancelThis);
    },
    has: (slot) => cancels.has(slot),
    cancel(slot) {
      for (const each of slot === undefined ? slots : [slot]) cancel(each);
    },
  };
}
