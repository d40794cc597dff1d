import type { JobQueue, JobQueueOptions } from '../storage/jobs/job-queue';
import { ManualClock } from '../time/clock';
import type { ConformanceFixture } from './conformance';

/** A store for the JobQueue suite: builds queues over it with the options the suite chooses. */
export interface JobQueueConformanceFixture extends ConformanceFixture {
  /** Creates a queue honouring `clock`, `random` and `backoff` (see {@link JobQueueOptions}). */
  createQueue(options: JobQueueOptions): JobQueue;
}

/** The suite's start time: a fixed instant, so expected timestamps are exact. */
export const conformanceEpoch = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A queue over the fixture with a manual clock at {@link conformanceEpoch} and jitter fixed at 0.5. */
export function manualQueue(fixture: JobQueueConformanceFixture): { jobs: JobQueue; clock: ManualClock } {
  const clock = new ManualClock(conformanceEpoch);
  return { clock, jobs: fixture.createQueue({ clock, random: () => 0.5, backoff: { baseMs: 1_000, maxMs: 10_000 } }) };
}
