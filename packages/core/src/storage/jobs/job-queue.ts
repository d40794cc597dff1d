import type { Clock } from '../../time/clock';

/** Lifecycle of a job: `pending` → `running` → `completed`, or back to `pending` to retry, or `dead`. */
export type JobStatus = 'pending' | 'running' | 'completed' | 'dead';

/** A job as stored. `Payload` is whatever JSON value was enqueued. */
export interface Job<Payload = unknown> {
  /** Opaque identifier (decimal text). */
  readonly id: string;
  readonly queue: string;
  readonly payload: Payload;
  readonly status: JobStatus;
  /** Attempts started so far, including a running one. */
  readonly attempts: number;
  /** After this many failed attempts the job goes `dead`. */
  readonly maxAttempts: number;
  /** Not claimable before this time. */
  readonly runAt: Date;
  /** While `running`: when the lease ends and the job becomes claimable again. */
  readonly lockedUntil: Date | null;
  /** Message of the latest failure (kept when the job is dead). */
  readonly lastError: string | null;
  readonly idempotencyKey: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Options of {@link JobQueue.enqueue}. */
export interface EnqueueOptions {
  /**
   * Deduplicates enqueues: while a job with this key exists on the queue (in any status, forever),
   * enqueueing again returns it instead of adding a second job.
   */
  idempotencyKey?: string;
  /** Earliest time the job may run (default: now). */
  runAt?: Date;
  /** Attempts before the job is dead-lettered (default 5). */
  maxAttempts?: number;
}

/** What {@link JobQueue.enqueue} returns. */
export interface EnqueueResult<Payload = unknown> {
  job: Job<Payload>;
  /** `false` when an existing job with the same idempotency key was returned. */
  created: boolean;
}

/** Retry delays after a failed attempt: exponential with full jitter, capped. */
export interface BackoffOptions {
  /** Upper bound of the delay after the first failure, in ms (default 1 000). */
  baseMs?: number;
  /** Upper bound of any delay, in ms (default 3 600 000: one hour). */
  maxMs?: number;
}

/** Common construction options of {@link JobQueue} implementations (the conformance suite passes them). */
export interface JobQueueOptions {
  /** Source of every time the queue stores or compares. */
  clock: Clock;
  /** Uniform random numbers in `[0, 1)` for backoff jitter (default `Math.random`). */
  random?: () => number;
  backoff?: BackoffOptions;
}

/**
 * A durable queue of background jobs shared by every server instance.
 *
 * Contract:
 * - `enqueue` is idempotent per (`queue`, `idempotencyKey`): concurrent calls with one key create one job.
 * - `claim` hands a due job to exactly one caller, even under concurrent claims from many instances;
 *   the job is `running` with a lease of `leaseMs`. Jobs are claimed in `runAt` order; a job whose
 *   lease expired (its worker died) is claimable again and counts a new attempt, unless it has used
 *   all attempts, in which case it is dead-lettered instead.
 * - `complete` and `fail` act only if the caller still holds the claim (same job, same attempt, still
 *   running); otherwise they change nothing and resolve to `null`, so a worker that lost its lease
 *   cannot overwrite the new holder's outcome.
 * - `fail` schedules a retry at `now + backoff(attempts)` or, after `maxAttempts` attempts, marks the
 *   job `dead` keeping the error message.
 * - All times come from the injected `Clock`.
 */
export interface JobQueue {
  /**
   * Adds a job (or returns the existing one with the same idempotency key). The payload is stored as
   * JSON: it must be JSON-serializable and comes back as parsed JSON (a `Date` comes back a string).
   */
  enqueue<Payload>(queue: string, payload: Payload, options?: EnqueueOptions): Promise<EnqueueResult<Payload>>;
  /** Claims the next due job of `queue` for `leaseMs`, or resolves to `null` when none is due. */
  claim<Payload = unknown>(queue: string, options: { leaseMs: number }): Promise<Job<Payload> | null>;
  /** Marks a claimed job completed; `null` when the claim was lost. */
  complete<Payload>(job: Job<Payload>): Promise<Job<Payload> | null>;
  /** Records a failed attempt (retry later or dead-letter); `null` when the claim was lost. */
  fail<Payload>(job: Job<Payload>, error: unknown): Promise<Job<Payload> | null>;
  /** Reads a job by id. */
  get<Payload = unknown>(id: string): Promise<Job<Payload> | null>;
}
