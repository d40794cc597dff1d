/**
 * SSRF rules of subscription webhooks under the production policy (no loopback allowance): creation
 * refuses non-https URLs, private, loopback and link-local literals, and host names that resolve to any
 * non-public address; delivery resolves again and refuses a name that now points inside (DNS rebinding),
 * showing the error class in GET, and never connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEngines } from '../helpers';
import { fakeResolver, openSubscriptionBench, until, type SubscriptionBench } from './subscription-bench';

const engine = serverEngines.find((candidate) => candidate.name === 'pglite') ?? serverEngines[0]!;
const day = 86_400_000;

describe(`analytics subscription webhooks are SSRF-safe [${engine.name}]`, () => {
  let bench: SubscriptionBench;
  const dns = fakeResolver();

  beforeAll(async () => {
    dns.answers.set('hooks.example.com', ['93.184.215.14']);
    dns.answers.set('internal.example.com', ['10.1.2.3']);
    dns.answers.set('mixed.example.com', ['93.184.215.14', '192.168.1.1']);
    dns.answers.set('metadata.example.com', ['169.254.169.254']);
    dns.answers.set('loopback6.example.com', ['::1']);
    dns.answers.set('rebind.example.com', ['93.184.215.14']);
    bench = await openSubscriptionBench(engine, { loopback: false, resolve: dns.resolve, maxAttempts: 3 });
  });
  afterAll(() => bench?.close());

  const create = (url: string) => bench.create({ metric_ids: ['activations'], schedule: 'daily', url });

  it('refuses unsafe URLs and literals at creation', async () => {
    const refused = [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://10.0.0.1/x',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://localhost/x',
      'https://user:password@hooks.example.com/x',
      'https://hooks.example.com/x#fragment',
      'not a url',
    ];
    for (const url of refused) {
      const answer = await create(url);
      expect(answer.status, url).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/url is refused/) });
    }
  });

  it('refuses host names that resolve to any non-public address at creation', async () => {
    for (const host of ['internal.example.com', 'mixed.example.com', 'metadata.example.com', 'loopback6.example.com']) {
      const answer = await create(`https://${host}/hook`);
      expect(answer.status, host).toBe(400);
      expect(answer.body.error.message).toMatch(new RegExp(`${host.replaceAll('.', '\\.')} resolves to a non-public address`));
    }
    expect((await create('https://hooks.example.com/hook')).status).toBe(201);
    // A name that does not resolve yet is accepted: delivery resolves and checks again.
    expect((await create('https://not-yet.example.com/hook')).status).toBe(201);
  });

  it('resolves again at delivery and refuses a name that now points inside, then marks the period failed after its attempts', async () => {
    // Only this subscription may deliver: the others point at names this machine must not try to reach.
    for (const [otherId, item] of await bench.list()) if (item['active'] === true) await bench.create({ subscription_id: otherId, active: false });
    const created = await create('https://rebind.example.com/hook');
    expect(created.status).toBe(201);
    const id = created.body.subscription.subscription_id as string;
    dns.answers.set('rebind.example.com', ['10.0.0.7']);
    const createdAt = bench.clock.now();
    const lookupsBefore = dns.calls.filter((host) => host === 'rebind.example.com').length;
    bench.clock.set(createdAt + day + 20 * 60_000);
    await bench.rolledUpThrough(new Date(createdAt).toISOString().slice(0, 10));
    const status = await until(async () => {
      const delivery = (await bench.list()).get(id)?.['delivery'] as Record<string, unknown>;
      return delivery['failed_periods'] === 1 ? delivery : undefined;
    }, 'the period to fail after its attempts');
    // Three attempts (this bench's budget), each refused after resolution; the period is marked failed, visibly.
    expect(status).toMatchObject({ last_error_class: 'non_public_address', consecutive_failures: 3, last_http_status: null, last_success_at: null, pending_periods: 0, delivered_periods: 0 });
    expect(dns.calls.filter((host) => host === 'rebind.example.com').length).toBeGreaterThan(lookupsBefore);
  });
});
