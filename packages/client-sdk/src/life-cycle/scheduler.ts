/**
 * How the license client waits: one-shot timers it can cancel. The default uses the platform's
 * `setTimeout` (unref'd in Node, so a pending validation never keeps a process alive); tests pass a
 * manual scheduler and move time by hand instead of waiting.
 */
export interface Scheduler {
  /** Runs `task` once after `delayMs`; the returned function cancels it if it has not run. */
  after(delayMs: number, task: () => void): () => void;
}

/**
 * The platform's timers.
 *
 * @example
 * ```ts
 * import { createLicenseClient, platformScheduler } from '@tollgate/client-sdk';
 * createLicenseClient({ ...options, scheduler: platformScheduler });
 * ```
 */
export const platformScheduler: Scheduler = Object.freeze({
  after(delayMs: number, task: () => void): () => void {
    // setTimeout's limit is 2^31-1 ms (~24.8 days); longer waits are chained.
    const step = Math.min(Math.max(0, delayMs), 2 ** 31 - 1);
    let cancelled = false;
    let cancelNext: (() => void) | undefined;
    const handle = setTimeout(() => {
      if (cancelled) return;
      if (step < delayMs) cancelNext = platformScheduler.after(delayMs - step, task);
      else task();
    }, step);
    (handle as { unref?: () => void }).unref?.();
    return () => {
      cancelled = true;
      clearTimeout(handle);
      cancelNext?.();
    };
  },
});
