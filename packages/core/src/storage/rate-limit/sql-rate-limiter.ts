import type { Clock } from '../../time/clock';
import type { SqlClient } from '../sql-client';
import { assertRateLimitInput, type RateLimitDecision, type RateLimiter, type RateLimitRule } from './rate-limiter';

/** Where {@link sqlRateLimitUpsert} finds its inputs: SQL parameter placeholders such as `$1`. */
export interface SqlRateLimitParams {
  /** The key (text). */
  readonly key: string;
  /** Now in Unix milliseconds (an integer). */
  readonly nowMs: string;
  /** `rule.limit`. */
  readonly limit: string;
  /** `rule.windowMs`. */
  readonly windowMs: string;
  /**
   * A SQL condition: when given, the request is charged only if it holds (the row is inserted with
   * `SELECT … WHERE <when>`), and the statement returns no row otherwise.
   */
  readonly when?: string;
}

/**
 * The GCRA step of gcra.ts as one SQL upsert over the scaled integers, returning `tat` and `allowed`.
 * One statement, so it is atomic per key: concurrent upserts of a key queue on its row lock and each
 * sees the previous one's tat. An unseen key is inserted as the first, always allowed, request.
 * Exposed so a caller can spend a budget inside a statement of its own (a data-modifying CTE) and save
 * a round trip; turn the returned row into a decision with {@link sqlRateLimitDecision}.
 *
 * @param p - The placeholders of the inputs.
 * @returns The statement text (no trailing semicolon).
 * @example
 * ```ts
 * import { sqlRateLimitUpsert } from '@tollgate/core/storage';
 * const text = `WITH budget AS (${sqlRateLimitUpsert({ key: '$1', nowMs: '$2', limit: '$3', windowMs: '$4' })}) SELECT tat, allowed FROM budget`;
 * ```
 */
export function sqlRateLimitUpsert(p: SqlRateLimitParams): string {
  const nowScaled = `(${p.nowMs}::bigint * ${p.limit}::int)`;
  const capacity = `(${p.windowMs}::bigint * ${p.limit}::int)`;
  const base = `(CASE WHEN r.rate_limit = ${p.limit}::int AND r.window_ms = ${p.windowMs}::bigint AND r.tat > ${nowScaled} THEN r.tat ELSE ${nowScaled} END)`;
  const fits = `(${base} + ${p.windowMs}::bigint - ${nowScaled} <= ${capacity})`;
  return `
  INSERT INTO tollgate_rate_limits AS r (key, tat, rate_limit, window_ms, refilled_at_ms, allowed)
  ${p.when === undefined ? 'VALUES (' : 'SELECT '}${p.key}, ${nowScaled} + ${p.windowMs}::bigint, ${p.limit}::int, ${p.windowMs}::bigint, (${nowScaled} + ${p.windowMs}::bigint + ${p.limit}::int - 1) / ${p.limit}::int, true${p.when === undefined ? ')' : ` WHERE ${p.when}`}
  ON CONFLICT (key) DO UPDATE SET
    tat = CASE WHEN ${fits} THEN ${base} + ${p.windowMs}::bigint ELSE r.tat END,
    refilled_at_ms = CASE WHEN ${fits} THEN (${base} + ${p.windowMs}::bigint + ${p.limit}::int - 1) / ${p.limit}::int ELSE r.refilled_at_ms END,
    allowed = ${fits},
    rate_limit = ${p.limit}::int,
    window_ms = ${p.windowMs}::bigint
  RETURNING tat, allowed`;
}

const consumeSql = sqlRateLimitUpsert({ key: '$1', nowMs: '$2', limit: '$3', windowMs: '$4' });

/**
 * The decision of one {@link sqlRateLimitUpsert} row, exactly as `consume` answers it.
 *
 * @param row - `tat` (as text or bigint) and `allowed` from the upsert.
 * @param nowMs - The `nowMs` the upsert was given.
 * @param rule - The rule it was given.
 * @returns The decision.
 * @example
 * ```ts
 * import { sqlRateLimitDecision } from '@tollgate/core/storage';
 * const decision = sqlRateLimitDecision(rows[0], nowMs, rule);
 * ```
 */
export function sqlRateLimitDecision(row: { tat: string | number | bigint; allowed: boolean }, nowMs: number, rule: RateLimitRule): RateLimitDecision {
  const limit = BigInt(rule.limit);
  const interval = BigInt(rule.windowMs);
  const now = BigInt(nowMs) * limit;
  const tat = BigInt(row.tat);
  if (row.allowed) {
    return { allowed: true, remaining: Number((interval * limit - (tat - now)) / interval), retryAfterMs: 0 };
  }
  const waitScaled = tat + interval - interval * limit - now;
  return { allowed: false, remaining: 0, retryAfterMs: Number((waitScaled + limit - 1n) / limit) };
}

// Which database each SQL limiter writes to: a caller holding a limiter may fold its upsert into a
// statement of its own only when that statement runs on the same database.
const limiterDatabases = new WeakMap<RateLimiter, SqlClient>();

/**
 * The database a limiter made by {@link createSqlRateLimiter} keeps its buckets in, or `undefined` for
 * any other limiter. A caller that runs {@link sqlRateLimitUpsert} itself must check that this is its
 * own database (the buckets live in one table), else call `consume`.
 *
 * @param limiter - Any rate limiter.
 * @returns Its database, if it is a SQL limiter.
 * @example
 * ```ts
 * import { sqlRateLimiterDatabase } from '@tollgate/core/storage';
 * const foldable = sqlRateLimiterDatabase(limiter) === sql;
 * ```
 */
export function sqlRateLimiterDatabase(limiter: RateLimiter | undefined): SqlClient | undefined {
  return limiter === undefined ? undefined : limiterDatabases.get(limiter);
}

/**
 * The {@link RateLimiter} shared by every instance through the `tollgate_rate_limits` table (core
 * migration 002): one atomic upsert per request, exact integer GCRA (see `gcraStep`).
 *
 * @param sql - database with the core migrations applied
 * @param options - the `Clock`
 *
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createSqlRateLimiter } from '@tollgate/core/storage';
 * const limiter = createSqlRateLimiter(sql, { clock: systemClock });
 * const { allowed, retryAfterMs } = await limiter.consume(`ip:${ip}`, { limit: 60, windowMs: 60_000 });
 * ```
 */
export function createSqlRateLimiter(sql: SqlClient, options: { clock: Clock }): RateLimiter {
  const { clock } = options;
  const limiter: RateLimiter = {
    async consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
      assertRateLimitInput(key, rule);
      const nowMs = Math.floor(clock.now());
      const { rows } = await sql.query<{ tat: string; allowed: boolean }>(consumeSql, [key, nowMs, rule.limit, rule.windowMs]);
      const row = rows[0];
      if (row === undefined) throw new Error('The rate-limit upsert returned no row.');
      return sqlRateLimitDecision(row, nowMs, rule);
    },

    async prune(): Promise<number> {
      const { rowCount } = await sql.query('DELETE FROM tollgate_rate_limits WHERE refilled_at_ms <= $1', [
        Math.floor(clock.now()),
      ]);
      return rowCount;
    },
  };
  limiterDatabases.set(limiter, sql);
  return limiter;
}
