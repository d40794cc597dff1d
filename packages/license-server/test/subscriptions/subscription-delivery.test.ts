/**
 * Delivery of metric subscriptions end to end: due periods are posted to a loopback receiver, signed
 * (checked with the documented recipe and with `verifyNotification`), carrying exactly what
 * `GET /analytics/metrics` answers; a receiver that is down, then up, gets every period once with its
 * status visible in GET; a crash mid-delivery (a claim never finished) loses nothing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyNotification } from '@tollgate/core';
import { serverEngines } from '../helpers';
import { openSubscriptionBench, startReceiver, until, type Receiver, type SubscriptionBench } from './subscription-bench';

/**
 * The verification recipe of the README ("Analytics subscriptions: verifying a delivery"), verbatim
 * except that `now` is a parameter (the server runs on a manual clock here).
 */
function verifyTollgateWebhook(rawBody: string, headers: IncomingHttpHeaders, keyId: string, secret: string, now = Date.now() / 1000, toleranceSeconds = 300): boolean {
  const items = new Map(String(headers['tollgate-signature'] ?? '').split(',').map((item) => [item.slice(0, item.indexOf('=')).trim(), item.slice(item.indexOf('=') + 1).trim()] as const));
  const t = Number(items.get('t'));
  if (!Number.isInteger(t) || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(items.get(keyId) ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const day = 86_400_000;

for (const engine of serverEngines) {
  describe(`analytics subscription delivery [${engine.name}]`, () => {
    let bench: SubscriptionBench;
    const receivers: Receiver[] = [];

    beforeAll(async () => {
      // A generous attempt budget: the receiver-down test must not exhaust it before the receiver is back.
      bench = await openSubscriptionBench(engine, { maxAttempts: 100_000 });
    });
    afterAll(async () => {
      await bench?.close();
      await Promise.all(receivers.map((receiver) => receiver.stop()));
    });

    const receiver = async (statuses: number[] = []) => {
      const started = await startReceiver(statuses);
      receivers.push(started);
      return started;
    };
    const statusOf = async (id: string) => (await bench.list()).get(id)?.['delivery'] as Record<string, unknown>;
    const countsById = (deliveries: { headers: IncomingHttpHeaders }[]) => {
      const counts = new Map<string, number>();
      for (const delivery of deliveries) counts.set(String(delivery.headers['idempotency-key']), (counts.get(String(delivery.headers['idempotency-key'])) ?? 0) + 1);
      return counts;
    };

    it('delivers a due period once its day is rolled up, signed, with what GET /analytics/metrics answers', async () => {
      const hook = await receiver();
      const created = await bench.create({ metric_ids: ['activations', 'check_ins'], schedule: 'daily', url: hook.url });
      expect(created.status).toBe(201);
      const { subscription_id: id, signing_key_id: keyId } = created.body.subscription as { subscription_id: string; signing_key_id: string };
      const secret = created.body.signing_secret as string;

      // 03-02 ends at midnight and is due at 01:00; the rollup of 03-02 has not run yet, so it waits.
      bench.clock.set(Date.parse('2026-03-03T01:30:00Z'));
      await until(async () => ((await statusOf(id))['pending_periods'] === 1 ? true : undefined), 'the period to be scheduled');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.deliveries).toHaveLength(0);
      await bench.rolledUpThrough('2026-03-02');
      // A period found not ready is looked at again 15 minutes later.
      bench.clock.advance(15 * 60_000);
      const [delivery] = await until(() => (hook.deliveries.length > 0 ? hook.deliveries : undefined), 'the delivery');

      const now = bench.clock.now() / 1000;
      expect(verifyTollgateWebhook(delivery!.body, delivery!.headers, keyId, secret, now)).toBe(true);
      expect(verifyTollgateWebhook(delivery!.body, delivery!.headers, keyId, 'f'.repeat(64), now)).toBe(false);
      expect(verifyTollgateWebhook(`${delivery!.body} `, delivery!.headers, keyId, secret, now)).toBe(false);
      expect(verifyTollgateWebhook(delivery!.body, delivery!.headers, keyId, secret, now + 301)).toBe(false);
      expect(verifyNotification({ body: delivery!.body, headers: delivery!.headers, keys: { [keyId]: secret }, now: Math.floor(now) }).keyId).toBe(keyId);

      const payload = JSON.parse(delivery!.body) as Record<string, unknown>;
      const deliveryId = `adl_${id}_20260302`;
      expect(delivery!.headers).toMatchObject({ 'idempotency-key': deliveryId, 'tollgate-delivery': deliveryId, 'tollgate-event': 'license.analytics_metrics', 'content-type': 'application/json' });
      expect(payload).toMatchObject({
        type: 'license.analytics_metrics',
        id: deliveryId,
        subscription_id: id,
        schedule: 'daily',
        period: { start: '2026-03-02T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z', from: '2026-03-02', to: '2026-03-02' },
        query: { ids: ['activations', 'check_ins'], granularity: 'day', group_by: [] },
      });
      const metrics = await bench.admin.call('GET', '/analytics/metrics', { query: { ids: 'activations,check_ins', from: '2026-03-02', to: '2026-03-02', granularity: 'day' } });
      expect(metrics.status).toBe(200);
      const { ok, ...answer } = metrics.body as Record<string, unknown>;
      expect(ok).toBe(true);
      expect(payload['metrics']).toEqual(answer);

      const status = await until(async () => {
        const current = await statusOf(id);
        return current['delivered_periods'] === 1 ? current : undefined;
      }, 'the delivered status');
      expect(status).toMatchObject({
        last_success_at: '2026-03-03T01:45:00.000Z',
        last_attempt_at: '2026-03-03T01:45:00.000Z',
        consecutive_failures: 0,
        last_error_class: null,
        last_http_status: 200,
        pending_periods: 0,
        failed_periods: 0,
        next_period_start: '2026-03-03T00:00:00.000Z',
        next_attempt_at: '2026-03-04T01:00:00.000Z',
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.deliveries).toHaveLength(1);
    });

    it('retries while the receiver is down and delivers every period once when it is back, with the status in GET', async () => {
      const hook = await receiver();
      await hook.stop();
      const created = await bench.create({ metric_ids: ['active_devices'], schedule: 'daily', url: hook.url });
      const id = created.body.subscription.subscription_id as string;
      const createdAt = bench.clock.now();
      bench.clock.set(createdAt + 2 * day);
      await bench.rolledUpThrough(new Date(createdAt + day).toISOString().slice(0, 10));

      const failing = await until(async () => {
        const current = await statusOf(id);
        return (current['consecutive_failures'] as number) >= 3 ? current : undefined;
      }, 'failed attempts');
      expect(failing).toMatchObject({ last_error_class: 'connection_failed', last_success_at: null, pending_periods: 2, delivered_periods: 0, last_http_status: null });
      expect(failing['next_attempt_at']).toEqual(expect.any(String));

      await hook.restart();
      const recovered = await until(async () => {
        const current = await statusOf(id);
        return current['delivered_periods'] === 2 ? current : undefined;
      }, 'both periods delivered');
      expect(recovered).toMatchObject({ consecutive_failures: 0, last_error_class: null, pending_periods: 0, failed_periods: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const days = [createdAt, createdAt + day].map((ms) => `adl_${id}_${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`);
      expect(countsById(hook.deliveries)).toEqual(new Map(days.map((deliveryId) => [deliveryId, 1])));
    });

    it('sends the same bytes and Idempotency-Key on every attempt after refusals', async () => {
      const hook = await receiver([503, 500]);
      const created = await bench.create({ metric_ids: ['activations'], schedule: 'daily', url: hook.url });
      const id = created.body.subscription.subscription_id as string;
      const createdAt = bench.clock.now();
      bench.clock.set(createdAt + day);
      await bench.rolledUpThrough(new Date(createdAt).toISOString().slice(0, 10));
      const [first, second, third] = await until(() => (hook.deliveries.length >= 3 ? hook.deliveries : undefined), 'three attempts');
      expect(second!.body).toBe(first!.body);
      expect(third!.body).toBe(first!.body);
      expect(new Set([first, second, third].map((attempt) => attempt!.headers['idempotency-key']))).toEqual(new Set([`adl_${id}_${new Date(createdAt).toISOString().slice(0, 10).replaceAll('-', '')}`]));
      const status = await until(async () => ((await statusOf(id))['delivered_periods'] === 1 ? statusOf(id) : undefined), 'delivered');
      expect(status).toMatchObject({ last_http_status: 200, consecutive_failures: 0 });
      const rows = await bench.sql.query<{ attempts: number; status: string }>('SELECT attempts, status FROM license_analytics_deliveries WHERE subscription_id = $1', [id]);
      expect(rows.rows).toEqual([{ attempts: 3, status: 'delivered' }]);
    });

    it('loses nothing when an instance dies holding a claim: the period goes out once the lease ends', async () => {
      const hook = await receiver();
      const created = await bench.create({ metric_ids: ['check_ins'], schedule: 'daily', url: hook.url });
      const id = created.body.subscription.subscription_id as string;
      const createdAt = bench.clock.now();
      // Due but not ready: the period is scheduled and waits (no attempt counted).
      bench.clock.set(createdAt + day);
      // Wait until the server looked at it and put it back for 15 minutes, so no claim of its own is in flight.
      await until(async () => {
        const { rows } = await bench.sql.query<{ attempts: number; next_attempt_at: Date }>('SELECT attempts, next_attempt_at FROM license_analytics_deliveries WHERE subscription_id = $1', [id]);
        return rows[0]?.attempts === 0 && rows[0].next_attempt_at.getTime() > bench.clock.now() ? true : undefined;
      }, 'the period to be deferred');
      // A dead instance's claim: one attempt counted, a lease of two minutes, nothing recorded after it.
      const now = new Date(bench.clock.now());
      await bench.sql.query("UPDATE license_analytics_deliveries SET attempts = attempts + 1, next_attempt_at = $2 WHERE subscription_id = $1 AND status = 'pending' AND attempts = 0", [id, new Date(now.getTime() + 120_000)]);
      await bench.rolledUpThrough(new Date(createdAt).toISOString().slice(0, 10));
      bench.clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.deliveries).toHaveLength(0);
      bench.clock.advance(61_000);
      await until(() => (hook.deliveries.length > 0 ? true : undefined), 'the delivery after the lease');
      await until(async () => ((await statusOf(id))['delivered_periods'] === 1 ? true : undefined), 'delivered');
      const rows = await bench.sql.query<{ attempts: number }>('SELECT attempts FROM license_analytics_deliveries WHERE subscription_id = $1', [id]);
      expect(rows.rows).toEqual([{ attempts: 2 }]);
      expect(hook.deliveries).toHaveLength(1);
    });

    it('cancels pending periods when a subscription is disabled', async () => {
      const hook = await receiver();
      await hook.stop();
      const created = await bench.create({ metric_ids: ['check_ins'], schedule: 'daily', url: hook.url });
      const id = created.body.subscription.subscription_id as string;
      const createdAt = bench.clock.now();
      bench.clock.set(createdAt + day);
      await bench.rolledUpThrough(new Date(createdAt).toISOString().slice(0, 10));
      await until(async () => ((await statusOf(id))['consecutive_failures'] as number) >= 1 ? true : undefined, 'a failed attempt');
      const disabled = await bench.create({ subscription_id: id, active: false });
      expect(disabled.body.subscription.delivery).toMatchObject({ pending_periods: 0, next_attempt_at: null });
      const rows = await bench.sql.query<{ status: string }>('SELECT status FROM license_analytics_deliveries WHERE subscription_id = $1', [id]);
      expect(rows.rows).toEqual([{ status: 'cancelled' }]);
    });

    it('removes a disabled subscription and its history 30 days after it was disabled', async () => {
      const created = await bench.create({ metric_ids: ['check_ins'], schedule: 'monthly', url: (await receiver()).url });
      const id = created.body.subscription.subscription_id as string;
      await bench.create({ subscription_id: id, active: false });
      bench.clock.advance(29 * day);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await bench.list()).has(id)).toBe(true);
      bench.clock.advance(2 * day);
      await until(async () => ((await bench.list()).has(id) ? undefined : true), 'the purge');
    });
  });
}
