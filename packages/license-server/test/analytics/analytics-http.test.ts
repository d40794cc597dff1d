/**
 * Analytics through the public interface: real activations and check-ins produce pseudonymised detail
 * events (no machine or license id, no key, no address), the daily job rolls them up when 00:15 UTC of
 * the next day comes (an injected clock), and the Admin routes answer definitions, metric series (small
 * buckets suppressed) and the raw export (NDJSON and CSV, bounded, cursor-resumable).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode, ManualClock } from '@tollgate/core';
import { analyticsEventErasure, analyticsPseudonym, deriveAnalyticsKeys, exportAnalyticsEvents, type MachineRecord } from '@tollgate/core/license';
import { issueClientLicense, newDevice, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { dayOf, eventually, midnightOf, ndjson, rolledUp, rollupRows } from './analytics-fixtures';

for (const engine of serverEngines) {
  describe(`analytics over HTTP [${engine.name}]`, () => {
    let bench: ClientBench;
    const clock = new ManualClock(Date.now());
    const today = dayOf(clock.now());
    const licenses: { licenseId: string; policyId: string; key: string; machineIds: string[] }[] = [];
    const get = (path: string, query: Record<string, string> = {}, token?: string) => bench.admin.call('GET', path, { query, ...(token === undefined ? {} : { token }) });

    beforeAll(async () => {
      bench = await openClientBench(engine, { ANALYTICS_JOB_INTERVAL_MS: '50', ANALYTICS_K_ANONYMITY: '5', ANALYTICS_EXPORT_MAX_ROWS: '12' }, { clock });
      // Six devices on one policy's license, two on another's: each activates and checks in once.
      for (const devices of [6, 2]) {
        const license = await issueClientLicense(bench, { seats: 10 });
        const machineIds: string[] = [];
        for (let index = 0; index < devices; index++) {
          const device = newDevice();
          const seat = await bench.seat(device, { licenseKey: license.key });
          expect((await bench.validate(device, seat)).status).toBe(200);
          machineIds.push(hexEncode(seat.machineId));
        }
        licenses.push({ ...license, machineIds });
      }
      await eventually(async () => ((await bench.admin.sql.query('SELECT count(*)::int AS n FROM license_analytics_events')).rows[0]!.n === 16 ? true : undefined), '16 drained events');
      clock.set(midnightOf(today) + 86_400_000 + 20 * 60_000);
      await rolledUp(bench.admin.sql, today);
    }, 180_000);
    afterAll(() => bench?.close());

    it('keeps one pseudonymised detail event per activation and check-in, naming no machine, license, key or address', async () => {
      const { rows } = await bench.admin.sql.query<Record<string, unknown>>('SELECT * FROM license_analytics_events ORDER BY event_id');
      expect(rows.map((row) => row.kind).sort()).toEqual([...Array(8).fill('activation'), ...Array(8).fill('check_in')]);
      const stored = JSON.stringify(rows);
      for (const license of licenses) {
        expect(stored).not.toContain(license.licenseId);
        expect(stored).not.toContain(license.key);
        for (const machineId of license.machineIds) expect(stored).not.toContain(machineId);
      }
      expect(stored).not.toContain('127.0.0.1');
      expect(new Set(rows.map((row) => row.device_pseudonym)).size).toBe(8);
      expect(new Set(rows.map((row) => row.license_pseudonym)).size).toBe(2);
      expect((await bench.admin.sql.query('SELECT count(*)::int AS n FROM license_analytics_outbox')).rows[0]!.n).toBe(0);
    });

    it('answers the metric catalog with units and dimensions', async () => {
      const answer = await get('/analytics/definitions');
      expect(answer.status).toBe(200);
      const body = answer.body as { ok: boolean; metrics: { id: string; unit: string; dimensions: string[] }[]; k_anonymity_threshold: number };
      expect(body.ok).toBe(true);
      expect(body.k_anonymity_threshold).toBe(5);
      const byId = new Map(body.metrics.map((metric) => [metric.id, metric]));
      expect(byId.get('activations')).toMatchObject({ unit: 'events', dimensions: ['product_id', 'policy_id', 'tier', 'release_id', 'platform'] });
      expect(byId.get('active_devices')).toMatchObject({ unit: 'devices' });
      expect(byId.get('t1_feature_hits')).toMatchObject({ unit: 'hits', dimensions: ['product_id', 'feature'] });
    });

    it('answers series from the rollups, suppressing buckets of fewer than k devices', async () => {
      const answer = await get('/analytics/metrics', { ids: 'activations,check_ins,active_devices,active_licenses', from: today, to: today, group_by: 'policy_id' });
      expect(answer.status).toBe(200);
      const series = (answer.body as { series: { metric: string; group: { policy_id: string }; points: { start: string; value: number | null; suppressed: boolean }[] }[] }).series;
      const point = (metric: string, policyId: string) => series.find((one) => one.metric === metric && one.group.policy_id === policyId)?.points[0];
      const [big, small] = licenses as [(typeof licenses)[0], (typeof licenses)[0]];
      expect(point('activations', big.policyId)).toEqual({ start: today, value: 6, suppressed: false });
      expect(point('check_ins', big.policyId)).toEqual({ start: today, value: 6, suppressed: false });
      expect(point('active_devices', big.policyId)).toEqual({ start: today, value: 6, suppressed: false });
      expect(point('active_licenses', big.policyId)).toEqual({ start: today, value: 1, suppressed: false });
      for (const metric of ['activations', 'check_ins', 'active_devices', 'active_licenses']) expect(point(metric, small.policyId)).toEqual({ start: today, value: null, suppressed: true });
      // Without grouping, the total is built from shown cells only: the small policy's two devices stay
      // suppressed (no total minus groups reveals them, review 15); a week bucket starts on a Monday.
      const total = await get('/analytics/metrics', { ids: 'activations', from: today, to: today, granularity: 'week' });
      const weekPoints = (total.body as { series: { group: object; points: { start: string; value: number }[] }[] }).series[0]!;
      expect(weekPoints.group).toEqual({});
      expect(weekPoints.points).toHaveLength(1);
      expect(weekPoints.points[0]!.value).toBe(6);
      expect(new Date(`${weekPoints.points[0]!.start}T00:00:00Z`).getUTCDay()).toBe(1);
    });

    it('fills days without data with zeros and scopes everything to the caller\'s vendor', async () => {
      const yesterday = dayOf(midnightOf(today) - 86_400_000);
      const answer = await get('/analytics/metrics', { ids: 'activations', from: yesterday, to: today });
      expect((answer.body as { series: { points: { value: number }[] }[] }).series[0]!.points.map((point) => point.value)).toEqual([0, 6]);
      const otherVendor = await bench.admin.tokenWith(bench.admin.vendorB, ['analytics:r']);
      const theirs = await get('/analytics/metrics', { ids: 'activations', from: today, to: today }, otherVendor);
      expect((theirs.body as { series: unknown[] }).series).toEqual([]);
      const theirExport = await get('/analytics/export', { from: today, to: today }, otherVendor);
      expect(theirExport.text).toBe('');
    });

    it('refuses bad queries with invalid_request and tokens without analytics:r with insufficient_scope', async () => {
      for (const query of [
        { ids: 'nope', from: today, to: today },
        { ids: 'activations', from: today, to: '2000-01-01' },
        { ids: 'activations', from: '2020-01-01', to: today },
        { ids: 'activations', from: today, to: today, granularity: 'hour' },
        { ids: 't1_reports', from: today, to: today, group_by: 'policy_id' },
        { ids: 'activations', from: '2025-02-30', to: today },
        { ids: 'activations', from: today, to: today, extra: '1' },
      ] as Record<string, string>[]) {
        const answer = await get('/analytics/metrics', query);
        expect(answer.status, JSON.stringify(query)).toBe(400);
        expect((answer.body as { error: { code: string } }).error.code).toBe('invalid_request');
      }
      const token = await bench.admin.tokenWith(bench.admin.vendorA, ['licenses:rw']);
      for (const path of ['/analytics/definitions', '/analytics/metrics', '/analytics/export']) expect((await get(path, {}, token)).status).toBe(403);
    });

    it('exports the raw events as NDJSON and CSV, bounded, and resumable from any event id', async () => {
      const first = await get('/analytics/export', { from: today, to: today, limit: '5' });
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      const rows = ndjson(first.text);
      expect(rows).toHaveLength(5);
      expect(first.headers.get('x-next-cursor')).toBe(String(rows[4]!.event_id));
      // Follow the cursor to the end: every event exactly once, in order.
      const all = [...rows];
      let cursor = first.headers.get('x-next-cursor');
      while (cursor !== null) {
        const page = await get('/analytics/export', { from: today, to: today, limit: '5', cursor });
        all.push(...ndjson(page.text));
        cursor = page.headers.get('x-next-cursor');
      }
      expect(all.map((row) => Number(row.event_id))).toEqual([...all.map((row) => Number(row.event_id))].sort((a, b) => a - b));
      expect(all).toHaveLength(16);
      // A broken stream resumes after the last row received.
      const resumed = ndjson((await get('/analytics/export', { from: today, to: today, cursor: String(all[6]!.event_id), kind: 'check_in' })).text);
      expect(resumed.map((row) => row.event_id)).toEqual(all.slice(7).filter((row) => row.kind === 'check_in').map((row) => row.event_id));
      // The configured bound (12 rows) caps a response without a limit; a larger limit is refused.
      expect(ndjson((await get('/analytics/export', { from: today, to: today })).text)).toHaveLength(12);
      expect((await get('/analytics/export', { from: today, to: today, limit: '13' })).status).toBe(400);
      expect((await get('/analytics/export', { from: '2020-01-01', to: today })).status).toBe(400);
      expect((await get('/analytics/export', { from: today, to: today, cursor: 'abc' })).status).toBe(400);

      const csv = await get('/analytics/export', { from: today, to: today, format: 'csv', limit: '12' });
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = csv.text.split('\r\n').filter((line) => line.length > 0);
      expect(lines[0]).toBe('event_id,kind,occurred_at,product_id,policy_id,tier,release_id,app_version,platform,offline,device_pseudonym,license_pseudonym');
      expect(lines).toHaveLength(13);
      expect(lines[1]!.split(',')[0]).toBe(String(all[0]!.event_id));
    });
    it('exports a data subject\'s events (machine or license) and erases a machine\'s raw events, leaving aggregates alone', async () => {
      const keys = deriveAnalyticsKeys(bench.admin.server.context.adminProvisioning.masterKey);
      const small = licenses[1]!;
      const [machineId, otherMachineId] = small.machineIds as [string, string];
      const byMachine = await exportAnalyticsEvents(bench.admin.sql, keys, { machineId });
      expect(byMachine.truncated).toBe(false);
      expect(byMachine.events.map((event) => [event.kind, event.device_pseudonym, event.license_pseudonym, event.pending])).toEqual([
        ['activation', analyticsPseudonym(keys, 'device', machineId), analyticsPseudonym(keys, 'license', small.licenseId), false],
        ['check_in', analyticsPseudonym(keys, 'device', machineId), analyticsPseudonym(keys, 'license', small.licenseId), false],
      ]);
      expect((await exportAnalyticsEvents(bench.admin.sql, keys, { licenseId: small.licenseId })).events).toHaveLength(4);
      expect((await exportAnalyticsEvents(bench.admin.sql, keys, { licenseId: small.licenseId }, { limit: 3 })).truncated).toBe(true);

      const aggregates = await rollupRows(bench.admin.sql, today);
      const step = analyticsEventErasure(keys);
      const machine = { machineId, licenseId: small.licenseId } as MachineRecord;
      const charged: unknown[] = [];
      expect(await step.preview(bench.admin.sql, machine, { charge: (use) => charged.push(use) })).toBe(2);
      expect(await bench.admin.sql.transaction((tx) => step.run(tx, machine, { charge: (use) => charged.push(use) }))).toBe(2);
      expect(charged).toEqual([{ records: 2, matched: 2 }, { records: 2, matched: 2 }]);
      expect((await exportAnalyticsEvents(bench.admin.sql, keys, { machineId })).events).toEqual([]);
      expect((await exportAnalyticsEvents(bench.admin.sql, keys, { machineId: otherMachineId })).events).toHaveLength(2);
      expect(await rollupRows(bench.admin.sql, today)).toEqual(aggregates);
    });
  });
}
