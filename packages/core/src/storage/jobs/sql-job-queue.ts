import type { SqlClient } from '../sql-client';
import { retryDelayMs } from './backoff';
import type { EnqueueOptions, EnqueueResult, Job, JobQueue, JobQueueOptions, JobStatus } from './job-queue';

const defaultMaxAttempts = 5;
const maxErrorLength = 2_000;

const columns = `id, queue, payload, status, attempts, max_attempts, run_at, locked_until, last_error,
  idempotency_key, created_at, updated_at`;

interface JobRow extends Record<string, unknown> {
  id: string;
  queue: string;
  payload: unknown;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  locked_until: Date | null;
  last_error: string | null;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

function toJob<Payload>(row: JobRow): Job<Payload> {
  return {
    id: row.id,
    queue: row.queue,
    payload: row.payload as Payload,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: row.run_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    idempotencyKey: row.idempotency_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function assertQueueName(queue: string): void {
  if (typeof queue !== 'string' || queue === '') throw new TypeError('queue must be a non-empty string.');
}

/** The message stored as `lastError`: the error's name and message, bounded. */
function describeFailure(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  else if (typeof error === 'string') text = error;
  else text = String(error);
  return text.length > maxErrorLength ? `${text.slice(0, maxErrorLength)}…` : text;
}

/**
 * The {@link JobQueue} over the `tollgate_jobs` table (core migration 001). Claiming is one
 * `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)`, so any number of instances can poll the
 * same queue: each due job goes to exactly one of them and none waits on another's lock.
 *
 * @param sql - database with the core migrations applied
 * @param options - the `Clock` (every stored time comes from it), jitter source, backoff bounds
 *
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createSqlJobQueue } from '@tollgate/core/storage';
 * const jobs = createSqlJobQueue(sql, { clock: systemClock });
 * await jobs.enqueue('webhooks', { eventId: 'evt_1' }, { idempotencyKey: 'evt_1' });
 * const job = await jobs.claim('webhooks', { leaseMs: 30_000 });
 * if (job) await jobs.complete(job);
 * ```
 */
export function createSqlJobQueue(sql: SqlClient, options: JobQueueOptions): JobQueue {
  const { clock, random = Math.random, backoff = {} } = options;
  const now = (): Date => new Date(clock.now());

  const findByKey = async <Payload>(queue: string, key: string): Promise<Job<Payload> | null> => {
    const { rows } = await sql.query<JobRow>(
      `SELECT ${columns} FROM tollgate_jobs WHERE queue = $1 AND idempotency_key = $2`,
      [queue, key],
    );
    return rows[0] === undefined ? null : toJob<Payload>(rows[0]);
  };

  return {
    async enqueue<Payload>(queue: string, payload: Payload, enqueueOptions: EnqueueOptions = {}): Promise<EnqueueResult<Payload>> {
      assertQueueName(queue);
      const { idempotencyKey, runAt, maxAttempts = defaultMaxAttempts } = enqueueOptions;
      if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer.');
      if (runAt !== undefined && (!(runAt instanceof Date) || Number.isNaN(runAt.getTime()))) {
        throw new TypeError('runAt must be a valid Date.');
      }
      if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === '')) {
        throw new TypeError('idempotencyKey must be a non-empty string.');
      }
      const json: unknown = JSON.stringify(payload);
      if (typeof json !== 'string') throw new TypeError('The job payload must be JSON-serializable.');
      const createdAt = now();
      // A conflicting insert waits for the first one to commit, then does nothing; the follow-up
      // SELECT runs in a new snapshot and so sees the winner. Loop in case that job was purged meanwhile.
      for (let round = 0; round < 3; round += 1) {
        const { rows } = await sql.query<JobRow>(
          `INSERT INTO tollgate_jobs (queue, payload, idempotency_key, max_attempts, run_at, created_at, updated_at)
           VALUES ($1, $2::jsonb, $3, $4, $5, $6, $6)
           ON CONFLICT (queue, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
           RETURNING ${columns}`,
          [queue, json, idempotencyKey ?? null, maxAttempts, runAt ?? createdAt, createdAt],
        );
        if (rows[0] !== undefined) return { job: toJob<Payload>(rows[0]), created: true };
        const existing = await findByKey<Payload>(queue, idempotencyKey as string);
        if (existing !== null) return { job: existing, created: false };
      }
      throw new Error(`Could not enqueue on "${queue}": the idempotency key kept conflicting with a vanishing job.`);
    },

    async claim<Payload = unknown>(queue: string, claimOptions: { leaseMs: number }): Promise<Job<Payload> | null> {
      assertQueueName(queue);
      const { leaseMs } = claimOptions;
      if (!Number.isInteger(leaseMs) || leaseMs <= 0) throw new RangeError('leaseMs must be a positive integer.');
      const claimedAt = now();
      // A lease that expired on the final attempt is not retried: the job is dead-lettered.
      await sql.query(
        `UPDATE tollgate_jobs
         SET status = 'dead', locked_until = NULL, updated_at = $2,
             last_error = 'Lease expired on the final attempt: the worker stopped without completing or failing the job.'
         WHERE queue = $1 AND status = 'running' AND locked_until <= $2 AND attempts >= max_attempts`,
        [queue, claimedAt],
      );
      const { rows } = await sql.query<JobRow>(
        `UPDATE tollgate_jobs
         SET status = 'running', attempts = attempts + 1, locked_until = $3, updated_at = $2
         WHERE id = (
           SELECT id FROM tollgate_jobs
           WHERE queue = $1
             AND ((status = 'pending' AND run_at <= $2)
               OR (status = 'running' AND locked_until <= $2 AND attempts < max_attempts))
           ORDER BY run_at, id
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
         RETURNING ${columns}`,
        [queue, claimedAt, new Date(claimedAt.getTime() + leaseMs)],
      );
      return rows[0] === undefined ? null : toJob<Payload>(rows[0]);
    },

    async complete<Payload>(job: Job<Payload>): Promise<Job<Payload> | null> {
      const { rows } = await sql.query<JobRow>(
        `UPDATE tollgate_jobs SET status = 'completed', locked_until = NULL, updated_at = $3
         WHERE id = $1 AND status = 'running' AND attempts = $2
         RETURNING ${columns}`,
        [job.id, job.attempts, now()],
      );
      return rows[0] === undefined ? null : toJob<Payload>(rows[0]);
    },

    async fail<Payload>(job: Job<Payload>, error: unknown): Promise<Job<Payload> | null> {
      const failedAt = now();
      const retryAt = new Date(failedAt.getTime() + retryDelayMs(job.attempts, backoff, random));
      // Whether to retry is decided from the stored attempts, not the caller's copy.
      const { rows } = await sql.query<JobRow>(
        `UPDATE tollgate_jobs
         SET status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
             run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE $3 END,
             locked_until = NULL, last_error = $4, updated_at = $5
         WHERE id = $1 AND status = 'running' AND attempts = $2
         RETURNING ${columns}`,
        [job.id, job.attempts, retryAt, describeFailure(error), failedAt],
      );
      return rows[0] === undefined ? null : toJob<Payload>(rows[0]);
    },

    async get<Payload = unknown>(id: string): Promise<Job<Payload> | null> {
      if (!/^\d{1,19}$/.test(id)) return null;
      const { rows } = await sql.query<JobRow>(`SELECT ${columns} FROM tollgate_jobs WHERE id = $1`, [id]);
      return rows[0] === undefined ? null : toJob<Payload>(rows[0]);
    },
  };
}
