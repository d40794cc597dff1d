/**
 * Two license server instances on one PostgreSQL database deliver every period of every subscription
 * exactly once between them, retries included (scheduling takes subscription rows FOR UPDATE SKIP LOCKED,
 * deliveries are claimed with SKIP LOCKED and a lease). PGlite has one connection, so this runs on the
 * server only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEngines } from '../helpers';
import { openSubscriptionBench, startReceiver, until, type Receiver, type SubscriptionBench } from './subscription-bench';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');
const day = 86_400_000;

describe.skipIf(postgres === undefined)('analytics subscriptions on two instances [postgres]', () => {
  let bench: SubscriptionBench;
  let receiver: Receiver;

  beforeAll(async () => {
    // The first ten requests are refused, so retries race between the instances too.
    receiver = await startReceiver(Array.from({ length: 10 }, () => 503));
    bench = await openSubscriptionBench(postgres!, { maxAttempts: 100_000 });
    await bench.startAnotherInstance();
  });
  afterAll(async () => {
    await bench?.close();
    await receiver?.stop();
  });

  it('deliver each period once', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 6; n += 1) {
      const created = await bench.create({ metric_ids: ['activations'], schedule: n % 2 === 0 ? 'daily' : 'weekly', url: receiver.url });
      expect(created.status).toBe(201);
      ids.push(created.body.subscription.subscription_id as string);
    }
    const start = bench.clock.now();
    bench.clock.set(start + 15 * day);
    await bench.rolledUpThrough(new Date(start + 14 * day).toISOString().slice(0, 10));
    // Daily: 03-02 … 03-16 (15 periods); weekly: the weeks of 03-02 and 03-09 (2 periods).
    const expected = ids.reduce((sum, _, n) => sum + (n % 2 === 0 ? 15 : 2), 0);
    const statuses = await until(async () => {
      const list = await bench.list();
      const current = ids.map((id) => list.get(id)!['delivery'] as Record<string, number>);
      return current.every((status) => status['pending_periods'] === 0) && current.reduce((sum, status) => sum + status['delivered_periods']!, 0) === expected ? current : undefined;
    }, 'every period delivered', 60_000);
    expect(statuses.every((status) => status['failed_periods'] === 0)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const accepted = receiver.deliveries.slice(10);
    const counts = new Map<string, number>();
    for (const delivery of accepted) counts.set(String(delivery.headers['idempotency-key']), (counts.get(String(delivery.headers['idempotency-key'])) ?? 0) + 1);
    expect(counts.size).toBe(expected);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    const rows = await bench.sql.query<{ n: string }>("SELECT count(*)::text AS n FROM license_analytics_deliveries WHERE status = 'delivered'");
    expect(Number(rows.rows[0]!.n)).toBe(expected);
  });
});
