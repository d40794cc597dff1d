/**
 * `GET`/`POST /v1/admin/analytics/subscriptions` over real HTTP: creation shows the signing secret once
 * and stores it sealed, validation refuses what the metric API would refuse, lists are vendor-scoped and
 * paged, `active:false` disables (cancelling pending periods) and `active:true` resumes, and the bounds hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionLimits } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { fakeResolver, openSubscriptionBench, type SubscriptionBench } from './subscription-bench';

const engine = serverEngines.find((candidate) => candidate.name === 'pglite') ?? serverEngines[0]!;
const hook = 'https://hooks.example.com/tollgate/metrics?token=receiver-own-token';

describe(`analytics subscription routes [${engine.name}]`, () => {
  let bench: SubscriptionBench;

  beforeAll(async () => {
    // Creation resolves the host: answer a public address without touching the network.
    const dns = fakeResolver();
    dns.answers.set('hooks.example.com', ['93.184.215.14']);
    bench = await openSubscriptionBench(engine, { resolve: dns.resolve });
  });
  afterAll(() => bench?.close());

  it('creates a subscription, answers the signing secret once, and lists it with its delivery status', async () => {
    const created = await bench.create({ metric_ids: ['activations', 'active_devices'], group_by: ['tier'], schedule: 'weekly', url: hook, description: 'weekly KPIs' });
    expect(created.status).toBe(201);
    const secret = created.body.signing_secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const subscription = created.body.subscription as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(subscription).toMatchObject({
      metric_ids: ['activations', 'active_devices'],
      granularity: 'day',
      group_by: ['tier'],
      schedule: 'weekly',
      url: hook,
      description: 'weekly KPIs',
      active: true,
      signing_key_id: expect.stringMatching(/^sk_[0-9a-f]{16}$/),
      // Monday 2026-03-02 12:00: the first period is that ISO week, due Monday 03-09 01:00.
      delivery: { next_period_start: '2026-03-02T00:00:00.000Z', next_attempt_at: '2026-03-09T01:00:00.000Z', consecutive_failures: 0, last_attempt_at: null, pending_periods: 0 },
    });

    const listed = await bench.admin.call('GET', '/analytics/subscriptions');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(secret);
    const item = (listed.body.subscriptions as Record<string, unknown>[]).find((entry) => entry['subscription_id'] === subscription['subscription_id']);
    expect(item).toEqual(subscription);
    expect(item).not.toHaveProperty('signing_secret');

    // Stored sealed: the secret's text and bytes appear nowhere in the row.
    const row = await bench.sql.query<{ sealed_secret: Uint8Array; text: string }>('SELECT sealed_secret, row_to_json(s)::text AS text FROM license_analytics_subscriptions s WHERE subscription_id = $1', [subscription['subscription_id']]);
    expect(row.rows[0]!.text).not.toContain(secret);
    expect(Buffer.from(row.rows[0]!.sealed_secret).toString('hex')).not.toContain(secret);
    // The audit event keeps the host and a hash, never the query string's token.
    const audit = await bench.admin.call('GET', '/audit', { query: { target_id: subscription['subscription_id'] as string } });
    expect(audit.text).toContain('hooks.example.com');
    expect(audit.text).not.toContain('receiver-own-token');
  });

  it('refuses bodies the metric API or the bounds would refuse, naming the field', async () => {
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ metric_ids: ['nope'], schedule: 'daily', url: hook }, /unknown metric "nope"/],
      [{ metric_ids: [], schedule: 'daily', url: hook }, /metric_ids/],
      [{ metric_ids: ['t1_feature_hits'], group_by: ['tier'], schedule: 'daily', url: hook }, /no dimension "tier"/],
      [{ metric_ids: ['activations'], schedule: 'hourly', url: hook }, /schedule/],
      [{ metric_ids: ['activations'], schedule: 'daily', url: 'ftp://hooks.example.com/x' }, /url is refused/],
      [{ metric_ids: ['activations'], schedule: 'daily', url: `https://hooks.example.com/${'a'.repeat(2048)}` }, /url: at most 2048/],
      [{ metric_ids: ['activations'], schedule: 'daily', url: hook, extra: 1 }, /extra/],
      [{ subscription_id: 'x', active: false }, /subscription_id/],
    ];
    for (const [body, message] of refusals) {
      const answer = await bench.create(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringMatching(message) } });
    }
    const noKey = await bench.admin.call('POST', '/analytics/subscriptions', { body: { metric_ids: ['activations'], schedule: 'daily', url: hook } });
    expect(noKey.status).toBe(400);
  });

  it('scopes subscriptions to the vendor and needs analytics:r', async () => {
    const created = await bench.create({ metric_ids: ['check_ins'], schedule: 'daily', url: hook });
    const id = created.body.subscription.subscription_id as string;
    expect((await bench.list(bench.admin.vendorB.token)).has(id)).toBe(false);
    const foreign = await bench.create({ subscription_id: id, active: false }, bench.admin.vendorB.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const noScope = await bench.admin.tokenWith(bench.admin.vendorA, ['licenses:rw']);
    expect((await bench.admin.call('GET', '/analytics/subscriptions', { token: noScope })).status).toBe(403);
    const readOnly = await bench.admin.tokenWith(bench.admin.vendorA, ['analytics:r']);
    expect((await bench.admin.call('GET', '/analytics/subscriptions', { token: readOnly })).status).toBe(200);
  });

  it('disables with active:false and resumes from the current period with active:true', async () => {
    const created = await bench.create({ metric_ids: ['activations'], schedule: 'daily', url: hook });
    const id = created.body.subscription.subscription_id as string;
    const disabled = await bench.create({ subscription_id: id, active: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ changed: true, subscription: { active: false, disabled_at: expect.any(String), delivery: { next_attempt_at: null, next_period_start: null } } });
    expect((await bench.create({ subscription_id: id, active: false })).body.changed).toBe(false);
    bench.clock.advance(3 * 86_400_000);
    const enabled = await bench.create({ subscription_id: id, active: true });
    expect(enabled.body).toMatchObject({ changed: true, subscription: { active: true, disabled_at: null, delivery: { next_period_start: '2026-03-05T00:00:00.000Z' } } });
    bench.clock.advance(-3 * 86_400_000);
  });

  it('pages the list newest first and refuses a bad cursor or an unknown parameter', async () => {
    const first = await bench.admin.call('GET', '/analytics/subscriptions', { query: { limit: '2' } });
    expect(first.body.subscriptions).toHaveLength(2);
    const all = await bench.list();
    const second = await bench.admin.call('GET', '/analytics/subscriptions', { query: { limit: '200', cursor: first.body.next_cursor as string } });
    const ids = [...first.body.subscriptions, ...second.body.subscriptions].map((item: Record<string, unknown>) => item['subscription_id']);
    expect(new Set(ids)).toEqual(new Set(all.keys()));
    expect((await bench.admin.call('GET', '/analytics/subscriptions', { query: { cursor: '!!' } })).status).toBe(400);
    expect((await bench.admin.call('GET', '/analytics/subscriptions', { query: { product_id: 'x' } })).status).toBe(400);
  });

  it(`holds at most ${subscriptionLimits.activePerVendor} active subscriptions per vendor`, async () => {
    const active = [...(await bench.list()).values()].filter((item) => item['active'] === true).length;
    const creations = await Promise.all(
      Array.from({ length: subscriptionLimits.activePerVendor - active + 3 }, () => bench.admin.call('POST', '/analytics/subscriptions', { body: { metric_ids: ['activations'], schedule: 'monthly', url: hook }, key: freshKey() })),
    );
    expect(creations.filter((answer) => answer.status === 201)).toHaveLength(subscriptionLimits.activePerVendor - active);
    const refused = creations.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(3);
    for (const answer of refused) expect(answer.body.error.message).toMatch(/at most 25 active/);
    // Re-enabling beyond the bound is refused too; disabling one frees a place.
    const [someId] = [...(await bench.list()).entries()].find(([, item]) => item['active'] === true)!;
    await bench.create({ subscription_id: someId, active: false });
    expect((await bench.create({ metric_ids: ['activations'], schedule: 'monthly', url: hook })).status).toBe(201);
    expect((await bench.create({ subscription_id: someId, active: true })).status).toBe(400);
  });
});
