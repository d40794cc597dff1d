import type { Scheduler } from './scheduler';

/** The license client's two timers: the next validation and the next heartbeat (at most one of each). */
export interface ClientTimers {
  /** Replaces the pending validation with `task` after `delayMs`. */
  validation(delayMs: number, task: () => Promise<unknown>): void;
  /** Replaces the pending heartbeat with `task` after `delayMs`. */
  heartbeat(delayMs: number, task: () => Promise<unknown>): void;
  hasHeartbeat(): boolean;
  /** Cancels both. */
  cancel(): void;
}

/**
 * Timers whose tasks never throw into the scheduler: a task's failure goes to `onError`.
 *
 * @param scheduler - Where the timers run.
 * @param onError - Receives what a task threw.
 * @returns The timers.
 * @example
 * ```ts
 * const timers = createClientTimers(platformScheduler, (error) => events.emit('error', error));
 * timers.validation(60_000, validateNow);
 * ```
 */
export function createClientTimers(scheduler: Scheduler, onError: (error: unknown) => void): ClientTimers {
  const cancels: { validation?: () => void; heartbeat?: () => void } = {};
  const set = (slot: 'validation' | 'heartbeat', delayMs: number, task: () => Promise<unknown>) => {
    cancels[slot]?.();
    cancels[slot] = scheduler.after(delayMs, () => {
      cancels[slot] = undefined;
      void task().catch(onError);
    });
  };
  return {
    validation: (delayMs, task) => set('validation', delayMs, task),
    heartbeat: (delayMs, task) => set('heartbeat', delayMs, task),
    hasHeartbeat: () => cancels.heartbeat !== undefined,
    cancel() {
      cancels.validation?.();
      cancels.heartbeat?.();
      cancels.validation = cancels.heartbeat = undefined;
    },
  };
}
