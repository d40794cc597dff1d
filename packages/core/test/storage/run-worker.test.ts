import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, coreMigrations } from '@tollgate/core';
import { createSqlJobQueue, runWorker, type Job, type JobQueue } from '@tollgate/core/storage';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { eventually } from '../../../../test/eventually';

describe('runWorker', () => {
  let database: TestDatabase;
  let clock: ManualClock;
  let jobs: JobQueue;

  beforeAll(async () => {
    database = await openTestDatabase({ migrations: [coreMigrations] });
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    await database.reset();
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    jobs = createSqlJobQueue(database.sql, { clock, random: () => 0.5 });
  });

  it('completes jobs whose handler resolves and fails those whose handler throws', async () => {
    const ok = await jobs.enqueue('work', { ok: true });
    const bad = await jobs.enqueue('work', { ok: false }, { maxAttempts: 1 });
    const stop = new AbortController();
    const seen: unknown[] = [];
    const done = runWorker<{ ok: boolean }>({
      queue: 'work',
      jobs,
      signal: stop.signal,
      pollIntervalMs: 5,
      handler: async (job) => {
        seen.push(job.payload);
        if (!job.payload.ok) throw new Error('refused');
      },
    });
    await vi.waitFor(async () => {
      expect((await jobs.get(ok.job.id))?.status).toBe('completed');
      expect(await jobs.get(bad.job.id)).toMatchObject({ status: 'dead', lastError: 'refused' });
    }, eventually);
    stop.abort();
    await done;
    expect(seen).toEqual([{ ok: true }, { ok: false }]);
  });

  it('runs up to `concurrency` handlers at once', async () => {
    for (let n = 0; n < 6; n += 1) await jobs.enqueue('parallel', { n });
    const stop = new AbortController();
    let active = 0;
    let peak = 0;
    let finished = 0;
    const done = runWorker({
      queue: 'parallel',
      jobs,
      signal: stop.signal,
      pollIntervalMs: 5,
      concurrency: 3,
      handler: async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active -= 1;
        finished += 1;
      },
    });
    await vi.waitFor(() => expect(finished).toBe(6), eventually);
    stop.abort();
    await done;
    expect(peak).toBe(3);
  });

  it('stops claiming on abort and waits for the running handler to record its outcome', async () => {
    const first = await jobs.enqueue('shutdown', { n: 1 });
    const second = await jobs.enqueue('shutdown', { n: 2 });
    const stop = new AbortController();
    let onStarted: (job: Job) => void = () => undefined;
    const started = new Promise<Job>((resolve) => {
      onStarted = resolve;
    });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let handlerSignal: AbortSignal | undefined;
    const workerDone = runWorker({
      queue: 'shutdown',
      jobs,
      signal: stop.signal,
      pollIntervalMs: 5,
      handler: async (job, { signal }) => {
        handlerSignal = signal;
        onStarted(job);
        await gate;
      },
    });
    const running = await started;
    expect(running.id).toBe(first.job.id);
    stop.abort();
    expect(handlerSignal?.aborted).toBe(true);
    let settled = false;
    void workerDone.then(() => {
      settled = true;
    });
    // Give a worker that did not wait for its handler time to resolve.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    release();
    await workerDone;
    expect((await jobs.get(first.job.id))?.status).toBe('completed');
    expect((await jobs.get(second.job.id))?.status).toBe('pending');
  });

  it('reports queue failures to onError and keeps polling', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const flaky: JobQueue = {
      ...jobs,
      claim: async (queue, options) => {
        calls += 1;
        if (calls === 1) throw new Error('database unavailable');
        return jobs.claim(queue, options);
      },
    };
    const { job } = await jobs.enqueue('flaky', { n: 1 });
    const stop = new AbortController();
    const done = runWorker({ queue: 'flaky', jobs: flaky, signal: stop.signal, pollIntervalMs: 5, handler: async () => undefined, onError: (error) => errors.push(error) });
    await vi.waitFor(async () => expect((await jobs.get(job.id))?.status).toBe('completed'), eventually);
    stop.abort();
    await done;
    expect(errors).toEqual([new Error('database unavailable')]);
  });

  it('refuses a bad concurrency', async () => {
    await expect(
      runWorker({ queue: 'q', jobs, signal: new AbortController().signal, concurrency: 0, handler: async () => undefined }),
    ).rejects.toThrow(RangeError);
  });
});
