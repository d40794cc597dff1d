/**
 * `POST /v1/admin/telemetry/purge` on an injected clock: the dry run counts without deleting, the
 * confirmed purge deletes raw T1 rows past `now − TELEMETRY_RAW_RETENTION_DAYS` (and, with `before`,
 * T1 rollups of earlier days) of the caller's vendor only, journaled and audited; bad dates are 400.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type SqlClient } from '@tollgate/core';
import { enforceTelemetryRetention, telemetryRollupTables } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { telemetryEnv } from './telemetry-fixtures';

const dayMs = 86_400_000;
/** The bench's "now": a fixed instant, 12:00 UTC, so day arithmetic is exact. */
const start = Date.parse('2026-05-20T12:00:00Z');

async function seedRaw(sql: SqlClient, vendor: { vendorId: string; productId: string }, receivedAt: Date): Promise<void> {
  await sql.query(
    `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
     VALUES ($1, $2, $3, 1, 0, 1, 0, 0, 0, 0, '{}', 1, $4)`,
    // A subject of its own: at most one raw row per subject and UTC day (migration 018).
    [vendor.vendorId, vendor.productId, randomBytes(32).toString('hex'), receivedAt],
  );
}

async function seedRollups(sql: SqlClient, vendor: { vendorId: string; productId: string }, day: string): Promise<void> {
  await sql.query(`INSERT INTO license_analytics_t1_daily (day, vendor_id, product_id, measure, key, value, devices) VALUES ($1, $2, $3, 'blocks', '', 5, 5)`, [day, vendor.vendorId, vendor.productId]);
  await sql.query(`INSERT INTO license_analytics_t1_sketches (day, vendor_id, product_id, devices) VALUES ($1, $2, $3, '\\x00')`, [day, vendor.vendorId, vendor.productId]);
}

async function rawCount(sql: SqlClient, vendorId: string): Promise<number> {
  return Number((await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_telemetry_raw WHERE vendor_id = $1', [vendorId])).rows[0]?.n);
}

async function rollupDays(sql: SqlClient, vendorId: string): Promise<string[]> {
  const days = new Set<string>();
  for (const table of telemetryRollupTables) {
    const { rows } = await sql.query<{ day: string }>(`SELECT to_char(day, 'YYYY-MM-DD') AS day FROM ${table} WHERE vendor_id = $1 ORDER BY day`, [vendorId]);
    for (const row of rows) days.add(`${table}:${row.day}`);
  }
  return [...days].sort();
}

for (const engine of serverEngines) {
  describe(`POST /telemetry/purge [${engine.name}]`, () => {
    let bench: AdminHarness;
    const clock = new ManualClock(start);
    beforeAll(async () => {
      bench = await openAdminHarness(engine, telemetryEnv, { clock });
    }, 120_000);
    afterAll(() => bench?.close());
    beforeEach(async () => {
      clock.set(start);
      await bench.sql.query('DELETE FROM license_telemetry_raw');
      for (const table of telemetryRollupTables) await bench.sql.query(`DELETE FROM ${table}`);
    });

    it('dry run by default: counts rows older than now − 30 days, deletes nothing; the cutoff follows the clock', async () => {
      const { vendorA } = bench;
      for (const age of [31, 30.5, 29.5, 1]) await seedRaw(bench.sql, vendorA, new Date(start - age * dayMs));
      const dry = await bench.call('POST', '/telemetry/purge');
      expect(dry.status).toBe(200);
      expect(dry.body).toEqual({ ok: true, dry_run: true, cutoff: new Date(start - 30 * dayMs).toISOString(), before: null, retention_days: 30, raw_records: 2, rollup_rows: 0 });
      expect(await rawCount(bench.sql, vendorA.vendorId)).toBe(4);
      clock.advance(dayMs);
      expect((await bench.call('POST', '/telemetry/purge')).body.raw_records).toBe(3);
    });

    it('confirmed: deletes the vendor’s raw rows past retention only, audited, replayed by its key', async () => {
      const { vendorA, vendorB } = bench;
      for (const age of [40, 31, 2]) await seedRaw(bench.sql, vendorA, new Date(start - age * dayMs));
      await seedRaw(bench.sql, vendorB, new Date(start - 40 * dayMs));
      const key = freshKey();
      const confirmed = await bench.call('POST', '/telemetry/purge', { query: { dry_run: 'false' }, key });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toEqual({ ok: true, dry_run: false, cutoff: new Date(start - 30 * dayMs).toISOString(), before: null, retention_days: 30, deleted_raw_records: 2, deleted_rollup_rows: 0, journaled: true });
      expect([await rawCount(bench.sql, vendorA.vendorId), await rawCount(bench.sql, vendorB.vendorId)]).toEqual([1, 1]);
      const replay = await bench.call('POST', '/telemetry/purge', { query: { dry_run: 'false' }, key });
      expect(replay.body).toEqual(confirmed.body);
      const conflict = await bench.call('POST', '/telemetry/purge', { query: { dry_run: 'false', before: '2026-01-01' }, key });
      expect([conflict.status, conflict.body.error.code]).toEqual([409, 'idempotency_conflict']);
      const audit = await bench.call('GET', '/audit', { query: { target_type: 'vendor', target_id: vendorA.vendorId } });
      const events = (audit.body.events as { action: string; summary: Record<string, unknown> }[]).filter((event) => event.action === 'telemetry.purge');
      expect(events).toHaveLength(1);
      expect(events[0]?.summary).toMatchObject({ deleted_raw_records: 2, deleted_rollup_rows: 0 });
      const missingKey = await bench.call('POST', '/telemetry/purge', { query: { dry_run: 'false' } });
      expect(missingKey.status).toBe(400);
    });

    it('before=YYYY-MM-DD also drops T1 rollups of earlier days (and raw rows before it), for the caller’s vendor only', async () => {
      const { vendorA, vendorB } = bench;
      for (const day of ['2026-01-01', '2026-03-31', '2026-04-01', '2026-05-19']) await seedRollups(bench.sql, vendorA, day);
      await seedRollups(bench.sql, vendorB, '2026-01-01');
      for (const age of [40, 25, 10]) await seedRaw(bench.sql, vendorA, new Date(start - age * dayMs));
      // 2026-05-01 is later than the retention cutoff (2026-04-20T12:00Z): raw rows before it go too (the 25-day-old one).
      const dry = await bench.call('POST', '/telemetry/purge', { query: { before: '2026-05-01' } });
      expect(dry.body).toMatchObject({ dry_run: true, cutoff: '2026-05-01T00:00:00.000Z', before: '2026-05-01', raw_records: 2, rollup_rows: 6 });
      const early = await bench.call('POST', '/telemetry/purge', { query: { before: '2026-04-01', dry_run: 'false' }, key: freshKey() });
      expect(early.body).toMatchObject({ cutoff: new Date(start - 30 * dayMs).toISOString(), before: '2026-04-01', deleted_raw_records: 1, deleted_rollup_rows: 4 });
      expect(await rollupDays(bench.sql, vendorA.vendorId)).toEqual(telemetryRollupTables.flatMap((table) => [`${table}:2026-04-01`, `${table}:2026-05-19`]).sort());
      const body = await bench.call('POST', '/telemetry/purge', { query: { dry_run: 'false' }, body: { before: '2026-05-20' }, key: freshKey() });
      expect(body.body).toMatchObject({ before: '2026-05-20', deleted_raw_records: 2, deleted_rollup_rows: 4 });
      expect(await rollupDays(bench.sql, vendorA.vendorId)).toEqual([]);
      expect(await rollupDays(bench.sql, vendorB.vendorId)).toHaveLength(2);
    });

    it('refuses a malformed or future before, before given twice, unknown fields, and tokens without dsr:rw', async () => {
      for (const before of ['2026-02-30', '2026-5-01', '20260501', '2026-05-21', 'yesterday']) {
        const answer = await bench.call('POST', '/telemetry/purge', { query: { before } });
        expect([answer.status, answer.body.error.code], before).toEqual([400, 'invalid_request']);
      }
      const twice = await bench.call('POST', '/telemetry/purge', { query: { before: '2026-05-01' }, body: { before: '2026-05-01' } });
      expect(twice.status).toBe(400);
      const unknown = await bench.call('POST', '/telemetry/purge', { body: { cutoff: '2026-05-01' } });
      expect(unknown.status).toBe(400);
      const reader = await bench.tokenWith(bench.vendorA, ['analytics:r', 'audit:r']);
      const refused = await bench.call('POST', '/telemetry/purge', { token: reader });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_scope']);
    });

    it('the retention job’s purge deletes every vendor’s rows past retention, in batches, and is idempotent', async () => {
      const { vendorA, vendorB } = bench;
      for (const age of [45, 31, 29]) await seedRaw(bench.sql, vendorA, new Date(start - age * dayMs));
      await seedRaw(bench.sql, vendorB, new Date(start - 31 * dayMs));
      expect(await enforceTelemetryRetention(bench.sql, new Date(clock.now()), 30)).toBe(3);
      expect(await enforceTelemetryRetention(bench.sql, new Date(clock.now()), 30)).toBe(0);
      expect([await rawCount(bench.sql, vendorA.vendorId), await rawCount(bench.sql, vendorB.vendorId)]).toEqual([1, 0]);
    });
  });
}
