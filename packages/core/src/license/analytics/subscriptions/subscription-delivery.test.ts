import { describe, expect, it } from 'vitest';
import { AdminError } from '../../../errors/admin';
import { NotificationTransportError, type NotificationRequest, type NotificationTransport } from '../../../webhooks/notification-transport';
import { ManualClock } from '../../../time/clock';
import { verifyNotification } from '../../../x402/notifications/signature';
import type { ClaimedDelivery } from './delivery-store';
import { createSubscriptionDeliverer, maxSubscriptionBodyBytes, type SubscriptionMetrics } from './subscription-delivery';
import { createSubscriptionSigningKey } from './subscription-secret';

const masterKey = new Uint8Array(32).fill(3);
const subscriptionId = 'c'.repeat(32);
const { key, sealed } = createSubscriptionSigningKey(masterKey, subscriptionId);
const clock = new ManualClock(Date.parse('2026-03-03T02:00:00Z'));

function claimed(overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    deliveryId: `adl_${subscriptionId}_20260302`, subscriptionId, vendorId: 'd'.repeat(32),
    periodStart: new Date('2026-03-02T00:00:00Z'), periodEnd: new Date('2026-03-03T00:00:00Z'), attempts: 1, body: null,
    schedule: 'daily', metricIds: ['activations'], granularity: 'day', groupBy: [], url: 'https://hooks.example.com/x',
    signingKeyId: key.keyId, sealedSecret: sealed, ...overrides,
  };
}

function recorder(answer: (request: NotificationRequest) => Promise<{ status: number }>) {
  const sent: { url: URL; request: NotificationRequest }[] = [];
  const transport: NotificationTransport = { post: async (url, request) => (sent.push({ url, request }), answer(request)) };
  return { sent, transport };
}

function deliverer(metrics: SubscriptionMetrics, transport: NotificationTransport) {
  const frozen: string[] = [];
  const instance = createSubscriptionDeliverer({ masterKey, metrics, transport, clock, freezeBody: async (_delivery, body) => (frozen.push(body), body) });
  return { frozen, attempt: instance.attempt };
}

const metrics = (answer: unknown, ready = true): SubscriptionMetrics => ({ check: () => undefined, series: async () => answer, ready: async () => ready });

describe('subscription deliverer', () => {
  it('signs the frozen body with the subscription key and the delivery id as Idempotency-Key', async () => {
    const { sent, transport } = recorder(async () => ({ status: 204 }));
    const { frozen, attempt } = deliverer(metrics({ series: [] }), transport);
    expect(await attempt(claimed())).toEqual({ kind: 'delivered', httpStatus: 204 });
    const request = sent[0]!.request;
    expect(request.body).toBe(frozen[0]);
    expect(request.headers['idempotency-key']).toBe(`adl_${subscriptionId}_20260302`);
    expect(verifyNotification({ body: request.body, headers: request.headers, keys: { [key.keyId]: key.secret }, now: Math.floor(clock.now() / 1000) }).keyId).toBe(key.keyId);
    expect(JSON.parse(request.body)).toMatchObject({ metrics: { series: [] }, period: { from: '2026-03-02', to: '2026-03-02' } });
    // A body frozen by an earlier attempt is sent as is, without recomputing.
    const again = deliverer({ check: () => undefined, series: async () => { throw new Error('not called'); } }, transport);
    expect(await again.attempt(claimed({ body: 'frozen' }))).toEqual({ kind: 'delivered', httpStatus: 204 });
    expect(sent[1]!.request.body).toBe('frozen');
  });

  it('waits for the rollup, classifies failures, and gives up only on what retrying cannot fix', async () => {
    const ok = recorder(async () => ({ status: 200 }));
    expect(await deliverer(metrics({}, false), ok.transport).attempt(claimed())).toEqual({ kind: 'not_ready' });
    expect(ok.sent).toHaveLength(0);
    const refusing: SubscriptionMetrics = { check: () => undefined, series: async () => { throw new AdminError('invalid_request', 'too many series'); } };
    expect(await deliverer(refusing, ok.transport).attempt(claimed())).toMatchObject({ kind: 'failed', errorClass: 'metrics_refused', final: true });
    const broken: SubscriptionMetrics = { check: () => undefined, series: async () => { throw new Error('db down'); } };
    expect(await deliverer(broken, ok.transport).attempt(claimed())).toMatchObject({ kind: 'failed', errorClass: 'metrics_unavailable', final: false });
    expect(await deliverer(metrics('x'.repeat(maxSubscriptionBodyBytes)), ok.transport).attempt(claimed())).toMatchObject({ kind: 'failed', errorClass: 'payload_too_large', final: true });
    expect(await deliverer(metrics({}), ok.transport).attempt(claimed({ url: 'https://10.0.0.1/x' }))).toMatchObject({ kind: 'failed', errorClass: 'unsafe_url', final: false });
    expect(await deliverer(metrics({}), ok.transport).attempt(claimed({ signingKeyId: 'sk_0000000000000000' }))).toMatchObject({ kind: 'failed', errorClass: 'signing_key_unavailable' });
    const rebound = recorder(async () => { throw new NotificationTransportError('non_public_address', 'hooks.example.com resolves to a non-public address'); });
    expect(await deliverer(metrics({}), rebound.transport).attempt(claimed())).toMatchObject({ kind: 'failed', errorClass: 'non_public_address', httpStatus: null, final: false });
    const down = recorder(async () => ({ status: 503 }));
    expect(await deliverer(metrics({}), down.transport).attempt(claimed())).toMatchObject({ kind: 'failed', errorClass: 'http_status', httpStatus: 503, final: false });
    expect(ok.sent).toHaveLength(0);
  });
});
