import { addDays as addAnalyticsDays, utcDayOf as analyticsDayOf, daysBetween as analyticsDaysBetween } from '../../analytics/analytics-days';
import { drainAnalyticsOutbox } from '../../analytics/analytics-drain';
import { rollupAnalyticsDay } from '../../analytics/analytics-rollup';
import type { AnalyticsKeys } from '../../analytics/analytics-keys';
import type { Clock } from '../../../time/clock';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseLogSink } from '../logger';
import type { LicenseAnalyticsConfig as AnalyticsConfig } from '../feature-configs';
import { startPeriodicJob, type PeriodicJob } from './periodic-job';

/** When a day's rollup is due (UTC): 00:15 of the next day (spec "Telemetry block" rule 4). */
export const analyticsRollupCron = '15 0 * * *';
const dueAfterMidnightMs = 15 * 60 * 1000;

/** The advisory lock that makes the rollup one instance's work at a time, cluster-wide. */
const rollupLockKey = 'tollgate:analytics-rollup';

/** What one round did. */
export interface AnalyticsRollupRound {
  /** Events moved from the outbox into the pseudonymised events table. */
  readonly drained: number;
  /** Days rolled up by this instance in this round, oldest first. */
  readonly rolledUp: readonly string[];
  /** Days whose rollup threw in this round (recorded as failed, retried with backoff). */
  readonly failed: readonly string[];
  /** Another instance held the rollup lock: it is doing the days, this round left them alone. */
  readonly busy: boolean;
  /** Raw events removed for being past retention. */
  readonly purged: number;
}

/** What the job works with. */
export interface AnalyticsRollupJobOptions {
  readonly sql: SqlClient;
  readonly keys: AnalyticsKeys;
  readonly clock: Clock;
  readonly logger: LicenseLogSink;
  readonly config: Pick<AnalyticsConfig, 'rawRetentionDays' | 'jobIntervalMs' | 'catchUpDays'>;
}

/**
 * The latest day whose rollup is due at `now`: yesterday once it is 00:15 UTC, the day before until then.
 *
 * @example
 * ```ts
 * analyticsDueThrough(Date.parse('2025-03-02T00:20:00Z')); // '2025-03-01'
 * ```
 */
export function analyticsDueThrough(now: number): string {
  return addAnalyticsDays(analyticsDayOf(now - dueAfterMidnightMs), -1);
}

/** Backoff after a day's rollup failed: 1 h doubling per failure, at most 24 h. */
export function analyticsRetryDelayMs(failures: number): number {
  return Math.min(24, 2 ** Math.max(0, failures - 1)) * 3_600_000;
}

/**
 * The days the round should try, oldest first, all inside the catch-up window: failed days whose retry
 * is due, then every day after the latest recorded one (before the first rollup: from the oldest raw data
 * still kept, or the due day when there is none).
 */
async function daysToTry(sql: SqlClient, dueThrough: string, catchUpDays: number, now: Date): Promise<string[]> {
  const earliestAllowed = addAnalyticsDays(dueThrough, 1 - catchUpDays);
  const { rows: retries } = await sql.query<{ day: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM license_analytics_rollup_days
     WHERE status = 'failed' AND day BETWEEN $1::date AND $2::date AND (next_attempt_at IS NULL OR next_attempt_at <= $3) ORDER BY day`,
    [earliestAllowed, dueThrough, now],
  );
  const { rows } = await sql.query<{ latest: string | null; oldest: string | null }>(
    `SELECT to_char(max(day), 'YYYY-MM-DD') AS latest,
       to_char(least((SELECT min(occurred_at) FROM license_analytics_events), (SELECT min(received_at) FROM license_telemetry_raw)) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS oldest
     FROM license_analytics_rollup_days`,
  );
  const latest = rows[0]?.latest ?? null;
  let first = latest !== null ? addAnalyticsDays(latest, 1) : (rows[0]?.oldest ?? dueThrough);
  if (analyticsDaysBetween(earliestAllowed, first) < 0) first = earliestAllowed;
  const days = retries.map((row) => row.day).filter((day) => analyticsDaysBetween(day, first) > 0);
  for (let day = first; analyticsDaysBetween(day, dueThrough) >= 0; day = addAnalyticsDays(day, 1)) days.push(day);
  return days;
}

type RollupOutcome = 'rolled' | 'done' | 'busy' | 'deferred' | { failed: unknown };

/**
 * Rolls up one day if no instance has: in one transaction it takes the cluster-wide advisory lock
 * without waiting (`pg_try_advisory_xact_lock`; `busy` when another instance holds it), skips a day
 * already complete, defers a day whose events are still in the outbox (a drain running side by side has
 * them locked), and otherwise rolls it up in a savepoint (`rollupAnalyticsDay`). A rollup that throws is
 * rolled back to the savepoint and recorded as `failed` with its next attempt time, in the same
 * transaction as the lock, so the round goes on with later days.
 */
async function rollupIfMissing(sql: SqlClient, day: string, now: Date): Promise<RollupOutcome> {
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [rollupLockKey]);
    if (rows[0]?.locked !== true) return 'busy';
    const done = await tx.query("SELECT 1 FROM license_analytics_rollup_days WHERE day = $1::date AND status = 'complete'", [day]);
    if (done.rows.length > 0) return 'done';
    const pending = await tx.query('SELECT 1 FROM license_analytics_outbox WHERE occurred_at >= $1 AND occurred_at < $2 LIMIT 1', [
      new Date(`${day}T00:00:00Z`),
      new Date(`${addAnalyticsDays(day, 1)}T00:00:00Z`),
    ]);
    if (pending.rows.length > 0) return 'deferred';
    try {
      await tx.transaction((savepoint) => rollupAnalyticsDay(savepoint, day, now));
      return 'rolled';
    } catch (error) {
      const { rows: previous } = await tx.query<{ failures: number }>('SELECT failures FROM license_analytics_rollup_days WHERE day = $1::date', [day]);
      const failures = (previous[0]?.failures ?? 0) + 1;
      await tx.query(
        `INSERT INTO license_analytics_rollup_days (day, status, events, t1_blocks, runs, completed_at, failures, next_attempt_at, last_error)
         VALUES ($1::date, 'failed', 0, 0, 0, NULL, $2, $3, $4)
         ON CONFLICT (day) DO UPDATE SET failures = EXCLUDED.failures, next_attempt_at = EXCLUDED.next_attempt_at, last_error = EXCLUDED.last_error`,
        [day, failures, new Date(now.getTime() + analyticsRetryDelayMs(failures)), String(error instanceof Error ? error.message : error).slice(0, 500)],
      );
      return { failed: error };
    }
  });
}

/**
 * One round of the analytics job: move new events out of the outbox; roll up every day that is due and
 * not yet rolled up (missed days after downtime included, at most `catchUpDays` back), oldest first. A day whose rollup
 * throws is logged, recorded as failed and retried with backoff (1 h doubling to 24 h) in later rounds;
 * the round goes on with later days, so one bad day blocks neither them, the purge nor the reports.
 * Then purge raw events older than `rawRetentionDays`, but never events of a day not yet attempted.
 *
 * @param options - Database, keys, clock, logger, settings.
 * @returns What the round did.
 * @example
 * ```ts
 * import { runAnalyticsRollup } from '@tollgate/core/license';
 * const round = await runAnalyticsRollup({ sql, keys, clock, logger, config: config.analytics });
 * ```
 */
export async function runAnalyticsRollup(options: AnalyticsRollupJobOptions, isClosed: () => boolean = () => false): Promise<AnalyticsRollupRound> {
  const { sql, keys, clock, config } = options;
  const drained = await drainAnalyticsOutbox(sql, keys);
  const nowMs = clock.now();
  const dueThrough = analyticsDueThrough(nowMs);
  const rolledUp: string[] = [];
  const failed: string[] = [];
  let busy = false;
  for (const day of await daysToTry(sql, dueThrough, config.catchUpDays, new Date(nowMs))) {
    if (isClosed()) break;
    const outcome = await rollupIfMissing(sql, day, new Date(nowMs));
    if (outcome === 'busy') {
      busy = true;
      break;
    }
    // Events of that day are still in the outbox (locked by a drain running side by side): stop here,
    // so no later day is recorded before it, and take it up next round.
    if (outcome === 'deferred') break;
    if (outcome === 'rolled') rolledUp.push(day);
    else if (typeof outcome === 'object') {
      failed.push(day);
      options.logger.error({ err: outcome.failed, day }, 'analytics rollup of a day failed; later days go on, this one is retried with backoff');
    }
  }
  // Every day up to the cutoff was attempted (complete, or failed and logged): a day failing for the
  // whole retention period loses its raw events, as retention requires.
  const { rows: attempted } = await sql.query<{ day: string | null }>(
    `SELECT to_char(max(day), 'YYYY-MM-DD') AS day FROM license_analytics_rollup_days`,
  );
  const through = attempted[0]?.day ?? null;
  let purged = 0;
  if (through !== null) {
    const cutoff = new Date(Math.min(Date.parse(`${addAnalyticsDays(through, 1)}T00:00:00Z`), nowMs - config.rawRetentionDays * 86_400_000));
    purged = (await sql.query('DELETE FROM license_analytics_events WHERE occurred_at < $1', [cutoff])).rowCount;
  }
  return { drained, rolledUp, failed, busy, purged };
}

/**
 * Starts the analytics job on this instance: a round at once (catching up missed days) and then every
 * `jobIntervalMs`. Every instance runs it: draining is safe side by side, and the rollup of a day is one
 * instance's (see `runAnalyticsRollup`). A failed round is logged and retried by the next one.
 *
 * @param options - Database, keys, clock, logger, settings.
 * @returns The job (`runOnce()`, `close()`).
 * @example
 * ```ts
 * import { startAnalyticsRollupJob } from '@tollgate/core/license';
 * const job = startAnalyticsRollupJob({ sql, keys, clock, logger, config: config.analytics });
 * await job.close();
 * ```
 */
export function startAnalyticsRollupJob(options: AnalyticsRollupJobOptions): PeriodicJob<AnalyticsRollupRound | undefined> {
  const job = startPeriodicJob<AnalyticsRollupRound | undefined>(options.config.jobIntervalMs, undefined, async (isClosed) => {
    try {
      const round = await runAnalyticsRollup(options, isClosed);
      if (round.rolledUp.length > 0 || round.purged > 0) options.logger.info({ days: round.rolledUp, purged: round.purged }, 'analytics rolled up');
      return round;
    } catch (error) {
      options.logger.error({ err: error }, 'analytics round failed; retrying next round');
      return undefined;
    }
  });
  void job.runOnce();
  return job;
}
