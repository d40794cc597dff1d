import { expect, it } from 'vitest';
import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import { conformanceEpoch, manualQueue, type JobQueueConformanceFixture } from './job-queue-fixture';
import { jobQueueRetryCases } from './job-queue-retry-cases';

/**
 * Conformance suite of the {@link JobQueue} port: idempotent enqueue (also 50 at once), run-at order,
 * exactly-one claim among 50 parallel claimers, leases and their expiry, fenced complete/fail,
 * backoff schedule and dead-lettering. Time is driven by a `ManualClock`; nothing sleeps.
 *
 * @param options - `name` and `open()` returning a fixture that builds queues
 *
 * @example
 * ```ts
 * import { describeJobQueueConformance, openTestDatabase } from '@tollgate/core/testing';
 * import { coreMigrations } from '@tollgate/core';
 * import { createSqlJobQueue } from '@tollgate/core/storage';
 * describeJobQueueConformance({
 *   name: 'pglite',
 *   open: async () => {
 *     const db = await openTestDatabase({ migrations: [coreMigrations] });
 *     return { ...db, createQueue: (options) => createSqlJobQueue(db.sql, options) };
 *   },
 * });
 * ```
 */
export function describeJobQueueConformance(options: ConformanceSuiteOptions<JobQueueConformanceFixture>): void {
  describeConformance('JobQueue', options, (fixture) => {
    it('enqueues a pending job with defaults', async () => {
      const { jobs } = manualQueue(fixture());
      const { job, created } = await jobs.enqueue('mail', { to: 'a@example.com', tags: ['x'] });
      expect(created).toBe(true);
      expect(job).toMatchObject({
        queue: 'mail',
        payload: { to: 'a@example.com', tags: ['x'] },
        status: 'pending',
        attempts: 0,
        maxAttempts: 5,
        runAt: new Date(conformanceEpoch),
        lockedUntil: null,
        lastError: null,
        idempotencyKey: null,
        createdAt: new Date(conformanceEpoch),
      });
      expect(typeof job.id).toBe('string');
      expect(await jobs.get(job.id)).toEqual(job);
    });

    it('returns the existing job for a repeated idempotency key on the same queue only', async () => {
      const { jobs } = manualQueue(fixture());
      const first = await jobs.enqueue('mail', { n: 1 }, { idempotencyKey: 'evt_1' });
      const again = await jobs.enqueue('mail', { n: 2 }, { idempotencyKey: 'evt_1' });
      expect(again).toEqual({ job: first.job, created: false });
      const otherQueue = await jobs.enqueue('sms', { n: 3 }, { idempotencyKey: 'evt_1' });
      expect(otherQueue.created).toBe(true);
      expect(otherQueue.job.id).not.toBe(first.job.id);
    });

    it('creates one job when 50 enqueues with one key race', async () => {
      const { jobs } = manualQueue(fixture());
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, n) => jobs.enqueue('race', { n }, { idempotencyKey: 'same' })),
      );
      expect(new Set(results.map((result) => result.job.id)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
    });

    it('hands a job to exactly one of 50 parallel claimers', async () => {
      const { jobs } = manualQueue(fixture());
      const { job } = await jobs.enqueue('race', { only: true });
      const claims = await Promise.all(Array.from({ length: 50 }, () => jobs.claim('race', { leaseMs: 60_000 })));
      const winners = claims.filter((claim) => claim !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({
        id: job.id,
        status: 'running',
        attempts: 1,
        lockedUntil: new Date(conformanceEpoch + 60_000),
      });
    });

    it('claims due jobs in run-at order and not before their time', async () => {
      const { jobs, clock } = manualQueue(fixture());
      expect(await jobs.claim('ordered', { leaseMs: 60_000 })).toBeNull();
      const later = await jobs.enqueue('ordered', 'later', { runAt: new Date(conformanceEpoch + 5_000) });
      const soon = await jobs.enqueue('ordered', 'soon', { runAt: new Date(conformanceEpoch + 1_000) });
      const now = await jobs.enqueue('ordered', 'now');
      await jobs.enqueue('elsewhere', 'other queue');
      expect((await jobs.claim('ordered', { leaseMs: 60_000 }))?.id).toBe(now.job.id);
      expect(await jobs.claim('ordered', { leaseMs: 60_000 })).toBeNull();
      clock.advance(1_000);
      expect((await jobs.claim('ordered', { leaseMs: 60_000 }))?.id).toBe(soon.job.id);
      clock.advance(3_999);
      expect(await jobs.claim('ordered', { leaseMs: 60_000 })).toBeNull();
      clock.advance(1);
      expect((await jobs.claim('ordered', { leaseMs: 60_000 }))?.id).toBe(later.job.id);
    });

    it('completes a claimed job once; completed jobs are never claimed again', async () => {
      const { jobs, clock } = manualQueue(fixture());
      await jobs.enqueue('done', { x: 1 });
      const claimed = await jobs.claim('done', { leaseMs: 1_000 });
      if (claimed === null) throw new Error('expected a job');
      clock.advance(10);
      const completed = await jobs.complete(claimed);
      expect(completed).toMatchObject({ status: 'completed', lockedUntil: null, updatedAt: new Date(conformanceEpoch + 10) });
      expect(await jobs.complete(claimed)).toBeNull();
      clock.advance(86_400_000);
      expect(await jobs.claim('done', { leaseMs: 1_000 })).toBeNull();
    });

    it('returns null for unknown ids', async () => {
      const { jobs } = manualQueue(fixture());
      expect(await jobs.get('999999')).toBeNull();
      expect(await jobs.get('not-an-id')).toBeNull();
    });

    it('rejects bad input', async () => {
      const { jobs } = manualQueue(fixture());
      await expect(jobs.enqueue('', {})).rejects.toThrow(TypeError);
      await expect(jobs.enqueue('q', undefined)).rejects.toThrow(TypeError);
      await expect(jobs.enqueue('q', {}, { maxAttempts: 0 })).rejects.toThrow(RangeError);
      await expect(jobs.enqueue('q', {}, { runAt: new Date(Number.NaN) })).rejects.toThrow(TypeError);
      await expect(jobs.enqueue('q', {}, { idempotencyKey: '' })).rejects.toThrow(TypeError);
      await expect(jobs.claim('q', { leaseMs: 0 })).rejects.toThrow(RangeError);
      await expect(jobs.claim('', { leaseMs: 1_000 })).rejects.toThrow(TypeError);
    });

    jobQueueRetryCases(fixture);
  });
}
