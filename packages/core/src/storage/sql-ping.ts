import type { SqlClient } from './sql-client';

/**
 * Round-trips `SELECT 1` within `timeoutMs`: true when the database answered, false when it failed or
 * stayed silent. Health routes and readiness checks use it; it never throws and never waits longer than
 * `timeoutMs` (a database that hangs is as down as one that refuses).
 *
 * @param sql - The database to ask.
 * @param timeoutMs - How long an answer may take (default 2 s).
 * @returns Whether the database answered in time.
 * @example
 * ```ts
 * import { pingSql } from '@tollgate/core/storage';
 * if (!(await pingSql(sql, 500))) console.warn('database unreachable');
 * ```
 */
export async function pingSql(sql: SqlClient, timeoutMs = 2_000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql.query('SELECT 1 AS ok').then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
