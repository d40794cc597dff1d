/**
 * Regressions of the telemetry security review (review15), over real HTTP: what each proof of concept
 * did must now be refused or clipped.
 * - F1: histogram buckets clipped to `session_count` (counted `session_duration_clipped`); the columns
 *   refuse anything above 10,000, so the daily rollup's sums cannot overflow.
 * - F2: only catalog feature ids are stored (`feature_key_dropped` for the others).
 * - F9: one block per machine and UTC day (`t1.duplicate_window` for the next ones).
 * - F6: `received_at` is the UTC day, never the validation's instant.
 * - F8: a copied credential (another fingerprint, verdict 1) stores nothing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enforceTelemetryRetention, rollupAnalyticsDay } from '@tollgate/core/license';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, ticketOf } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { allowFeatures, counterDelta, countersOf, rawRowsOf, subjectOf, telemetryBlock, telemetryEnv } from './telemetry-fixtures';

const dayMs = 86_400_000;

for (const engine of serverEngines) {
  describe(`telemetry review15 regressions [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, telemetryEnv);
      await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['edit', 'export.pdf']);
    }, 120_000);
    afterAll(() => bench?.close());

    /** One validate with `block` from a fresh t1 machine: the verdict, the counter changes and the rows. */
    async function send(block: Parameters<typeof telemetryBlock>[0]) {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const before = await countersOf(bench.admin.sql, bench.productId);
      const ticket = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock(block) }));
      expect(ticket.verdict).toBe(0);
      return { licensed, delta: counterDelta(before, await countersOf(bench.admin.sql, bench.productId)), rows: await rawRowsOf(bench.admin.sql, licensed.machineId) };
    }

    const durations = (row: Record<string, unknown> | undefined) => ['duration_under_5m', 'duration_under_30m', 'duration_under_2h', 'duration_2h_plus'].map((column) => Number(row?.[column]));

    it('F1: clips 2^53-1 buckets to the session count, counts session_duration_clipped, and the day still rolls up', async () => {
      const huge = Number.MAX_SAFE_INTEGER;
      const { delta, rows } = await send({ sessionCount: 12, sessionDurationHistogram: [huge, 0, 0, 0] });
      expect(delta).toEqual({ 't1.stored': 1, session_duration_clipped: 1 });
      expect(durations(rows[0])).toEqual([12, 0, 0, 0]);
      // Buckets that add up past the sessions are scaled down, keeping their shape.
      const scaled = await send({ sessionCount: 10, sessionDurationHistogram: [huge, huge, 0, 0] });
      expect(durations(scaled.rows[0])).toEqual([5, 5, 0, 0]);
      const over = await send({ sessionCount: 50_000, sessionDurationHistogram: [30_000, 30_000, 30_000, 30_000] });
      expect(over.delta).toEqual({ 't1.stored': 1, session_count_clipped: 1, session_duration_clipped: 1 });
      expect(durations(over.rows[0])).toEqual([2500, 2500, 2500, 2500]);
      // A block within the caps is stored as sent and counts no anomaly.
      const exact = await send({ sessionCount: 12, sessionDurationHistogram: [4, 5, 2, 1] });
      expect([exact.delta, durations(exact.rows[0])]).toEqual([{ 't1.stored': 1 }, [4, 5, 2, 1]]);
      // The columns refuse what the PoC stored, even written by hand.
      const row = rows[0] as Record<string, unknown>;
      const insert = (buckets: number[], sessions: number) =>
        bench.admin.sql.query(
          `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
           VALUES ($1, $2, $3, 1, 0, $4, $5, $6, $7, $8, '{}', 1, $9)`,
          [bench.admin.vendorA.vendorId, bench.productId, randomBytes(32).toString('hex'), sessions, ...buckets, new Date('2020-01-01T00:00:00Z')],
        );
      await expect(insert([huge, 0, 0, 0], 10_000)).rejects.toThrow();
      await expect(insert([10_001, 0, 0, 0], 10_000)).rejects.toThrow(/check/i);
      await expect(insert([3, 3, 0, 0], 5)).rejects.toThrow(/check/i);
      await expect(
        bench.admin.sql.query(
          `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
           VALUES ($1, $2, $3, 1, 0, 1, 0, 0, 0, 0, '{"edit": 10001}', 1, $4)`,
          [bench.admin.vendorA.vendorId, bench.productId, randomBytes(32).toString('hex'), new Date('2020-01-01T00:00:00Z')],
        ),
      ).rejects.toThrow(/check/i);
      const day = new Date(row['received_at'] as Date).toISOString().slice(0, 10);
      const rolled = await rollupAnalyticsDay(bench.admin.sql, day, new Date());
      expect(rolled).toBeDefined();
      const { rows: sums } = await bench.admin.sql.query<{ value: string }>(
        `SELECT value::text AS value FROM license_analytics_t1_daily WHERE day = $1 AND product_id = $2 AND measure = 'session_duration' AND key = 'lt_5m'`,
        [day, bench.productId],
      );
      expect(Number(sums[0]?.value)).toBeLessThanOrEqual(10_000 * 4);
    });

    it('F2: keeps only catalog feature ids, drops the others counting feature_key_dropped, and sees a new catalog feature at once', async () => {
      const flood = new Map(Array.from({ length: 60 }, (_, index) => [`q${index}`, 1] as [string, number]));
      flood.set('edit', 3);
      const { delta, rows } = await send({ featureHits: flood });
      expect(delta).toEqual({ 't1.stored': 1, feature_key_dropped: 1 });
      expect(rows[0]?.['feature_hits']).toEqual({ edit: 3 });
      const none = await send({ featureHits: new Map([['unlisted', 5]]) });
      expect([none.delta, none.rows[0]?.['feature_hits']]).toEqual([{ 't1.stored': 1, feature_key_dropped: 1 }, {}]);
      // Another vendor's catalog feature is no feature of this product.
      await allowFeatures(bench.admin.sql, bench.admin.vendorB, ['foreign.only']);
      const foreign = await send({ featureHits: new Map([['foreign.only', 5]]) });
      expect(foreign.rows[0]?.['feature_hits']).toEqual({});
      // Published now, kept from the next block on (read in the storing statement, no stale cache).
      await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['unlisted']);
      const listed = await send({ featureHits: new Map([['unlisted', 5]]) });
      expect([listed.delta, listed.rows[0]?.['feature_hits']]).toEqual([{ 't1.stored': 1 }, { unlisted: 5 }]);
      // Across every stored row, no feature id outside the product's catalog.
      const { rows: ids } = await bench.admin.sql.query<{ id: string }>(
        `SELECT DISTINCT key AS id FROM license_telemetry_raw, jsonb_object_keys(feature_hits) AS key WHERE product_id = $1
         AND NOT EXISTS (SELECT 1 FROM license_catalog_items c WHERE c.product_id = $1 AND c.kind = 'feature' AND c.item_id = key)`,
        [bench.productId],
      );
      expect(ids).toEqual([]);
    });

    it('F9: stores one block per machine and UTC day; later blocks of the day count t1.duplicate_window', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const before = await countersOf(bench.admin.sql, bench.productId);
      for (let round = 0; round < 5; round += 1) {
        // Other window markers do not make a block new: the key is the machine and the day.
        const ticket = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock({ windowStart: 1_790_000_000 + round }) }));
        expect(ticket.verdict).toBe(0);
      }
      expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({ 't1.stored': 1, 't1.duplicate_window': 4 });
      const rows = await rawRowsOf(bench.admin.sql, licensed.machineId);
      expect(rows.map((row) => Number(row['window_start']))).toEqual([1_790_000_000]);
      // The next UTC day takes a block again.
      await bench.admin.sql.query(`UPDATE license_telemetry_raw SET received_at = received_at - interval '1 day' WHERE subject = $1`, [subjectOf(licensed.machineId)]);
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock() }));
      expect(await rawRowsOf(bench.admin.sql, licensed.machineId)).toHaveLength(2);
    });

    it('F6: received_at is midnight UTC, so no exact-time join names the machine; retention still removes it', async () => {
      const { licensed, rows } = await send({});
      const receivedAt = new Date(rows[0]?.['received_at'] as Date);
      expect(receivedAt.toISOString()).toMatch(/T00:00:00\.000Z$/);
      const { rows: joined } = await bench.admin.sql.query(
        'SELECT m.machine_id FROM license_telemetry_raw t JOIN license_machines m ON m.last_validated_at = t.received_at WHERE t.subject = $1',
        [subjectOf(licensed.machineId)],
      );
      expect(joined).toEqual([]);
      const { rows: machine } = await bench.admin.sql.query<{ at: Date }>('SELECT last_validated_at AS at FROM license_machines WHERE machine_id = $1', [licensed.machineId]);
      expect(new Date(machine[0]!.at).toISOString().slice(0, 10)).toBe(receivedAt.toISOString().slice(0, 10));
      // The 30-day retention still finds the row by its day (kept while younger than 30 days).
      expect(await enforceTelemetryRetention(bench.admin.sql, new Date(receivedAt.getTime() + 29 * dayMs), 30)).toBe(0);
      expect(await rawRowsOf(bench.admin.sql, licensed.machineId)).toHaveLength(1);
      expect(await enforceTelemetryRetention(bench.admin.sql, new Date(receivedAt.getTime() + 31 * dayMs), 30)).toBeGreaterThanOrEqual(1);
      expect(await rawRowsOf(bench.admin.sql, licensed.machineId)).toEqual([]);
    });

    it('F8: a copied credential (other fingerprint, verdict 1) stores and counts nothing', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      const before = await countersOf(bench.admin.sql, bench.productId);
      const copy = { ...licensed.device, fingerprint: new Uint8Array(randomBytes(32)) };
      const ticket = await ticketOf(bench, await bench.validate(copy, licensed.seat, { telemetry: telemetryBlock() }));
      expect(ticket.verdict).toBe(1);
      expect(await rawRowsOf(bench.admin.sql, licensed.machineId)).toEqual([]);
      expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({});
      // The real device still reports.
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock() }));
      expect(await rawRowsOf(bench.admin.sql, licensed.machineId)).toHaveLength(1);
    });
  });
}
