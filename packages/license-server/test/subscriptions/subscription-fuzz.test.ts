/**
 * Seeded fuzz of `GET`/`POST /v1/admin/analytics/subscriptions`: random JSON bodies (create and update
 * shapes, wrong types, hostile URLs, raw text) and random list queries never produce a 5xx, and every
 * answer is the Admin envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { fakeResolver, openSubscriptionBench, type SubscriptionBench } from './subscription-bench';

const keys = ['metric_ids', 'schedule', 'url', 'granularity', 'group_by', 'description', 'subscription_id', 'active', 'x'];

function randomJson(random: SeededRandom, values: readonly unknown[], depth = 0): unknown {
  const kind = random.int(depth > 2 ? 1 : 3);
  if (kind === 0) return random.pick(values);
  if (kind === 1) return Array.from({ length: random.int(4) }, () => randomJson(random, values, depth + 1));
  return Object.fromEntries(Array.from({ length: random.int(5) }, () => [random.pick(keys), randomJson(random, values, depth + 1)]));
}

const engine = serverEngines.find((candidate) => candidate.name === 'pglite') ?? serverEngines[0]!;

describe(`analytics subscription routes fuzz [${engine.name}]`, () => {
  let bench: SubscriptionBench;
  beforeAll(async () => {
    const dns = fakeResolver();
    dns.answers.set('hooks.example.com', ['93.184.215.14']);
    bench = await openSubscriptionBench(engine, { loopback: false, resolve: dns.resolve });
  });
  afterAll(() => bench?.close());

  it('answers fuzzed bodies and queries without a 5xx', async () => {
    const random = seededRandom(20_0015);
    const existing = await bench.create({ metric_ids: ['activations'], schedule: 'daily', url: 'https://hooks.example.com/x' });
    expect(existing.status).toBe(201);
    const id = existing.body.subscription.subscription_id as string;
    const values: unknown[] = [
      null, true, false, 0, -1, 1e308, 1.5, '', 'x'.repeat(3000), [], {}, id, id.toUpperCase(), 'f'.repeat(32),
      'daily', 'weekly', 'monthly', 'day', 'month', 'activations', 'tier', 'feature', ['activations'], ['activations', 'nope'], ['tier', 'platform', 'release_id', 'policy_id'],
      'https://hooks.example.com/x', 'https://10.0.0.1/', 'http://127.0.0.1:1/', 'https://[::1]/', 'javascript:alert(1)', 'https://hooks.example.com/\u0000', '\ud800',
    ];
    const answers: { status: number; body: { ok?: unknown } | undefined; what: string }[] = [];
    for (let round = 0; round < 120; round += 1) {
      const body = random.pick([
        randomJson(random, values),
        { metric_ids: random.pick(values), schedule: random.pick(values), url: random.pick(values) },
        { metric_ids: ['activations'], schedule: 'daily', url: random.pick(values), group_by: random.pick(values), granularity: random.pick(values) },
        { subscription_id: random.pick(values), active: random.pick(values) },
      ]);
      const raw = random.int(8) === 0 ? JSON.stringify(body).slice(0, 1 + random.int(40)) : undefined;
      const post = await bench.admin.call('POST', '/analytics/subscriptions', { key: freshKey(), ...(raw === undefined ? { body } : { rawBody: raw }) });
      answers.push({ status: post.status, body: post.body, what: `POST ${(raw ?? JSON.stringify(body)).slice(0, 200)}` });
      const query = Object.fromEntries(Array.from({ length: random.int(3) }, () => [random.pick(['limit', 'cursor', 'x']), String(random.pick(values)).slice(0, 300)]));
      const get = await bench.admin.call('GET', '/analytics/subscriptions', { query });
      answers.push({ status: get.status, body: get.body, what: `GET ${JSON.stringify(query).slice(0, 200)}` });
    }
    for (const answer of answers) {
      expect(answer.status, answer.what).toBeLessThan(500);
      expect(answer.body?.ok, answer.what).toBe(answer.status < 300);
    }
    expect(answers.some((answer) => answer.status === 400)).toBe(true);
  });
});
