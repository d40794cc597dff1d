/**
 * Suspicion alerts end to end over real HTTP: forged device proofs and replayed nonces raise signals,
 * the product's score crosses its webhook threshold, and the alert worker delivers one signed alert to a
 * loopback receiver, retrying after a 503 with the same body and Idempotency-Key. The Admin API shows
 * the product's alert signing key, which verifies the delivery.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyNotification } from '@tollgate/core';
import { freshKey } from './admin/admin-harness';
import { issueClientLicense, newDevice, openClientBench, validateBody, postCbor, expectClientError, type ClientBench } from './client/client-harness';
import { serverEngines } from './helpers';
import { startReceiver, type Receiver } from './subscriptions/subscription-bench';

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const engine = serverEngines.find((candidate) => candidate.name === 'pglite') ?? serverEngines[0]!;

describe(`suspicion alerts through the license server [${engine.name}]`, () => {
  let bench: ClientBench;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver([503]);
    bench = await openClientBench(engine, {}, { alerts: { insecureAllowLoopbackForTests: true, pollIntervalMs: 50, backoff: { baseMs: 10, maxMs: 20 }, random: () => 0 } });
  });
  afterAll(async () => {
    await bench?.close();
    await receiver?.stop();
  });

  const signalCount = async () => Number((await bench.admin.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_suspicion_signals WHERE product_id = $1', [bench.productId])).rows[0]?.n);
  const alertJobs = async () =>
    (await bench.admin.sql.query<{ state: string; attempts: number }>("SELECT status AS state, attempts FROM tollgate_jobs WHERE queue = 'license.suspicion-alerts' ORDER BY created_at")).rows;

  it('shows the product alert signing key, stable across reads and distinct per product', async () => {
    const first = await bench.admin.call('GET', `/products/${bench.productId}/alert-webhook`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ signing_key_id: expect.stringMatching(/^ak_[0-9a-f]{16}$/), signing_secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const patched = await bench.admin.call('PATCH', `/products/${bench.productId}/alert-webhook`, { body: { url: 'https://hooks.example.com/tollgate', threshold: 20 }, key: freshKey() });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ signing_key_id: first.body['signing_key_id'], signing_secret: first.body['signing_secret'], alert_webhook: { threshold: 20 } });
    const other = await bench.admin.call('GET', `/products/${bench.admin.vendorB.productId}/alert-webhook`, { token: bench.admin.vendorB.token });
    expect(other.body['signing_key_id']).not.toBe(first.body['signing_key_id']);
  });

  it('delivers one signed alert when forged proofs and a replayed nonce cross the threshold, retrying after a 503', async () => {
    // The Admin API accepts only public https URLs; the test points the product at its loopback receiver directly.
    const pointed = await bench.admin.sql.query('UPDATE license_products SET alert_webhook_url = $2, alert_threshold = 20 WHERE product_id = $1', [bench.productId, receiver.url]);
    expect(pointed.rowCount).toBe(1);
    const { body: keyView } = await bench.admin.call('GET', `/products/${bench.productId}/alert-webhook`);
    const license = await issueClientLicense(bench);
    const device = newDevice();
    const seat = await bench.seat(device, { licenseKey: license.key });

    // A forged proof (signed by another key) is one proof_failure signal: 10 points.
    expectClientError(await bench.validate(device, seat, { signer: newDevice().signer }), 1000, 401);
    await until(async () => ((await signalCount()) === 1 ? true : undefined), 'the first signal');
    expect(receiver.deliveries).toHaveLength(0);
    // A replayed nonce (the second use of a spent one) is a nonce_replay signal: 10 more, score 20.
    const replayed = await validateBody(device, seat, bench.productId);
    expect((await postCbor(bench.url, '/v1/validate', replayed)).status).toBe(200);
    expectClientError(await postCbor(bench.url, '/v1/validate', replayed), 1000, 401);

    const [refused, delivered] = await until(() => (receiver.deliveries.length >= 2 ? receiver.deliveries : undefined), 'two delivery attempts');
    expect(refused!.body).toBe(delivered!.body);
    expect(refused!.headers['idempotency-key']).toBe(delivered!.headers['idempotency-key']);
    const keyId = keyView['signing_key_id'] as string;
    const { keyId: signedWith } = verifyNotification({ body: delivered!.body, headers: delivered!.headers, keys: { [keyId]: keyView['signing_secret'] as string }, now: Math.floor(Date.now() / 1000) });
    expect(signedWith).toBe(keyId);
    expect(delivered!.headers['tollgate-event']).toBe('license.suspicion_alert');
    const alert = JSON.parse(delivered!.body) as Record<string, unknown>;
    expect(alert).toMatchObject({
      type: 'license.suspicion_alert',
      id: delivered!.headers['idempotency-key'],
      product_id: bench.productId,
      score: 20,
      threshold: 20,
      signals: { proof_failure: 1, nonce_replay: 1 },
      licenses: [{ license_id: license.licenseId, score: 10 }],
    });
    await until(async () => ((await alertJobs())[0]?.state === 'completed' ? true : undefined), 'the alert job to complete');
    expect(await alertJobs()).toEqual([{ state: 'completed', attempts: 2 }]);

    // Within the cool-down more signals raise no second alert.
    expectClientError(await bench.validate(device, seat, { signer: newDevice().signer }), 1000, 401);
    await until(async () => ((await signalCount()) === 3 ? true : undefined), 'the third signal');
    expect(await alertJobs()).toHaveLength(1);
  });

  it('counts an activation refused for lack of seats as fingerprint churn on that license', async () => {
    const before = await signalCount();
    const license = await issueClientLicense(bench, { seats: 1 });
    await bench.seat(newDevice(), { licenseKey: license.key });
    expectClientError(await bench.activate(newDevice(), { licenseKey: license.key }), 1001, 409);
    await until(async () => ((await signalCount()) === before + 1 ? true : undefined), 'the churn signal');
    const kinds = await bench.admin.sql.query<{ kind: string; license_id: string | null }>('SELECT kind, license_id FROM license_suspicion_signals WHERE product_id = $1 ORDER BY at DESC LIMIT 1', [bench.productId]);
    expect(kinds.rows[0]).toEqual({ kind: 'fingerprint_churn', license_id: license.licenseId });
  });

  it('counts a validation from a device whose clock is more than a day behind as a clock rollback, and answers it as usual', async () => {
    const license = await issueClientLicense(bench);
    const device = newDevice();
    const seat = await bench.seat(device, { licenseKey: license.key });
    const now = Math.floor(Date.now() / 1000);
    // Half a day behind: a sloppy clock, no signal.
    const before = await signalCount();
    expect((await bench.validate(device, seat, { clientTime: now - 43_200 })).status).toBe(200);
    // Two days behind: still a ticket, and a signal.
    expect((await bench.validate(device, seat, { clientTime: now - 2 * 86_400 })).status).toBe(200);
    await until(async () => ((await signalCount()) === before + 1 ? true : undefined), 'the clock-rollback signal');
    const kinds = await bench.admin.sql.query<{ kind: string; license_id: string | null }>('SELECT kind, license_id FROM license_suspicion_signals WHERE product_id = $1 ORDER BY at DESC LIMIT 1', [bench.productId]);
    expect(kinds.rows[0]).toEqual({ kind: 'clock_rollback', license_id: license.licenseId });
  });
});
