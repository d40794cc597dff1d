/**
 * The timer and run queue the license server's periodic jobs share: one round every `intervalMs`, plus
 * `runOnce()` on demand, never two rounds at once on one instance (a round waits for the one in flight),
 * and `close()` that stops the timer and waits for the round in flight. The timer does not keep the
 * process alive.
 */

/** A running periodic job. */
export interface PeriodicJob<T> {
  /** Runs once now (after a run in flight; runs never overlap on one instance). */
  runOnce(): Promise<T>;
  /** Stops the timer and waits for a run in flight. */
  close(): Promise<void>;
}

/**
 * Starts running `round` every `intervalMs`. `round` gets `isClosed` to stop a long round early; a
 * round asked for after `close()` does not run and resolves to `whenClosed`. A round that throws
 * rejects its `runOnce()` but never stops the job (rounds are expected to log and answer their
 * failures themselves).
 *
 * @example
 * ```ts
 * const job = startPeriodicJob(60_000, [], async (isClosed) => reclaimAll(isClosed));
 * await job.close();
 * ```
 */
export function startPeriodicJob<T>(intervalMs: number, whenClosed: T, round: (isClosed: () => boolean) => Promise<T>): PeriodicJob<T> {
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  const isClosed = () => closed;
  const runOnce = (): Promise<T> => {
    const run = queue.then(() => (closed ? whenClosed : round(isClosed)));
    queue = run.catch(() => undefined);
    return run;
  };
  const timer = setInterval(() => void runOnce(), intervalMs);
  timer.unref();
  return {
    runOnce,
    async close() {
      closed = true;
      clearInterval(timer);
      await queue;
    },
  };
}
