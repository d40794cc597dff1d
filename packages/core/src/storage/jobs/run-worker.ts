import type { Job, JobQueue } from './job-queue';

/** Options of {@link runWorker}. */
export interface RunWorkerOptions<Payload> {
  /** Queue to work on. */
  queue: string;
  /** Where jobs come from. */
  jobs: JobQueue;
  /**
   * Does the work. Resolving completes the job; throwing fails it (retry with backoff, or dead after
   * the last attempt). `signal` aborts when the worker is stopping.
   */
  handler: (job: Job<Payload>, context: { signal: AbortSignal }) => Promise<void>;
  /** Stops the worker: no new claims; `runWorker` resolves once running handlers have settled. */
  signal: AbortSignal;
  /** Pause after finding the queue empty, in ms (default 1 000). */
  pollIntervalMs?: number;
  /** Jobs handled at the same time (default 1). */
  concurrency?: number;
  /** Lease per claim, in ms (default 60 000): longer than the slowest handler, or the job runs twice. */
  leaseMs?: number;
  /** Told about failures of the queue itself (claim/complete/fail rejected); handler errors are not reported here. */
  onError?: (error: unknown) => void;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Polls `queue` and runs `handler` on each claimed job, up to `concurrency` at a time, until `signal`
 * aborts. Claims stop as soon as the signal aborts; the promise resolves after every running handler
 * has settled and its outcome has been recorded, so a shutdown never abandons a job mid-write.
 *
 * @returns a promise that resolves when the worker has stopped
 *
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { runWorker, createSqlJobQueue } from '@tollgate/core/storage';
 * const stop = new AbortController();
 * const done = runWorker({
 *   queue: 'webhooks',
 *   jobs: createSqlJobQueue(sql, { clock: systemClock }),
 *   handler: async (job) => deliver(job.payload),
 *   signal: stop.signal,
 *   concurrency: 4,
 * });
 * process.once('SIGTERM', () => stop.abort());
 * await done;
 * ```
 */
export async function runWorker<Payload = unknown>(options: RunWorkerOptions<Payload>): Promise<void> {
  const { queue, jobs, handler, signal, pollIntervalMs = 1_000, concurrency = 1, leaseMs = 60_000 } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer.');
  if (!(pollIntervalMs >= 0)) throw new RangeError('pollIntervalMs must be non-negative.');
  const report = (error: unknown): void => options.onError?.(error);
  const running = new Set<Promise<void>>();

  const handle = async (job: Job<Payload>): Promise<void> => {
    let failure: { error: unknown } | undefined;
    try {
      await handler(job, { signal });
    } catch (error) {
      failure = { error };
    }
    try {
      if (failure === undefined) await jobs.complete(job);
      else await jobs.fail(job, failure.error);
    } catch (error) {
      report(error);
    }
  };

  while (!signal.aborted) {
    if (running.size >= concurrency) {
      await Promise.race(running);
      continue;
    }
    let job: Job<Payload> | null;
    try {
      job = await jobs.claim<Payload>(queue, { leaseMs });
    } catch (error) {
      report(error);
      await pause(pollIntervalMs, signal);
      continue;
    }
    if (job === null) {
      await pause(pollIntervalMs, signal);
      continue;
    }
    const task: Promise<void> = handle(job).finally(() => running.delete(task));
    running.add(task);
  }
  await Promise.all(running);
}
