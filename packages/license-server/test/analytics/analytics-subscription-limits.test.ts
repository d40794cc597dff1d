/**
 * Review 15 F10: disabled subscriptions no longer count toward a creation limit, so an `analytics:r`
 * token that creates and disables subscriptions cannot lock its vendor out of creating any; the disabled
 * rows kept are capped (the oldest beyond the cap are removed when another is disabled).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionLimits } from '@tollgate/core/license';
import { serverEngines } from '../helpers';
import { fakeResolver, openSubscriptionBench, type SubscriptionBench } from '../subscriptions/subscription-bench';

const engine = serverEngines.find((candidate) => candidate.name === 'pglite') ?? serverEngines[0]!;
const hook = 'https://hooks.example.com/metrics';

describe(`analytics subscription limits [${engine.name}]`, () => {
  let bench: SubscriptionBench;
  beforeAll(async () => {
    const dns = fakeResolver();
    dns.answers.set('hooks.example.com', ['93.184.215.14']);
    bench = await openSubscriptionBench(engine, { resolve: dns.resolve });
  }, 120_000);
  afterAll(() => bench?.close());

  it('creates after any number of create-and-disable rounds, keeping at most the cap of disabled rows', async () => {
    const rounds = Math.ceil(subscriptionLimits.disabledKeptPerVendor / subscriptionLimits.activePerVendor) + 1;
    for (let round = 0; round < rounds; round++) {
      for (let index = 0; index < subscriptionLimits.activePerVendor; index++) {
        const created = await bench.create({ metric_ids: ['activations'], schedule: 'daily', url: hook });
        expect(created.status, created.text).toBe(201);
        const disabled = await bench.create({ subscription_id: created.body.subscription.subscription_id as string, active: false });
        expect(disabled.status, `${round}/${index} ${disabled.text}`).toBe(200);
      }
    }
    expect((await bench.create({ metric_ids: ['activations'], schedule: 'daily', url: hook })).status).toBe(201);
    const { rows } = await bench.admin.sql.query<{ active: boolean; n: number }>(
      'SELECT active, count(*)::int AS n FROM license_analytics_subscriptions GROUP BY active ORDER BY active',
    );
    expect(rows).toEqual([
      { active: false, n: subscriptionLimits.disabledKeptPerVendor },
      { active: true, n: 1 },
    ]);
  }, 120_000);
});
