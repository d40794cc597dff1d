/**
 * Review 15 regressions of the analytics rollup and metric API: a day whose rollup throws no longer
 * wedges the job (recorded as failed, later days go on, retried with backoff); client-chosen platforms
 * fold into a closed list; suppressed cells cannot be recovered by differencing (total minus groups, week
 * minus days); `activations` is suppressed by the devices behind activations only; the rolled-up marker is
 * gap-free; a metric reading too many rollup rows is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode, ManualClock, type SqlClient } from '@tollgate/core';
import { hmacSha256, utf8Encode } from '@tollgate/core/crypto';
import { addAnalyticsDays, analyticsDueThrough, analyticsRolledUpThrough, deriveAnalyticsKeys, rollupAnalyticsDay, runAnalyticsRollup } from '@tollgate/core/license';
import pino from 'pino';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { dayOf, rolledUp } from './analytics-fixtures';

let nextEventId = 1_500_000_000;
const pseudonym = (label: string) => hexEncode(hmacSha256(new Uint8Array(32).fill(5), utf8Encode(label)));
type Point = { start: string; value: number | null; suppressed: boolean };
type Series = { group: Record<string, string | null>; points: Point[] };

async function insertEvent(sql: SqlClient, at: { vendorId: string; productId: string }, day: string, kind: string, device: string, platform = 'linux-x64'): Promise<void> {
  await sql.query(
    `INSERT INTO license_analytics_events (event_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at, device_pseudonym, license_pseudonym)
     VALUES ($1, $2, $3, 'p', NULL, NULL, '1', $4, false, $5, $6, $7, $7)`,
    [nextEventId++, at.vendorId, at.productId, platform, kind, new Date(`${day}T10:00:00Z`), pseudonym(device)],
  );
}

for (const engine of serverEngines) {
  describe(`analytics rollup regressions [${engine.name}]`, () => {
    let bench: AdminHarness;
    const metrics = async (query: Record<string, string>): Promise<Series[]> => {
      const answer = await bench.call('GET', '/analytics/metrics', { query });
      expect(answer.status, answer.text).toBe(200);
      return (answer.body as { series: Series[] }).series;
    };

    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ANALYTICS_JOB_INTERVAL_MS: '3600000', ANALYTICS_K_ANONYMITY: '5' });
      // The start's catch-up round; the next is an hour away. The latest due day (yesterday after 00:15 UTC).
      await rolledUp(bench.sql, analyticsDueThrough(Date.now()));
    }, 120_000);
    afterAll(() => bench?.close());

    it('F1: a day whose rollup throws is recorded as failed, later days still roll up, and it is retried with backoff', async () => {
      // Days after the latest one the server's own round recorded (yesterday): what the job takes up next.
      const today = dayOf(Date.now());
      const [before2, before1, day, after1, after2] = [8, 9, 10, 11, 12].map((offset) => addAnalyticsDays(today, offset)) as [string, string, string, string, string];
      const vendor = bench.vendorA;
      for (const device of ['a', 'b', 'c', 'd', 'e']) await insertEvent(bench.sql, vendor, day, 'activation', `f1 ${device}`);
      await insertEvent(bench.sql, vendor, after1, 'activation', 'f1 later');
      // Make exactly that day's rollup throw, whatever the cause (an overflow, a bad row, a bug).
      await bench.sql.query(`CREATE FUNCTION analyticsfix_fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.day = DATE '${day}' THEN RAISE EXCEPTION 'injected rollup failure'; END IF; RETURN NEW; END; $$`);
      await bench.sql.query('CREATE TRIGGER analyticsfix_fail BEFORE INSERT ON license_analytics_daily FOR EACH ROW EXECUTE FUNCTION analyticsfix_fail()');
      const clock = new ManualClock(Date.parse(`${addAnalyticsDays(after2, 1)}T01:00:00Z`));
      const errors: unknown[] = [];
      const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
      const options = { sql: bench.sql, keys: deriveAnalyticsKeys(new Uint8Array(32).fill(9)), clock, logger, config: { rawRetentionDays: 90, jobIntervalMs: 3_600_000, catchUpDays: 5 } };
      try {
        const first = await runAnalyticsRollup(options);
        expect(first.failed).toEqual([day]);
        expect(first.rolledUp).toEqual([before2, before1, after1, after2]);
        expect(errors).toHaveLength(1);
        const { rows } = await bench.sql.query(`SELECT status, failures, next_attempt_at, last_error FROM license_analytics_rollup_days WHERE day = $1::date`, [day]);
        expect(rows[0]).toMatchObject({ status: 'failed', failures: 1, last_error: expect.stringMatching(/injected rollup failure/) });
        expect((rows[0]!['next_attempt_at'] as Date).getTime()).toBe(clock.now() + 3_600_000);
        // Not retried before its backoff (1 h, then 2 h).
        expect((await runAnalyticsRollup(options)).failed).toEqual([]);
        for (const hours of [1, 2]) {
          clock.advance(hours * 3_600_000);
          expect((await runAnalyticsRollup(options)).failed).toEqual([day]);
        }
        expect((await bench.sql.query(`SELECT failures FROM license_analytics_rollup_days WHERE day = $1::date`, [day])).rows[0]).toEqual({ failures: 3 });
      } finally {
        await bench.sql.query('DROP TRIGGER analyticsfix_fail ON license_analytics_daily');
        await bench.sql.query('DROP FUNCTION analyticsfix_fail()');
      }
      clock.advance(4 * 3_600_000);
      expect((await runAnalyticsRollup(options)).rolledUp).toEqual([day]);
      const { rows } = await bench.sql.query(`SELECT status, events::int AS events, last_error FROM license_analytics_rollup_days WHERE day = $1::date`, [day]);
      expect(rows[0]).toEqual({ status: 'complete', events: 5, last_error: null });
      await bench.sql.query('DELETE FROM license_analytics_rollup_days WHERE day >= $1::date', [today]);
    });

    it('F3: client-chosen platforms fold into the closed list, so they cannot mint rollup groups', async () => {
      const day = '2021-05-05';
      const vendor = bench.vendorA;
      for (let index = 0; index < 300; index++) await insertEvent(bench.sql, vendor, day, 'activation', `f3 ${index}`, `os${index}-x64`);
      await insertEvent(bench.sql, vendor, day, 'activation', 'f3 mac', 'macos-arm64');
      await rollupAnalyticsDay(bench.sql, day, new Date());
      const daily = await bench.sql.query<{ platform: string; events: string }>(`SELECT platform, events::text FROM license_analytics_daily WHERE day = $1::date ORDER BY platform`, [day]);
      expect(daily.rows).toEqual([
        { platform: 'macos-arm64', events: '1' },
        { platform: 'other-other', events: '300' },
      ]);
      const sketches = await bench.sql.query(`SELECT platform FROM license_analytics_sketches WHERE day = $1::date ORDER BY platform`, [day]);
      expect(sketches.rows.map((row) => row['platform'])).toEqual(['macos-arm64', 'other-other']);
    });

    it('F4: the ungrouped total is the sum of shown groups (a suppressed feature cannot be subtracted out)', async () => {
      const day = '2021-06-07'; // a Monday
      const { vendorId, productId } = bench.vendorA;
      const t1 = (on: string, key: string, value: number, devices: number) =>
        bench.sql.query(`INSERT INTO license_analytics_t1_daily (day, vendor_id, product_id, measure, key, value, devices) VALUES ($1::date, $2, $3, 'feature_hits', $4, $5, $6)`, [on, vendorId, productId, key, value, devices]);
      await t1(day, 'edit', 50, 5);
      await t1(day, 'secret.feature', 777, 1);
      await t1('2021-06-08', 'edit', 3, 2);
      const query = { ids: 't1_feature_hits', from: day, to: day };
      const grouped = await metrics({ ...query, group_by: 'feature' });
      const shown = grouped.flatMap((series) => series.points).reduce((sum, point) => sum + (point.value ?? 0), 0);
      expect(grouped.find((series) => series.group['feature'] === 'secret.feature')!.points[0]).toEqual({ start: day, value: null, suppressed: true });
      const [total] = await metrics(query);
      expect(total!.points[0]!.value).toBe(shown);
      expect(shown).toBe(50);
      // A week is the sum of its shown days: week minus days reveals nothing either.
      const days = await metrics({ ids: 't1_feature_hits', from: day, to: '2021-06-13' });
      expect(days[0]!.points.map((point) => point.value)).toEqual([50, null, 0, 0, 0, 0, 0]);
      const [week] = await metrics({ ids: 't1_feature_hits', from: day, to: '2021-06-13', granularity: 'week' });
      expect(week!.points).toEqual([{ start: day, value: 50, suppressed: false }]);
    });

    it('F5: activations are suppressed by the devices behind activations, not check-ins', async () => {
      const day = '2021-07-05';
      const vendor = bench.vendorA;
      await insertEvent(bench.sql, vendor, day, 'activation', 'f5 a', 'freebsd-x64'); // the only activation there
      for (const device of ['b', 'c', 'd', 'e', 'f']) await insertEvent(bench.sql, vendor, day, 'check_in', `f5 ${device}`, 'freebsd-x64');
      await rollupAnalyticsDay(bench.sql, day, new Date());
      const [activations] = await metrics({ ids: 'activations', from: day, to: day, group_by: 'platform' });
      expect(activations!.points[0]).toEqual({ start: day, value: null, suppressed: true });
      const [checkIns] = await metrics({ ids: 'check_ins', from: day, to: day, group_by: 'platform' });
      expect(checkIns!.points[0]).toEqual({ start: day, value: 5, suppressed: false });
      const [devices] = await metrics({ ids: 'active_devices', from: day, to: day, group_by: 'platform' });
      expect(devices!.points[0]).toMatchObject({ value: 6, suppressed: false });
    });

    it('7c: the rolled-up marker is the latest gap-free settled day; a day failing 3 times stops holding it back', async () => {
      const today = dayOf(Date.now());
      const stamp = new Date();
      const insert = (day: string, status: string, failures: number) =>
        bench.sql.query(
          `INSERT INTO license_analytics_rollup_days (day, status, events, t1_blocks, runs, completed_at, failures) VALUES ($1::date, $2, 0, 0, 1, $3, $4)`,
          [day, status, status === 'complete' ? stamp : null, failures],
        );
      const days = [0, 1, 2, 4].map((offset) => addAnalyticsDays(today, offset));
      try {
        await insert(days[0]!, 'complete', 0);
        await insert(days[1]!, 'failed', 1);
        await insert(days[2]!, 'complete', 0);
        await insert(days[3]!, 'complete', 0);
        expect(await analyticsRolledUpThrough(bench.sql)).toBe(days[0]);
        await bench.sql.query('UPDATE license_analytics_rollup_days SET failures = 3 WHERE day = $1::date', [days[1]]);
        expect(await analyticsRolledUpThrough(bench.sql)).toBe(days[2]); // the missing day after it is a gap
      } finally {
        await bench.sql.query('DELETE FROM license_analytics_rollup_days WHERE day >= $1::date', [today]);
      }
    });

    it('F3: a metric that would read more rollup rows than the cap is refused, not built', async () => {
      const { vendorId } = bench.vendorA;
      await bench.sql.query(
        `INSERT INTO license_analytics_t1_sketches (day, vendor_id, product_id, devices)
         SELECT DATE '2019-01-01' + d, $1, 'cap-' || p, '\\x010e01'::bytea FROM generate_series(0, 399) AS d, generate_series(1, 26) AS p`,
        [vendorId],
      );
      const answer = await bench.call('GET', '/analytics/metrics', { query: { ids: 't1_reporting_devices', from: '2019-01-01', to: '2020-02-04' } });
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/too many rollup rows/);
      await bench.sql.query(`DELETE FROM license_analytics_t1_sketches WHERE product_id LIKE 'cap-%'`);
    });
  });
}
