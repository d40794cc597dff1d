/**
 * The daily rollup: idempotent (a day rolled twice gives identical rows), exact counts and HyperLogLog
 * sketches that answer distinct devices within the sketch's error, T1 rollups from raw telemetry rows,
 * k-anonymity suppression at the threshold, catch-up of missed days after downtime (an injected clock),
 * and exactly one rollup per day under two instances on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode, ManualClock, type SqlClient } from '@tollgate/core';
import { hmacSha256, utf8Encode } from '@tollgate/core/crypto';
import { analyticsDueThrough, deriveAnalyticsKeys, hllRelativeStandardError, rollupAnalyticsDay, runAnalyticsRollup } from '@tollgate/core/license';
import pino from 'pino';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { dayOf, eventually, midnightOf, rolledUp, rollupRows } from './analytics-fixtures';

const dayMs = 86_400_000;
let nextEventId = 1_000_000_000;
const pseudonym = (label: string) => hexEncode(hmacSha256(new Uint8Array(32).fill(3), utf8Encode(label)));

interface SyntheticEvent {
  readonly day: string;
  readonly policyId: string;
  readonly tier?: string | null;
  readonly kind: 'activation' | 'check_in';
  readonly device: string;
  readonly license: string;
}

/** Inserts synthetic detail events (as the drain would have written them) in one statement. */
async function insertEvents(sql: SqlClient, vendorId: string, productId: string, events: readonly SyntheticEvent[]): Promise<void> {
  const rows = events.map((event, index) => ({
    event_id: nextEventId++,
    policy_id: event.policyId,
    tier: event.tier ?? null,
    kind: event.kind,
    occurred_at: new Date(midnightOf(event.day) + (index % 86_000) * 1000).toISOString(),
    device_pseudonym: pseudonym(`device ${event.device}`),
    license_pseudonym: pseudonym(`license ${event.license}`),
  }));
  await sql.query(
    `INSERT INTO license_analytics_events (event_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at, device_pseudonym, license_pseudonym)
     SELECT e.event_id, $1, $2, e.policy_id, e.tier, NULL, '1.0.0', 'linux-x64', false, e.kind, e.occurred_at, e.device_pseudonym, e.license_pseudonym
     FROM jsonb_to_recordset($3::jsonb) AS e(event_id bigint, policy_id text, tier text, kind text, occurred_at timestamptz, device_pseudonym text, license_pseudonym text)`,
    [vendorId, productId, JSON.stringify(rows)],
  );
}

/** Inserts raw T1 rows (as the telemetry intake stores them). */
async function insertTelemetry(sql: SqlClient, vendorId: string, productId: string, day: string, devices: readonly { subject: string; sessions: number; features: Record<string, number> }[]): Promise<void> {
  for (const [index, device] of devices.entries()) {
    await sql.query(
      `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
       VALUES ($1, $2, $3, 1, 0, $4, 1, 2, 0, 0, $5, 3, $6)`,
      [vendorId, productId, pseudonym(`t1 ${device.subject}`), device.sessions, JSON.stringify(device.features), new Date(midnightOf(day) + index * 1000)],
    );
  }
}

for (const engine of serverEngines) {
  describe(`analytics rollup [${engine.name}]`, () => {
    let bench: AdminHarness;
    const clock = new ManualClock(Date.now());
    const today = dayOf(clock.now());
    const metrics = async (query: Record<string, string>) => {
      const answer = await bench.call('GET', '/analytics/metrics', { query });
      expect(answer.status, answer.text).toBe(200);
      return (answer.body as { series: { metric: string; group: Record<string, string | null>; points: { start: string; value: number | null; suppressed: boolean }[] }[] }).series;
    };

    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ANALYTICS_JOB_INTERVAL_MS: '3600000', ANALYTICS_K_ANONYMITY: '5' }, { clock });
      // The start's catch-up round; later rounds are an hour away. The latest due day, not "yesterday":
      // until 00:15 UTC yesterday is not due yet, and a run crossing midnight waited for it in vain.
      await rolledUp(bench.sql, analyticsDueThrough(clock.now()));
    }, 120_000);
    afterAll(() => bench?.close());

    it('rolls a day up idempotently: running it twice gives identical rows, counts exact, distinct devices within the sketch error', async () => {
      const day = dayOf(clock.now() - 20 * dayMs);
      const { vendorId, productId } = bench.vendorA;
      const events: SyntheticEvent[] = [];
      // 3,000 devices on policy "p-big" (each activates, every third also checks in), 4 on "p-small".
      for (let device = 0; device < 3000; device++) {
        events.push({ day, policyId: 'p-big', tier: 'pro', kind: 'activation', device: `big-${device}`, license: `big-${device % 40}` });
        if (device % 3 === 0) events.push({ day, policyId: 'p-big', tier: 'pro', kind: 'check_in', device: `big-${device}`, license: `big-${device % 40}` });
      }
      for (let device = 0; device < 4; device++) events.push({ day, policyId: 'p-small', kind: 'check_in', device: `small-${device}`, license: 'small' });
      await insertEvents(bench.sql, vendorId, productId, events);
      await insertTelemetry(bench.sql, vendorId, productId, day, [
        ...Array.from({ length: 6 }, (_, index) => ({ subject: `t1-${index}`, sessions: 10 + index, features: { export: 2, print: index < 2 ? 1 : 0 } })),
      ]);

      const first = await rollupAnalyticsDay(bench.sql, day, new Date(clock.now()));
      expect(first).toEqual({ day, events: events.length, t1Blocks: 6 });
      const rowsOnce = await rollupRows(bench.sql, day);
      await rollupAnalyticsDay(bench.sql, day, new Date(clock.now() + 1000));
      expect(await rollupRows(bench.sql, day)).toEqual(rowsOnce);
      expect((await bench.sql.query('SELECT runs FROM license_analytics_rollup_days WHERE day = $1::date', [day])).rows[0]).toEqual({ runs: 2 });

      const expectedCount = (policyId: string, kind: string) => events.filter((event) => event.policyId === policyId && event.kind === kind).length;
      const series = await metrics({ ids: 'activations,check_ins,active_devices,active_licenses', from: day, to: day, group_by: 'policy_id,tier' });
      const value = (metric: string, policyId: string) => series.find((one) => one.metric === metric && one.group.policy_id === policyId)!.points[0]!;
      expect(value('activations', 'p-big').value).toBe(expectedCount('p-big', 'activation'));
      expect(value('check_ins', 'p-big').value).toBe(expectedCount('p-big', 'check_in'));
      expect(series.find((one) => one.group.policy_id === 'p-big')!.group.tier).toBe('pro');
      expect(series.find((one) => one.group.policy_id === 'p-small')!.group.tier).toBeNull();
      const devices = value('active_devices', 'p-big').value!;
      expect(Math.abs(devices - 3000) / 3000).toBeLessThanOrEqual(3 * hllRelativeStandardError);
      expect(Math.abs(value('active_licenses', 'p-big').value! - 40)).toBeLessThanOrEqual(1);
      // 4 devices are fewer than k = 5: every metric of that bucket is suppressed.
      for (const metric of ['check_ins', 'active_devices', 'active_licenses']) expect(value(metric, 'p-small')).toEqual({ start: day, value: null, suppressed: true });
      // No activation there at all: no activations series for it (per-kind cells).
      expect(series.find((one) => one.metric === 'activations' && one.group.policy_id === 'p-small')).toBeUndefined();

      // T1: six reporting devices, "print" used by two of them (suppressed), "export" by all six.
      const t1 = await metrics({ ids: 't1_reports,t1_sessions,t1_reporting_devices', from: day, to: day });
      expect(t1.map((one) => [one.metric, one.points[0]!.value])).toEqual([
        ['t1_reports', 6],
        ['t1_sessions', 10 + 11 + 12 + 13 + 14 + 15],
        ['t1_reporting_devices', 6],
      ]);
      const features = await metrics({ ids: 't1_feature_hits', from: day, to: day, group_by: 'feature' });
      expect(features.map((one) => [one.group.feature, one.points[0]])).toEqual([
        ['export', { start: day, value: 12, suppressed: false }],
        ['print', { start: day, value: null, suppressed: true }],
      ]);
      const durations = await metrics({ ids: 't1_session_durations', from: day, to: day, group_by: 'duration_bucket' });
      expect(durations.map((one) => [one.group.duration_bucket, one.points[0]!.value])).toEqual([
        ['lt_30m', 12],
        ['lt_5m', 6],
      ]);
    });

    it('merges day sketches for week and month buckets: a device seen on several days counts once', async () => {
      const start = dayOf(clock.now() - 40 * dayMs);
      const { vendorId, productId } = bench.vendorA;
      const days = Array.from({ length: 5 }, (_, index) => dayOf(midnightOf(start) + index * dayMs));
      // The same 50 devices every day, plus 10 new ones per day: 100 distinct over the five days.
      await insertEvents(bench.sql, vendorId, productId, days.flatMap((day, index) => [
        ...Array.from({ length: 50 }, (_, device) => ({ day, policyId: 'p-week', kind: 'check_in' as const, device: `steady-${device}`, license: 'week' })),
        ...Array.from({ length: 10 }, (_, device) => ({ day, policyId: 'p-week', kind: 'check_in' as const, device: `new-${index}-${device}`, license: 'week' })),
      ]));
      for (const day of days) await rollupAnalyticsDay(bench.sql, day, new Date(clock.now()));
      const series = await metrics({ ids: 'active_devices,check_ins', from: days[0]!, to: days[4]!, granularity: 'month', group_by: 'policy_id' });
      const total = (metric: string) => series.filter((one) => one.metric === metric && one.group.policy_id === 'p-week').flatMap((one) => one.points).reduce((sum, point) => sum + (point.value ?? 0), 0);
      expect(total('check_ins')).toBe(300);
      // Across month buckets the sum may split the devices; within one bucket they merge exactly enough.
      const perBucket = series.find((one) => one.metric === 'active_devices' && one.group.policy_id === 'p-week')!.points.filter((point) => point.value !== 0);
      const bucketDays = (point: { start: string }) => days.filter((day) => day.slice(0, 7) === point.start.slice(0, 7)).length;
      for (const point of perBucket) expect(Math.abs(point.value! - (50 + 10 * bucketDays(point)))).toBeLessThanOrEqual(2);
    });

    it('purges raw events past the 90-day retention once their day is rolled up, keeping the rollups', async () => {
      const { vendorId, productId } = bench.vendorA;
      const old = dayOf(clock.now() - 91 * dayMs);
      const recent = dayOf(clock.now() - 89 * dayMs);
      await insertEvents(bench.sql, vendorId, productId, [old, recent].map((day) => ({ day, policyId: 'p-old', kind: 'activation' as const, device: `old-${day}`, license: 'old' })));
      await rollupAnalyticsDay(bench.sql, old, new Date(clock.now()));
      const options = { sql: bench.sql, keys: deriveAnalyticsKeys(bench.server.context.adminProvisioning.masterKey), clock, logger: pino({ level: 'silent' }), config: { rawRetentionDays: 90, jobIntervalMs: 3_600_000, catchUpDays: 90 } };
      const round = await runAnalyticsRollup(options);
      expect(round).toMatchObject({ busy: false, rolledUp: [] });
      expect(round.purged).toBeGreaterThanOrEqual(1);
      const { rows } = await bench.sql.query<{ day: string }>("SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM license_analytics_events WHERE policy_id = 'p-old'");
      expect(rows).toEqual([{ day: recent }]);
      expect((await bench.sql.query("SELECT events::text FROM license_analytics_daily WHERE day = $1::date AND policy_id = 'p-old'", [old])).rows).toEqual([{ events: '1' }]);
    });

    it('catches up days missed while no instance ran, when the next instance starts', async () => {
      const { vendorId, productId } = bench.vendorA;
      const missed = [today, dayOf(midnightOf(today) + dayMs), dayOf(midnightOf(today) + 2 * dayMs)];
      await insertEvents(bench.sql, vendorId, productId, missed.flatMap((day, index) => Array.from({ length: index + 1 }, (_, device) => ({ day, policyId: 'p-gap', kind: 'activation' as const, device: `gap-${index}-${device}`, license: 'gap' }))));
      await bench.server.close();
      clock.set(midnightOf(missed[2]!) + dayMs + 30 * 60_000);
      const restarted = await bench.sandbox.start({ ANALYTICS_JOB_INTERVAL_MS: '3600000', ANALYTICS_K_ANONYMITY: '5' }, { clock });
      await rolledUp(restarted.context.sql, missed[2]!);
      const { rows } = await restarted.context.sql.query<{ day: string; runs: number; events: string }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, runs, events::text FROM license_analytics_rollup_days WHERE day >= $1::date ORDER BY day`,
        [today],
      );
      expect(rows).toEqual(missed.map((day, index) => ({ day, runs: 1, events: String(index + 1) })));
      await restarted.close();
    });
  });
}

for (const engine of serverEngines.filter((candidate) => candidate.name !== 'pglite')) {
  describe(`analytics rollup under two instances [${engine.name}]`, () => {
    let bench: AdminHarness;
    const clock = new ManualClock(Date.now());
    const today = dayOf(clock.now());
    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ANALYTICS_JOB_INTERVAL_MS: '50' }, { clock });
      await bench.sandbox.start({ ANALYTICS_JOB_INTERVAL_MS: '50' }, { clock });
      await rolledUp(bench.sql, analyticsDueThrough(clock.now()));
    }, 120_000);
    afterAll(() => bench?.close());

    it('rolls each due day up exactly once while both instances run the job every 50 ms, and nothing while the rollup lock is held elsewhere', async () => {
      const days = Array.from({ length: 6 }, (_, index) => dayOf(midnightOf(today) + index * dayMs));
      await insertEvents(bench.sql, bench.vendorA.vendorId, bench.vendorA.productId, days.flatMap((day) => Array.from({ length: 20 }, (_, device) => ({ day, policyId: 'p-race', kind: 'activation' as const, device: `${day}-${device}`, license: 'race' }))));
      // While someone else holds the rollup lock, neither instance rolls anything up (they are told
      // "busy" and leave the days alone); once it is released they do, each day once.
      let release = () => undefined as void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked = () => undefined as void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = bench.sql.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('tollgate:analytics-rollup', 0))");
        locked();
        await held;
      });
      await lockTaken;
      clock.set(midnightOf(days[5]!) + dayMs + 20 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await bench.sql.query('SELECT count(*)::int AS n FROM license_analytics_rollup_days WHERE day >= $1::date', [today])).rows[0]).toEqual({ n: 0 });
      release();
      await holder;
      await rolledUp(bench.sql, days[5]!);
      // A few more rounds of both instances: nothing is rolled again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { rows } = await bench.sql.query<{ runs: number; events: string }>('SELECT runs, events::text FROM license_analytics_rollup_days WHERE day >= $1::date ORDER BY day', [today]);
      expect(rows).toEqual(days.map(() => ({ runs: 1, events: '20' })));
      await eventually(async () => ((await bench.sql.query('SELECT max(runs) AS runs FROM license_analytics_rollup_days')).rows[0]!.runs === 1 ? true : undefined), 'no day rolled twice');
    });
  });
}
