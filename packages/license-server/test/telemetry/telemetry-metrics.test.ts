/**
 * `GET /metrics`: absent without `LICENSE_METRICS_TOKEN`; with it, 401 for a missing or wrong bearer
 * token and the Prometheus text format for the right one, whose samples match the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, ticketOf } from '../client/client-session-helpers';
import { openServerSandbox, serverEngines } from '../helpers';
import { countersOf, telemetryBlock, telemetryEnv } from './telemetry-fixtures';

const metricsToken = 'metrics-token-0123456789abcdefghijklmnopqrstuvwxyz';

/** One parsed sample line. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/**
 * A strict reader of the text exposition format 0.0.4: every line is `# HELP name text`, `# TYPE name
 * counter|gauge` (before the family's samples, once), or `name{label="value",…} number`; label values
 * use only the format's escapes. Throws on anything else.
 */
export function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (help) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      if (types.has(type[1] as string)) throw new Error(`TYPE twice for ${type[1]}`);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|\+Inf|-Inf))$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${JSON.stringify(line)}`);
    const name = sample[1] as string;
    if (!types.has(name)) throw new Error(`sample before its TYPE: ${name}`);
    const labels: Record<string, string> = {};
    for (const match of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    }
    samples.push({ name, labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

for (const engine of serverEngines) {
  describe(`GET /metrics [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { ...telemetryEnv, LICENSE_METRICS_TOKEN: metricsToken });
    }, 120_000);
    afterAll(() => bench?.close());

    const scrape = (authorization?: string) => fetch(new URL('/metrics', bench.url), { headers: authorization === undefined ? {} : { authorization } });

    it('refuses a missing, wrong or malformed bearer token with 401 and a challenge', async () => {
      for (const authorization of [undefined, `Bearer ${metricsToken}x`, `Bearer ${metricsToken.slice(0, -1)}`, metricsToken, `Basic ${metricsToken}`, 'Bearer ', `Bearer ${'é'.repeat(40)}`]) {
        const answer = await scrape(authorization);
        expect(answer.status, String(authorization)).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="tollgate-metrics"');
        expect(await answer.json()).toMatchObject({ ok: false, error: { code: 'invalid_token' } });
      }
    });

    it('answers the text format with the right token: counters and gauges that match the database', async () => {
      const licensed = await licensedDevice(bench, { telemetry: 't1' });
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock({ sessionCount: 20_000 }) }));
      const off = await licensedDevice(bench, { telemetry: 'off' });
      await ticketOf(bench, await bench.validate(off.device, off.seat, { telemetry: telemetryBlock() }));
      const answer = await scrape(`Bearer ${metricsToken}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const { types, samples } = parseExposition(await answer.text());
      expect(types.get('tollgate_license_telemetry_counter_total')).toBe('counter');
      expect(types.get('tollgate_license_machines')).toBe('gauge');
      const vendorId = bench.admin.vendorA.vendorId;
      const counters = samples.filter((sample) => sample.name === 'tollgate_license_telemetry_counter_total' && sample.labels['product_id'] === bench.productId);
      expect(Object.fromEntries(counters.map((sample) => [sample.labels['counter'], sample.value]))).toEqual(await countersOf(bench.admin.sql, bench.productId));
      expect(counters.map((sample) => sample.labels['counter'])).toEqual(expect.arrayContaining(['t1.stored', 't1.tier_gate', 'session_count_clipped']));
      const raw = samples.find((sample) => sample.name === 'tollgate_license_telemetry_raw_rows' && sample.labels['vendor_id'] === vendorId);
      expect(raw?.value).toBe(1);
      const active = samples.find((sample) => sample.name === 'tollgate_license_machines' && sample.labels['vendor_id'] === vendorId && sample.labels['status'] === 'active');
      expect(active?.value).toBe(2);
      const seen = samples.find((sample) => sample.name === 'tollgate_license_machines_seen' && sample.labels['vendor_id'] === vendorId);
      expect(seen).toMatchObject({ labels: { window: '24h' }, value: 2 });
      expect(samples.some((sample) => sample.name === 'tollgate_license_licenses' && sample.labels['status'] === 'active' && sample.value >= 2)).toBe(true);
    });

    it('is absent (404) when LICENSE_METRICS_TOKEN is unset', async () => {
      const sandbox = await openServerSandbox(engine);
      try {
        const server = await sandbox.start();
        const answer = await fetch(new URL('/metrics', server.url), { headers: { authorization: `Bearer ${metricsToken}` } });
        expect([answer.status, (await answer.json()).error.code]).toEqual([404, 'not_found']);
      } finally {
        await sandbox.cleanup();
      }
    }, 120_000);
  });
}
