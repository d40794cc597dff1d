/**
 * Seeded fuzz of the telemetry routes over real HTTP: `POST /v1/admin/telemetry/purge`,
 * `GET /v1/admin/telemetry/counters` and `GET /metrics` get random queries, bodies, content types,
 * keys, methods and bearer headers. Every answer is below 500, and every JSON answer is either a
 * success (`ok: true`) or the Admin error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutateBytes, seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { telemetryEnv } from './telemetry-fixtures';

const inputsPerRoute = 400;
const concurrency = 8;
const metricsToken = 'fuzz-metrics-token-0123456789abcdefghijklmnop';

const queryNames = ['before', 'dry_run', 'from', 'to', 'product_id', 'limit', 'x', ''];
const textValues = ['2026-05-01', '2026-02-30', '1970-01-01', '9999-12-31', '0000-01-01', 'false', 'true', '', 'é', '%00', 'a'.repeat(300), '2026-5-1', '-1', '00000000000000000000000000000000'];
const bodies = ['{}', '{"before":"2026-05-01"}', '{"before":5}', '[]', 'null', '"x"', '{"before":"2026-05-01","x":1}', '{', '{"before":"2026-02-30"}', '1e999'];

function randomQuery(random: SeededRandom, productId: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (let count = random.int(4); count > 0; count -= 1) query[random.pick(queryNames)] = random.int(6) === 0 ? productId : random.pick(textValues);
  return query;
}

function randomBody(random: SeededRandom): string | undefined {
  switch (random.int(4)) {
    case 0:
      return undefined;
    case 1:
      return random.pick(bodies);
    case 2:
      return new TextDecoder().decode(mutateBytes(random, new TextEncoder().encode(random.pick(bodies))));
    default:
      return JSON.stringify({ before: random.pick(textValues), [random.pick(queryNames)]: random.pick(textValues) });
  }
}

/** Statuses seen, so a run that only ever met one refusal (a dead token, say) fails. */
const seen = new Map<string, Set<number>>();

function checkEnvelope(label: string, status: number, contentType: string, text: string): void {
  const route = label.split(' ')[0] ?? '';
  seen.set(route, (seen.get(route) ?? new Set()).add(status));
  expect(status, label).toBeLessThan(500);
  if (!contentType.startsWith('application/json')) return;
  const body = JSON.parse(text) as { ok: boolean; error?: { code: unknown; message: unknown } };
  if (status < 300) expect(body.ok, label).toBe(true);
  else expect([body.ok, typeof body.error?.code, typeof body.error?.message], label).toEqual([false, 'string', 'string']);
}

for (const engine of serverEngines) {
  describe(`telemetry routes: fuzz [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ...telemetryEnv, LICENSE_METRICS_TOKEN: metricsToken });
    }, 120_000);
    afterAll(() => bench?.close());

    async function inBatches(count: number, send: (index: number) => Promise<void>): Promise<void> {
      for (let start = 0; start < count; start += concurrency) await Promise.all(Array.from({ length: Math.min(concurrency, count - start) }, (_, offset) => send(start + offset)));
    }

    for (const [method, path, seed] of [
      ['POST', '/telemetry/purge', 18_001],
      ['GET', '/telemetry/counters', 18_002],
    ] as const) {
      it(`${method} ${path}: ${inputsPerRoute} seeded inputs, never a 5xx`, async () => {
        const random = seededRandom(seed);
        const inputs = Array.from({ length: inputsPerRoute }, () => ({
          query: randomQuery(random, bench.vendorA.productId),
          body: randomBody(random),
          contentType: random.pick(['application/json', 'application/json', 'text/plain', 'application/json; charset=latin1']),
          key: random.int(3) === 0 ? random.pick(['k', 'a'.repeat(129), 'key with space', `fuzz-${random.int(1000)}`]) : undefined,
          method: random.int(10) === 0 ? random.pick(['PUT', 'DELETE', 'PATCH', 'GET', 'POST']) : method,
        }));
        await inBatches(inputs.length, async (index) => {
          const input = inputs[index] as (typeof inputs)[number];
          const url = new URL(`/v1/admin${path}`, bench.url);
          for (const [name, value] of Object.entries(input.query)) url.searchParams.set(name, value);
          const headers: Record<string, string> = { authorization: `Bearer ${bench.vendorA.token}` };
          if (input.key !== undefined) headers['idempotency-key'] = input.key;
          const sendsBody = input.body !== undefined && input.method !== 'GET';
          if (sendsBody) headers['content-type'] = input.contentType;
          const response = await fetch(url, { method: input.method, headers, ...(sendsBody ? { body: input.body } : {}) });
          checkEnvelope(`${path}:${input.method} ${url.search} ${String(input.body)}`, response.status, response.headers.get('content-type') ?? '', await response.text());
        });
        expect([...(seen.get(`${path}:${method}`) ?? [])]).toEqual(expect.arrayContaining([200, 400]));
      }, 300_000);
    }

    it(`GET /metrics: ${inputsPerRoute} seeded headers, methods and queries, never a 5xx, 200 only with the token`, async () => {
      const random = seededRandom(18_003);
      const authorizations = [undefined, `Bearer ${metricsToken}`, `bearer ${metricsToken}`, `Bearer  ${metricsToken} `, 'Bearer', `Bearer ${metricsToken}\u0001`, `Token ${metricsToken}`, `Bearer ${'x'.repeat(5000)}`];
      await inBatches(inputsPerRoute, async () => {
        const authorization = random.int(4) === 0 ? new TextDecoder().decode(mutateBytes(random, new TextEncoder().encode(`Bearer ${metricsToken}`))).replace(/[^\x20-\x7e]/g, '') : random.pick(authorizations);
        const method = random.pick(['GET', 'GET', 'GET', 'POST', 'HEAD', 'DELETE']);
        const path = random.pick(['/metrics', '/metrics/', '/metrics?x=1', '/metrics/x', '/metrics%00']);
        let response: Response;
        try {
          response = await fetch(new URL(path, bench.url), { method, headers: authorization === undefined ? {} : { authorization } });
        } catch {
          return; // fetch refused to send a header value it considers invalid: nothing reached the server
        }
        const text = await response.text();
        const label = `metrics:${method} ${path} ${String(authorization).slice(0, 80)}`;
        if (method !== 'HEAD') checkEnvelope(label, response.status, response.headers.get('content-type') ?? '', text);
        expect(response.status, label).toBeLessThan(500);
        if (response.status === 200 && method === 'GET') expect(text, label).toContain('# TYPE tollgate_license_telemetry_counter_total counter');
      });
      expect([...(seen.get('metrics:GET') ?? [])]).toEqual(expect.arrayContaining([200, 401]));
    }, 300_000);
  });
}
