/**
 * The admin client's `analytics`, `dsr`, `telemetry` and `audit` groups against a real license server:
 * every method once with its answer checked (reads compared with the server's own answer where the
 * shape is the server's), the export streamed as parsed NDJSON rows or raw CSV lines and resumed from
 * `lastEventId`, destructive calls previewing (nothing changes) unless `dryRun: false`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartLicenseOptions } from '@tollgate/license-server';
import { createAdminClient, type AdminClient } from '@tollgate/admin-client';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { snapshotTables } from '../admin/admin-license-fixtures';
import { dsrMasterKeyHex, seedSubject, type SeededSubject } from '../dsr/dsr-fixtures';
import { serverEngines } from '../helpers';

const dayMs = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
/** Exported events live under a product id of their own, so activations' own events never mix in. */
const exportProduct = 'admin-client-export';
const exportedIds = ['9000000001', '9000000002', '9000000003', '9000000004', '9000000005'];

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function seedExportEvents(bench: AdminHarness): Promise<void> {
  for (const [index, eventId] of exportedIds.entries()) {
    await bench.sql.query(
      `INSERT INTO license_analytics_events (event_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at, device_pseudonym, license_pseudonym)
       VALUES ($1, $2, $3, 'policy-x', 'pro', NULL, '1.0.0', 'linux', false, $4, now(), $5, $6)`,
      [eventId, bench.vendorA.vendorId, exportProduct, index % 2 === 0 ? 'activation' : 'check_in', String(index).padStart(64, 'a'), 'b'.repeat(64)],
    );
  }
}

/** A raw T1 row of its own subject, received at `receivedAt`. */
async function seedRawTelemetry(bench: AdminHarness, receivedAt: Date): Promise<void> {
  await bench.sql.query(
    `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
     VALUES ($1, $2, $3, 1, 0, 1, 0, 0, 0, 0, '{}', 1, $4)`,
    [bench.vendorA.vendorId, bench.vendorA.productId, crypto.randomUUID().replaceAll('-', '').repeat(2), receivedAt],
  );
}

for (const engine of serverEngines) {
  describe(`admin client: analytics, dsr, telemetry, audit [${engine.name}]`, () => {
    let bench: AdminHarness;
    let admin: AdminClient;
    let subject: SeededSubject;

    beforeAll(async () => {
      // Loopback http destinations for subscriptions; the rollup job kept out of the way.
      const serverOptions: StartLicenseOptions = { alerts: { insecureAllowLoopbackForTests: true } };
      bench = await openAdminHarness(engine, { LICENSE_MASTER_KEY: dsrMasterKeyHex, ANALYTICS_JOB_INTERVAL_MS: '3600000' }, serverOptions);
      admin = createAdminClient({ baseUrl: bench.url, token: bench.vendorA.token });
      subject = await seedSubject(bench, bench.vendorA, 2);
      await seedExportEvents(bench);
    }, 120_000);
    afterAll(() => bench?.close());

    describe('analytics', () => {
      it('answers definitions and metric series exactly as the server does for the same query', async () => {
        expect(await admin.analytics.definitions()).toEqual((await bench.call('GET', '/analytics/definitions')).body);
        const series = await admin.analytics.metrics({ ids: ['activations', 'check_ins'], from: today, to: today, granularity: 'week', groupBy: ['policy_id'] });
        const raw = await bench.call('GET', '/analytics/metrics', { query: { ids: 'activations,check_ins', from: today, to: today, granularity: 'week', group_by: 'policy_id' } });
        expect(series).toEqual(raw.body);
        expect(series).toMatchObject({ granularity: 'week', group_by: ['policy_id'] });
      });

      it('streams the export as parsed NDJSON rows, bounded by limit and resumable from lastEventId', async () => {
        const everything = admin.analytics.export({ from: today, to: today, productId: exportProduct });
        expect(everything.lastEventId).toBeUndefined();
        const rows = await collect(everything);
        expect(rows.map((row) => row.event_id)).toEqual(exportedIds);
        expect(rows[0]).toMatchObject({ kind: 'activation', product_id: exportProduct, platform: 'linux', offline: false });
        expect(everything.lastEventId).toBe(exportedIds[4]);

        const firstTwo = admin.analytics.export({ from: today, to: today, productId: exportProduct, limit: 2 });
        expect((await collect(firstTwo)).map((row) => row.event_id)).toEqual(exportedIds.slice(0, 2));
        expect(firstTwo.lastEventId).toBe(exportedIds[1]);
        const rest = await collect(admin.analytics.export({ from: today, to: today, productId: exportProduct, cursor: firstTwo.lastEventId, kind: 'check_in' }));
        expect(rest.map((row) => row.event_id)).toEqual([exportedIds[3]]);
      });

      it('streams CSV as raw lines, header first', async () => {
        const csv = admin.analytics.export({ from: today, to: today, productId: exportProduct, format: 'csv' });
        const lines = await collect(csv);
        expect(lines[0]).toBe('event_id,kind,occurred_at,product_id,policy_id,tier,release_id,app_version,platform,offline,device_pseudonym,license_pseudonym');
        expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(exportedIds);
        expect(lines.every((line) => !line.endsWith('\r'))).toBe(true);
        expect(csv.lastEventId).toBe(exportedIds[4]);
      });

      it('reports a refused export query with the server code when iterated', async () => {
        const refused = await collect(admin.analytics.export({ from: today, to: '2000-01-01' })).catch((error: unknown) => error);
        expect(refused).toMatchObject({ name: 'AdminApiError', code: 'invalid_request', status: 400 });
      });

      it('creates, lists and disables metric subscriptions (the secret shown once)', async () => {
        const created = await admin.analytics.subscriptions.create({ metricIds: ['activations'], schedule: 'daily', url: 'http://127.0.0.1:9/hook', groupBy: ['tier'], description: 'daily KPIs' });
        expect(created.signing_secret.length).toBeGreaterThan(16);
        expect(created.subscription).toMatchObject({ metric_ids: ['activations'], group_by: ['tier'], schedule: 'daily', description: 'daily KPIs', active: true });
        const listed = await collect(admin.analytics.subscriptions.list());
        expect(listed.map((one) => one.subscription_id)).toEqual([created.subscription.subscription_id]);
        expect(JSON.stringify(listed)).not.toContain(created.signing_secret);
        const disabled = await admin.analytics.subscriptions.setActive(created.subscription.subscription_id, false);
        expect(disabled).toMatchObject({ changed: true, subscription: { active: false } });
      });
    });

    describe('dsr', () => {
      it('exports a subject and erases a machine only when confirmed', async () => {
        const exported = await admin.dsr.export({ licenseId: subject.licenseId });
        expect(exported).toMatchObject({ subject: { kind: 'license', id: subject.licenseId }, license_id: subject.licenseId, machine_ids: [...subject.machineIds].sort() });
        expect(exported.records['license_machines']).toHaveLength(2);

        const machineId = subject.machineIds[0] as string;
        const before = await snapshotTables(bench);
        const preview = await admin.dsr.delete({ machineId });
        if (!preview.dry_run) throw new Error(`expected a dry run, got ${JSON.stringify(preview)}`);
        expect(preview).toMatchObject({ subject: { kind: 'machine', id: machineId }, machine_ids: [machineId], audit_tombstone: false });
        expect(Object.values(preview.would_erase).some((count) => count > 0)).toBe(true);
        expect(await snapshotTables(bench)).toBe(before);

        const erased = await admin.dsr.delete({ machineId }, { dryRun: false });
        if (erased.dry_run) throw new Error('expected an erasure');
        expect(erased.erased).toEqual(preview.would_erase);
        const gone = await admin.dsr.export({ machineId }).catch((error: unknown) => error);
        expect(gone).toMatchObject({ name: 'AdminApiError', code: 'not_found', status: 404 });
      });
    });

    describe('telemetry', () => {
      it('reads the counters of a range and product', async () => {
        for (const [day, count] of [[today, 3], ['2000-01-01', 5]] as const) {
          await bench.sql.query("INSERT INTO license_telemetry_counters (vendor_id, product_id, counter, day, shard, count) VALUES ($1, $2, 't1.stored', $3, 0, $4)", [
            bench.vendorA.vendorId,
            bench.vendorA.productId,
            day,
            count,
          ]);
        }
        const counters = await admin.telemetry.counters({ from: today, to: today, productId: bench.vendorA.productId });
        expect(counters).toMatchObject({ from: today, to: today, product_id: bench.vendorA.productId, totals: { 't1.stored': 3 } });
        expect(counters.days).toContainEqual({ day: today, product_id: bench.vendorA.productId, counter: 't1.stored', count: 3 });
        expect((await admin.telemetry.counters()).to).toBe(today);
      });

      it('purges raw rows past retention only when confirmed, sending before in the body', async () => {
        await seedRawTelemetry(bench, new Date(Date.now() - 40 * dayMs));
        await seedRawTelemetry(bench, new Date(Date.now() - 45 * dayMs));
        const before = await snapshotTables(bench);
        const preview = await admin.telemetry.purge();
        expect(preview).toMatchObject({ dry_run: true, raw_records: 2, before: null, retention_days: 30 });
        expect(await admin.telemetry.purge({ before: '2000-01-01' })).toMatchObject({ dry_run: true, before: '2000-01-01', raw_records: 2 });
        expect(await snapshotTables(bench)).toBe(before);
        const done = await admin.telemetry.purge(undefined, { dryRun: false });
        expect(done).toMatchObject({ dry_run: false, deleted_raw_records: 2, journaled: true });
        expect(await admin.telemetry.purge()).toMatchObject({ dry_run: true, raw_records: 0 });
      });
    });

    describe('audit', () => {
      it('lists events page by page as the server does, and verifies the chain in windows', async () => {
        const raw = (await bench.call('GET', '/audit', { query: { limit: '200' } })).body.events;
        expect(raw.length).toBeGreaterThan(3);
        expect(await collect(admin.audit.list({ limit: 2 }))).toEqual(raw);
        const licenseEvents = await collect(admin.audit.list({ targetType: 'license', targetId: subject.licenseId }));
        expect(licenseEvents.length).toBeGreaterThan(0);
        expect(licenseEvents.every((event) => event.target.type === 'license' && event.target.id === subject.licenseId)).toBe(true);
        expect(raw.map((event: { action: string }) => event.action)).toContain('telemetry.purge');

        const whole = await admin.audit.verify();
        expect(whole).toMatchObject({ verified: true, event_count: raw.length, complete: true, next_from_seq: null, first_broken: null });
        const window = await admin.audit.verify({ fromSeq: 2, limit: 1 });
        expect(window).toMatchObject({ verified: true, event_count: 1, complete: false, next_from_seq: 3 });
      });
    });
  });
}
