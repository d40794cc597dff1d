/**
 * Seeded fuzz of the analytics routes: random and mutated query strings (and stray bodies and methods)
 * never produce a 5xx, and every refusal is the Admin error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupAnalyticsDay } from '@tollgate/core/license';
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';

const names = ['ids', 'from', 'to', 'granularity', 'group_by', 'format', 'limit', 'cursor', 'kind', 'product_id', 'x', ''];
const values = [
  'activations',
  'activations,check_ins,active_devices,active_licenses,t1_reports,t1_sessions,t1_days_active,t1_session_durations,t1_feature_hits,t1_reporting_devices,activations',
  't1_feature_hits',
  '2025-01-01',
  '2025-12-31',
  '2025-02-29',
  '9999-12-31',
  '0000-01-01',
  '-1',
  '0',
  '1',
  '100000000000000000000',
  'day',
  'week',
  'month',
  'csv',
  'ndjson',
  'product_id,policy_id,tier,release_id',
  'feature',
  'duration_bucket',
  "'; DROP TABLE license_analytics_events; --",
  '%00',
  '\u0000',
  '😀'.repeat(40),
  'a'.repeat(5000),
  'check_in',
  ',,,',
];

function randomText(random: SeededRandom): string {
  const length = random.int(12);
  return Array.from({ length }, () => String.fromCharCode(random.int(0x3000))).join('');
}

function randomQuery(random: SeededRandom): Record<string, string> {
  const query: Record<string, string> = {};
  const count = random.int(7);
  for (let index = 0; index < count; index++) query[random.pick(names)] = random.next() < 0.8 ? random.pick(values) : randomText(random);
  if (random.next() < 0.5) Object.assign(query, { from: '2025-03-01', to: random.pick(['2025-03-01', '2025-03-31', '2026-12-31']) });
  return query;
}

for (const engine of serverEngines) {
  describe(`analytics routes fuzz [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ANALYTICS_JOB_INTERVAL_MS: '3600000' });
      // Rolled-up data on the days the fuzz asks about, so queries and exports walk real rows.
      await bench.sql.query(
        `INSERT INTO license_analytics_events (event_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at, device_pseudonym, license_pseudonym)
         SELECT 5000000000 + n, $1, $2, 'p' || (n % 3), NULL, NULL, '=1+1', 'linux-x64', false, CASE WHEN n % 2 = 0 THEN 'activation' ELSE 'check_in' END,
           timestamptz '2025-03-01T00:00:00Z' + n * interval '1 hour', encode(sha256(('d' || n)::bytea), 'hex'), encode(sha256(('l' || (n % 4))::bytea), 'hex')
         FROM generate_series(1, 60) AS n`,
        [bench.vendorA.vendorId, bench.vendorA.productId],
      );
      for (const day of ['2025-03-01', '2025-03-02', '2025-03-03']) await rollupAnalyticsDay(bench.sql, day, new Date());
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers 300 random requests without a 5xx, refusals in the Admin envelope', async () => {
      const random = seededRandom(20_150);
      for (let round = 0; round < 300; round++) {
        const path = random.pick(['/analytics/definitions', '/analytics/metrics', '/analytics/export']);
        const query = randomQuery(random);
        const method = random.next() < 0.9 ? 'GET' : random.pick(['POST', 'PATCH', 'DELETE']);
        const answer = await bench.call(method, path, { query, ...(method === 'GET' ? {} : { body: { ids: 'activations' } }) });
        expect(answer.status, `${method} ${path} ${JSON.stringify(query)}`).toBeLessThan(500);
        if (answer.status >= 400) expect((answer.body as { ok: boolean; error: { code: string; message: string } }).error.code).toMatch(/^[a-z_]+$/);
      }
    }, 120_000);
  });
}
