/**
 * The telemetry intake over real HTTP (`POST /v1/validate` with a block at key 11): each gate drops the
 * block and counts it, each cap clips and counts its anomaly, a stored row is keyed by the machine's
 * pseudonym (stable, not the machine id, not a license-key HMAC), and the counters read back through
 * `GET /v1/admin/telemetry/counters`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TelemetryBlock } from '@tollgate/core/license';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, ticketOf } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { allowFeatures, counterDelta, countersOf, rawRowsOf, subjectOf, telemetryBlock, telemetryEnv, twoCharacterIds } from './telemetry-fixtures';

for (const engine of serverEngines) {
  describe(`telemetry intake [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, telemetryEnv);
      await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['edit', 'export.pdf', 'ok', ...twoCharacterIds(70)]);
    }, 120_000);
    afterAll(() => bench?.close());

    /** Validates once with `block` under a policy of `telemetry`; the counter changes and the machine's rows. */
    async function send(block: TelemetryBlock, telemetry: 'off' | 't1' = 't1') {
      const licensed = await licensedDevice(bench, { telemetry });
      const before = await countersOf(bench.admin.sql, bench.productId);
      const ticket = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: block }));
      expect(ticket.verdict).toBe(0);
      const delta = counterDelta(before, await countersOf(bench.admin.sql, bench.productId));
      return { licensed, delta, rows: await rawRowsOf(bench.admin.sql, licensed.machineId) };
    }

    it('stores a consented block under a t1 policy, keyed by the pseudonym, and counts t1.stored', async () => {
      const { licensed, delta, rows } = await send(telemetryBlock());
      expect(delta).toEqual({ 't1.stored': 1 });
      expect(rows).toHaveLength(1);
      const row = rows[0] as Record<string, unknown>;
      expect(row).toMatchObject({ subject: subjectOf(licensed.machineId), session_count: 12, days_active: 6, feature_hits: { edit: 40, 'export.pdf': 2 } });
      expect([row['duration_under_5m'], row['duration_under_30m'], row['duration_under_2h'], row['duration_2h_plus']].map(Number)).toEqual([4, 5, 2, 1]);
      expect([Number(row['consent_version']), Number(row['window_start'])]).toEqual([3, 1_790_000_000]);
      // Nothing in the row names the machine, the license or an address.
      const text = JSON.stringify(row);
      expect(text).not.toContain(licensed.machineId);
      expect(text).not.toContain(licensed.licenseId);
      expect(Object.keys(row).some((column) => /machine|license|ip|addr/.test(column))).toBe(false);
    });

    it('tells the device the tier gate on the ticket: key 16 is the server day under a t1 policy, absent under "off" or for another fingerprint', async () => {
      const day = 86_400;
      const t1 = await licensedDevice(bench, { telemetry: 't1' });
      const before = Math.floor(Date.now() / 1000 / day) * day;
      const window = (await ticketOf(bench, await bench.validate(t1.device, t1.seat))).telemetryWindow;
      const after = Math.floor(Date.now() / 1000 / day) * day;
      expect([before, after]).toContain(window);
      const off = await licensedDevice(bench, { telemetry: 'off' });
      expect((await ticketOf(bench, await bench.validate(off.device, off.seat))).telemetryWindow).toBeUndefined();
      const copied = await ticketOf(bench, await bench.validate(t1.device, t1.seat, { fingerprint: new Uint8Array(32).fill(7) }));
      expect([copied.verdict, copied.telemetryWindow]).toEqual([1, undefined]);
    });

    it('drops at the tier gate (policy telemetry "off"): nothing stored, t1.tier_gate counted', async () => {
      const { delta, rows } = await send(telemetryBlock(), 'off');
      expect([delta, rows]).toEqual([{ 't1.tier_gate': 1 }, []]);
    });

    it('drops at the consent gate (consent_version 0): nothing stored, t1.no_consent counted', async () => {
      const { delta, rows } = await send(telemetryBlock({ consentVersion: 0 }));
      expect([delta, rows]).toEqual([{ 't1.no_consent': 1 }, []]);
    });

    it('the gates are independent: a block failing both counts in both', async () => {
      const { delta, rows } = await send(telemetryBlock({ consentVersion: 0 }), 'off');
      expect([delta, rows]).toEqual([{ 't1.tier_gate': 1, 't1.no_consent': 1 }, []]);
    });

    it('clips session_count to 10,000 and counts session_count_clipped', async () => {
      const { delta, rows } = await send(telemetryBlock({ sessionCount: 10_001 }));
      expect(delta).toEqual({ 't1.stored': 1, session_count_clipped: 1 });
      expect(rows[0]?.['session_count']).toBe(10_000);
    });

    it('clips days_active to 28 and counts days_active_clipped', async () => {
      const { delta, rows } = await send(telemetryBlock({ daysActive: 29 }));
      expect(delta).toEqual({ 't1.stored': 1, days_active_clipped: 1 });
      expect(rows[0]?.['days_active']).toBe(28);
    });

    it('clips hits to 10,000 and counts feature_hits_clipped', async () => {
      const { delta, rows } = await send(telemetryBlock({ featureHits: new Map([['edit', 10_001]]) }));
      expect(delta).toEqual({ 't1.stored': 1, feature_hits_clipped: 1 });
      expect(rows[0]?.['feature_hits']).toEqual({ edit: 10_000 });
    });

    it('drops an id over 128 characters, a 65th feature and an id with a control character, counting feature_key_dropped once', async () => {
      const long = await send(telemetryBlock({ featureHits: new Map([['x'.repeat(129), 1], ['edit', 2]]) }));
      expect(long.delta).toEqual({ 't1.stored': 1, feature_key_dropped: 1 });
      expect(long.rows[0]?.['feature_hits']).toEqual({ edit: 2 });
      const many = new Map(Array.from({ length: 70 }, (_, index) => [index.toString(36).padStart(2, '0'), 1] as [string, number]));
      const surplus = await send(telemetryBlock({ featureHits: many }));
      expect(surplus.delta).toEqual({ 't1.stored': 1, feature_key_dropped: 1 });
      expect(Object.keys(surplus.rows[0]?.['feature_hits'] as object)).toHaveLength(64);
      const control = await send(telemetryBlock({ featureHits: new Map([['a\u0000b', 1], ['ok', 1]]) }));
      expect(control.delta).toEqual({ 't1.stored': 1, feature_key_dropped: 1 });
      expect(control.rows[0]?.['feature_hits']).toEqual({ ok: 1 });
    });

    it('keys every block of a machine by one stable pseudonym, unlike any license-key HMAC or fingerprint hash', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      // One block per machine and UTC day: the day's second block is counted, not stored.
      const before = await countersOf(bench.admin.sql, bench.productId);
      for (let round = 0; round < 2; round += 1) await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock() }));
      expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({ 't1.stored': 1, 't1.duplicate_window': 1 });
      const rows = await rawRowsOf(bench.admin.sql, licensed.machineId);
      expect(rows.map((row) => row['subject'])).toEqual([subjectOf(licensed.machineId)]);
      const other = await licensedDevice(bench, { telemetry: 't1' });
      expect(subjectOf(other.machineId)).not.toBe(subjectOf(licensed.machineId));
      const hashes = await bench.admin.sql.query<{ h: string }>(
        'SELECT key_hash AS h FROM license_licenses UNION ALL SELECT fingerprint_hash FROM license_machines',
      );
      expect(hashes.rows.length).toBeGreaterThan(0);
      expect(hashes.rows.map((row) => row.h)).not.toContain(subjectOf(licensed.machineId));
    });

    it('GET /telemetry/counters answers the day totals per product and counter (analytics:r)', async () => {
      const token = await bench.admin.tokenWith(bench.admin.vendorA, ['analytics:r']);
      const answer = await bench.admin.call('GET', '/telemetry/counters', { token, query: { product_id: bench.productId } });
      expect(answer.status).toBe(200);
      const totals = await countersOf(bench.admin.sql, bench.productId);
      expect(answer.body.totals).toEqual(totals);
      expect(answer.body.totals['t1.tier_gate']).toBeGreaterThanOrEqual(2);
      expect(answer.body.days.every((day: { product_id: string; day: string }) => day.product_id === bench.productId && /^\d{4}-\d{2}-\d{2}$/.test(day.day))).toBe(true);
      // Another vendor sees none of vendor A's counts, and vendor A's product is not found for it.
      const foreign = await bench.admin.call('GET', '/telemetry/counters', { token: bench.admin.vendorB.token });
      expect([foreign.status, foreign.body.totals]).toEqual([200, {}]);
      const foreignProduct = await bench.admin.call('GET', '/telemetry/counters', { token: bench.admin.vendorB.token, query: { product_id: bench.productId } });
      expect(foreignProduct.status).toBe(404);
      const noScope = await bench.admin.call('GET', '/telemetry/counters', { token: await bench.admin.tokenWith(bench.admin.vendorA, ['dsr:rw']) });
      expect([noScope.status, noScope.body.error.code]).toEqual([403, 'insufficient_scope']);
      for (const query of [{ from: '2026-02-30' }, { from: '2026-05-02', to: '2026-05-01' }, { from: '2024-01-01', to: '2026-01-01' }, { other: '1' }] as Record<string, string>[]) {
        const refused = await bench.admin.call('GET', '/telemetry/counters', { token, query });
        expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_request']);
      }
    });
  });
}
