import { expect, it } from 'vitest';
import type { Job } from '../storage/jobs/job-queue';
import { conformanceEpoch, manualQueue, type JobQueueConformanceFixture } from './job-queue-fixture';

function claimed<Payload>(job: Job<Payload> | null): Job<Payload> {
  if (job === null) throw new Error('expected a claimable job');
  return job;
}

/** Registers the failure, backoff, dead-letter and lease cases of the JobQueue suite. */
export function jobQueueRetryCases(fixture: () => JobQueueConformanceFixture): void {
  it('retries failed attempts on the capped exponential schedule, then dead-letters', async () => {
    const { jobs, clock } = manualQueue(fixture());
    await jobs.enqueue('flaky', { n: 1 }, { maxAttempts: 6 });
    // With random() = 0.5, baseMs 1000, maxMs 10000: half of min(10000, 1000 × 2^(attempt−1)).
    const expectedDelays = [500, 1_000, 2_000, 4_000, 5_000];
    const observedDelays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      const job = claimed(await jobs.claim('flaky', { leaseMs: 30_000 }));
      expect(job.attempts).toBe(attempt);
      const failed = await jobs.fail(job, new TypeError(`attempt ${attempt} failed`));
      if (failed === null) throw new Error('the claim should still be held');
      expect(failed.lastError).toBe(`TypeError: attempt ${attempt} failed`);
      expect(failed.lockedUntil).toBeNull();
      if (attempt === 6) {
        expect(failed.status).toBe('dead');
        break;
      }
      expect(failed.status).toBe('pending');
      const delay = failed.runAt.getTime() - clock.now();
      observedDelays.push(delay);
      // Not claimable one millisecond early, claimable on time.
      clock.advance(delay - 1);
      expect(await jobs.claim('flaky', { leaseMs: 30_000 })).toBeNull();
      clock.advance(1);
    }
    expect(observedDelays).toEqual(expectedDelays);
    clock.advance(86_400_000);
    expect(await jobs.claim('flaky', { leaseMs: 30_000 })).toBeNull();
  });

  it('dead-letters after maxAttempts and keeps the last error', async () => {
    const { jobs, clock } = manualQueue(fixture());
    const { job } = await jobs.enqueue('fragile', { n: 1 }, { maxAttempts: 1 });
    const first = claimed(await jobs.claim('fragile', { leaseMs: 1_000 }));
    const dead = await jobs.fail(first, 'upstream said no');
    expect(dead).toMatchObject({ id: job.id, status: 'dead', attempts: 1, lastError: 'upstream said no' });
    clock.advance(3_600_000);
    expect(await jobs.claim('fragile', { leaseMs: 1_000 })).toBeNull();
    expect(await jobs.get(job.id)).toMatchObject({ status: 'dead', lastError: 'upstream said no' });
  });

  it('makes a job claimable again when its lease expires, fencing out the previous holder', async () => {
    const { jobs, clock } = manualQueue(fixture());
    await jobs.enqueue('leased', { n: 1 });
    const firstClaim = claimed(await jobs.claim('leased', { leaseMs: 1_000 }));
    clock.advance(999);
    expect(await jobs.claim('leased', { leaseMs: 1_000 })).toBeNull();
    clock.advance(1);
    const secondClaim = claimed(await jobs.claim('leased', { leaseMs: 1_000 }));
    expect(secondClaim).toMatchObject({ id: firstClaim.id, attempts: 2, lockedUntil: new Date(conformanceEpoch + 2_000) });
    expect(await jobs.complete(firstClaim)).toBeNull();
    expect(await jobs.fail(firstClaim, new Error('late'))).toBeNull();
    expect(await jobs.complete(secondClaim)).toMatchObject({ status: 'completed', attempts: 2, lastError: null });
  });

  it('dead-letters a job whose lease expired on its final attempt', async () => {
    const { jobs, clock } = manualQueue(fixture());
    const { job } = await jobs.enqueue('abandoned', { n: 1 }, { maxAttempts: 2 });
    claimed(await jobs.claim('abandoned', { leaseMs: 1_000 }));
    clock.advance(1_000);
    claimed(await jobs.claim('abandoned', { leaseMs: 1_000 }));
    clock.advance(1_000);
    expect(await jobs.claim('abandoned', { leaseMs: 1_000 })).toBeNull();
    const stored = await jobs.get(job.id);
    expect(stored).toMatchObject({ status: 'dead', attempts: 2, lockedUntil: null });
    expect(stored?.lastError).toMatch(/lease expired/i);
  });

  it('still accepts the outcome of an expired lease nobody reclaimed', async () => {
    const { jobs, clock } = manualQueue(fixture());
    await jobs.enqueue('slow', { n: 1 });
    const job = claimed(await jobs.claim('slow', { leaseMs: 1_000 }));
    clock.advance(5_000);
    expect(await jobs.complete(job)).toMatchObject({ status: 'completed' });
  });
}
