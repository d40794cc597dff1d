import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, verifyNotification, type SqlClient } from '@tollgate/core';
import { randomId } from '@tollgate/core/crypto';
import {
  createSqlSuspicionLedger,
  createSqlVendorStore,
  createSuspicionAlertDeliverer,
  suspicionAlertKey,
  suspicionAlertQueue,
  type SuspicionAlert,
} from '@tollgate/core/license';
import { createSqlJobQueue } from '@tollgate/core/storage';
import { createNodeNotificationTransport } from '@tollgate/core/node';
import { describeConformance, raceCase, testDatabaseEngines } from '@tollgate/core/testing';
import { seedTime, seedVendor } from '../admin/license-admin-fixtures';
import { openLicenseTestDatabase } from '../license-test-database';

const signingRoot = new Uint8Array(32).fill(7);
const licenseA = 'a'.repeat(32);
const licenseB = 'b'.repeat(32);

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let receiver: Server;
let receiverUrl = '';
const received: Received[] = [];
let answerStatus = 204;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answerStatus).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts?token=receiver-secret`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

async function productWithWebhook(sql: SqlClient, threshold: number | null): Promise<{ productId: string }> {
  const { vendorId, productId } = await seedVendor(sql);
  if (threshold !== null) await createSqlVendorStore(sql).setAlertWebhook(vendorId, productId, { url: receiverUrl, threshold }, seedTime);
  return { productId };
}

async function queuedAlerts(sql: SqlClient): Promise<SuspicionAlert[]> {
  const { rows } = await sql.query<{ payload: SuspicionAlert }>(`SELECT payload FROM tollgate_jobs WHERE queue = $1 ORDER BY id`, [suspicionAlertQueue]);
  return rows.map((row) => row.payload);
}

for (const engine of await testDatabaseEngines()) {
  describeConformance('Suspicion alerts', { name: engine.name, open: () => openLicenseTestDatabase(engine) }, (fixture) => {
    it('scores a product over the window and alerts once when the threshold is crossed', async () => {
      const { sql } = fixture();
      const clock = new ManualClock(seedTime.getTime());
      const ledger = createSqlSuspicionLedger(sql, { clock });
      const { productId } = await productWithWebhook(sql, 30);

      expect(await ledger.record({ productId, licenseId: licenseA, kind: 'proof_failure' })).toEqual({ score: 10 });
      expect(await ledger.record({ productId, licenseId: licenseA, kind: 'proof_failure' })).toEqual({ score: 20 });
      const crossing = await ledger.record({ productId, licenseId: licenseB, kind: 'clock_rollback' });
      expect(crossing.score).toBe(35);
      expect(crossing.alert).toMatchObject({ alertId: `${productId}-1`, productId, score: 35, threshold: 30, windowSeconds: 3600, signals: { proof_failure: 2, clock_rollback: 1 } });
      expect(crossing.alert?.licenses).toEqual([
        { licenseId: licenseA, score: 20 },
        { licenseId: licenseB, score: 15 },
      ]);
      // Inside the cool-down: the score grows, no second alert.
      expect((await ledger.record({ productId, kind: 'nonce_replay' })).alert).toBeUndefined();
      expect(await queuedAlerts(sql)).toHaveLength(1);

      // An hour later the old signals have left the window; the product must cross again.
      clock.advance(3_600_001);
      expect(await ledger.record({ productId, kind: 'offline_burst' })).toEqual({ score: 10 });
      clock.advance(1);
      for (let n = 0; n < 2; n += 1) await ledger.record({ productId, licenseId: licenseA, kind: 'fingerprint_churn' });
      expect((await queuedAlerts(sql)).map((alert) => alert.alertId)).toEqual([`${productId}-1`, `${productId}-2`]);
    });

    it('stores signals but raises nothing without a webhook, and ignores unknown products', async () => {
      const { sql } = fixture();
      const ledger = createSqlSuspicionLedger(sql, { clock: new ManualClock(seedTime.getTime()) });
      const { productId } = await productWithWebhook(sql, null);
      for (let n = 0; n < 12; n += 1) await ledger.record({ productId, kind: 'proof_failure' });
      expect((await ledger.record({ productId, kind: 'proof_failure' })).score).toBe(100);
      expect(await queuedAlerts(sql)).toEqual([]);
      expect(await ledger.record({ productId: randomId(), kind: 'proof_failure' })).toEqual({ score: 0 });
      const { rows } = await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_suspicion_signals');
      expect(Number(rows[0]?.n)).toBe(13);
      await expect(ledger.record({ productId, kind: 'made_up' as never })).rejects.toThrow(TypeError);
      await expect(ledger.record({ productId, licenseId: 'not-hex', kind: 'proof_failure' })).rejects.toThrow(TypeError);
    });

    it('purges signals past the retention', async () => {
      const { sql } = fixture();
      const clock = new ManualClock(seedTime.getTime());
      const ledger = createSqlSuspicionLedger(sql, { clock });
      const { productId } = await productWithWebhook(sql, null);
      await ledger.record({ productId, kind: 'proof_failure' });
      clock.advance(7 * 86_400_000 + 1);
      await ledger.record({ productId, kind: 'proof_failure' });
      expect(await ledger.purge()).toBe(1);
      expect(await ledger.purge()).toBe(0);
    });

    raceCase('raises exactly one alert when concurrent signals cross together', fixture, async () => {
      const { sql } = fixture();
      const ledger = createSqlSuspicionLedger(sql, { clock: new ManualClock(seedTime.getTime()) });
      const { productId } = await productWithWebhook(sql, 10);
      const results = await Promise.all(Array.from({ length: 12 }, () => ledger.record({ productId, kind: 'proof_failure' })));
      expect(results.filter((result) => result.alert !== undefined)).toHaveLength(1);
      expect(await queuedAlerts(sql)).toHaveLength(1);
    });

    it('delivers a queued alert signed with the product key, and classifies refusals', async () => {
      const { sql } = fixture();
      const clock = new ManualClock(seedTime.getTime());
      const { productId } = await productWithWebhook(sql, 10);
      await createSqlSuspicionLedger(sql, { clock }).record({ productId, licenseId: licenseA, kind: 'proof_failure' });
      const job = await createSqlJobQueue(sql, { clock }).claim<SuspicionAlert>(suspicionAlertQueue, { leaseMs: 60_000 });
      const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
      const deliverer = createSuspicionAlertDeliverer({ sql, signingRoot, clock, transport, insecureAllowLoopbackForTests: true });

      received.length = 0;
      answerStatus = 204;
      expect(await deliverer.deliver(job?.payload)).toMatchObject({ kind: 'delivered', host: '127.0.0.1', status: 204 });
      const delivery = received[0] as Received;
      const key = suspicionAlertKey(signingRoot, productId);
      expect(verifyNotification({ body: delivery.body, headers: delivery.headers, keys: { [key.keyId]: key.secret }, now: Math.floor(clock.now() / 1000) })).toEqual({
        keyId: key.keyId,
        timestamp: Math.floor(clock.now() / 1000),
      });
      expect(delivery.headers['idempotency-key']).toBe(`${productId}-1`);
      expect(delivery.headers['tollgate-event']).toBe('license.suspicion_alert');
      expect(JSON.parse(delivery.body)).toEqual({
        type: 'license.suspicion_alert',
        id: `${productId}-1`,
        product_id: productId,
        score: 10,
        threshold: 10,
        window_seconds: 3600,
        signals: { proof_failure: 1 },
        licenses: [{ license_id: licenseA, score: 10 }],
        raised_at: Math.floor(seedTime.getTime() / 1000),
      });
      // Another product's key does not verify it.
      const other = suspicionAlertKey(signingRoot, randomId());
      expect(() => verifyNotification({ body: delivery.body, headers: delivery.headers, keys: { [other.keyId]: other.secret }, now: Math.floor(clock.now() / 1000) })).toThrow();

      answerStatus = 503;
      expect(await deliverer.deliver(job?.payload)).toMatchObject({ kind: 'retry', reason: 'http_status', status: 503 });
      answerStatus = 410;
      expect(await deliverer.deliver(job?.payload)).toMatchObject({ kind: 'abandoned', reason: 'gone' });
      expect(await deliverer.deliver({ alertId: 'x' })).toMatchObject({ kind: 'abandoned', reason: 'malformed_job' });
      // Without the test policy a loopback receiver is refused before any connection.
      const strict = createSuspicionAlertDeliverer({ sql, signingRoot, clock, transport: createNodeNotificationTransport() });
      received.length = 0;
      expect(await strict.deliver(job?.payload)).toMatchObject({ kind: 'abandoned', reason: 'unsafe_url' });
      expect(received).toHaveLength(0);
    });
  });
}
