/** Shared helpers of the analytics suites. */
import { expect } from 'vitest';
import type { SqlClient } from '@tollgate/core';

/** Polls `check` every 25 ms until it returns a value other than `undefined` (at most `attempts` times). */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, attempts = 400): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until the analytics job recorded `day` as rolled up. */
export async function rolledUp(sql: SqlClient, day: string): Promise<void> {
  await eventually(async () => ((await sql.query(`SELECT 1 FROM license_analytics_rollup_days WHERE day = $1::date AND status = 'complete'`, [day])).rows.length > 0 ? true : undefined), `the rollup of ${day}`);
}

/** Every row of the rollup tables for `day`, in a stable order, sketches as hex: what "identical rows" compares. */
export async function rollupRows(sql: SqlClient, day: string): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    license_analytics_daily: "SELECT vendor_id, product_id, policy_id, tier, release_id, platform, kind, events::text FROM license_analytics_daily WHERE day = $1::date ORDER BY 1, 2, 3, 4, 5, 6, 7",
    license_analytics_sketches:
      "SELECT vendor_id, product_id, policy_id, tier, release_id, platform, kind, encode(devices, 'hex') AS devices, encode(licenses, 'hex') AS licenses FROM license_analytics_sketches WHERE day = $1::date ORDER BY 1, 2, 3, 4, 5, 6, 7",
    license_analytics_t1_daily: 'SELECT vendor_id, product_id, measure, key, value::text, devices FROM license_analytics_t1_daily WHERE day = $1::date ORDER BY 1, 2, 3, 4',
    license_analytics_t1_sketches: "SELECT vendor_id, product_id, encode(devices, 'hex') AS devices FROM license_analytics_t1_sketches WHERE day = $1::date ORDER BY 1, 2",
  };
  const rows: Record<string, unknown[]> = {};
  for (const [table, text] of Object.entries(tables)) rows[table] = (await sql.query(text, [day])).rows;
  return rows;
}

/** The UTC day of a time. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Midnight UTC of a day, in ms. */
export const midnightOf = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** Parses an NDJSON body into objects (and checks every line is one). */
export function ndjson(text: string): Record<string, unknown>[] {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const rows = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const row of rows) expect(typeof row).toBe('object');
  return rows;
}
