import type { Clock } from '../../time/clock';
import type { SqlClient } from '../sql-client';
import { assertRateLimitInput, type RateLimitDecision, type RateLimiter, type RateLimitRule } from './rate-limiter';

// The GCRA step of gcra.ts as SQL over the scaled integers ($2 now ms, $3 limit, $4 window ms).
const nowScaled = '($2::bigint * $3::int)';
const capacity = '($4::bigint * $3::int)';
const base = `(CASE WHEN r.rate_limit = $3::int AND r.window_ms = $4::bigint AND r.tat > ${nowScaled} THEN r.tat ELSE ${nowScaled} END)`;
const fits = `(${base} + $4::bigint - ${nowScaled} <= ${capacity})`;

// One statement, so it is atomic per key: concurrent upserts of a key queue on its row lock and each
// sees the previous one's tat. An unseen key is inserted as the first, always allowed, request.
const consumeSql = `
  INSERT INTO tollgate_rate_limits AS r (key, tat, rate_limit, window_ms, refilled_at_ms, allowed)
  VALUES ($1, ${nowScaled} + $4::bigint, $3::int, $4::bigint, (${nowScaled} + $4::bigint + $3::int - 1) / $3::int, true)
  ON CONFLICT (key) DO UPDATE SET
    tat = CASE WHEN ${fits} THEN ${base} + $4::bigint ELSE r.tat END,
    refilled_at_ms = CASE WHEN ${fits} THEN (${base} + $4::bigint + $3::int - 1) / $3::int ELSE r.refilled_at_ms END,
    allowed = ${fits},
    rate_limit = $3::int,
    window_ms = $4::bigint
  RETURNING tat, allowed`;

/**
 * The {@link RateLimiter} shared by every instance through the `tollgate_rate_limits` table (core
 * migration 002): one atomic upsert per request, exact integer GCRA (see `gcraStep`).
 *
 * @param sql - database with the core migrations applied
 * @param options - the `Clock`
 *
 * @example
 * ```ts
 * import { createSqlRateLimiter, systemClock } from '@tollgate/core';
 * const limiter = createSqlRateLimiter(sql, { clock: systemClock });
 * const { allowed, retryAfterMs } = await limiter.consume(`ip:${ip}`, { limit: 60, windowMs: 60_000 });
 * ```
 */
export function createSqlRateLimiter(sql: SqlClient, options: { clock: Clock }): RateLimiter {
  const { clock } = options;
  return {
    async consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
      assertRateLimitInput(key, rule);
      const nowMs = Math.floor(clock.now());
      const { rows } = await sql.query<{ tat: string; allowed: boolean }>(consumeSql, [key, nowMs, rule.limit, rule.windowMs]);
      const row = rows[0];
      if (row === undefined) throw new Error('The rate-limit upsert returned no row.');
      const limit = BigInt(rule.limit);
      const interval = BigInt(rule.windowMs);
      const now = BigInt(nowMs) * limit;
      const tat = BigInt(row.tat);
      if (row.allowed) {
        return { allowed: true, remaining: Number((interval * limit - (tat - now)) / interval), retryAfterMs: 0 };
      }
      const waitScaled = tat + interval - interval * limit - now;
      return { allowed: false, remaining: 0, retryAfterMs: Number((waitScaled + limit - 1n) / limit) };
    },

    async prune(): Promise<number> {
      const { rowCount } = await sql.query('DELETE FROM tollgate_rate_limits WHERE refilled_at_ms <= $1', [
        Math.floor(clock.now()),
      ]);
      return rowCount;
    },
  };
}
