import { expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import {
  ManualClock,
  NotificationTransportError,
  coreMigrations,
  createNotificationDeliverer,
  createSqlGatewayStores,
  deriveGatewayKeys,
  gatewayMigrations,
  unixSeconds,
  verifyNotification,
  type GatewayStores,
  type NotificationJob,
  type NotificationRequest,
  type NotificationTransport,
} from '@tollgate/core';
import type { MerchantStore, NotificationTransportFailure } from '@tollgate/core/gateway';
import {
  buildPaymentReceipt,
  buildPaymentSettledNotification,
  orderNotificationId,
  serializeNotification,
  signReceipt,
  type PaymentSettledNotification,
} from '@tollgate/core/x402';
import { deriveNotifyHmacKey } from '@tollgate/core/gateway';
import { challengeFor, describeConformance, enrollMerchant, enrollRequest, openTestDatabase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';

const keys = deriveGatewayKeys(crypto.getRandomValues(new Uint8Array(32)));
const gatewaySigner = privateKeyToAccount(generatePrivateKey());

async function settledNotification(id: string, payTo: string): Promise<PaymentSettledNotification> {
  const receipt = buildPaymentReceipt({
    refId: 'ref_1',
    paymentId: 'pay_0123456789abcdef',
    gatewayOrigin: 'https://pay.example.com',
    resourceUrl: `https://pay.example.com/receive/${payTo}?ref=ref_1`,
    network: { caip2: 'eip155:8453', chainId: 8453, usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 } },
    payTo,
    payer: privateKeyToAccount(generatePrivateKey()).address,
    amount: '10000',
    authorizationNonce: `0x${'01'.repeat(32)}`,
    txHash: `0x${'02'.repeat(32)}`,
    issuedAt: 1_772_366_400,
  });
  return buildPaymentSettledNotification({ id, createdAt: 1_772_366_400, receipt, signedReceipt: await signReceipt(receipt, gatewaySigner) });
}

type Answer = number | Error;

/** A transport that records each request and answers from a script (the Node transport has its own tests). */
function scriptedTransport(...answers: Answer[]) {
  const calls: { url: URL; request: NotificationRequest }[] = [];
  const transport: NotificationTransport = {
    async post(url, request) {
      calls.push({ url, request });
      const answer = answers.length > 1 ? answers.shift() : answers[0];
      if (answer instanceof Error) throw answer;
      return { status: answer ?? 200 };
    },
  };
  return { transport, calls };
}

interface Fixture extends TestDatabase {
  stores: GatewayStores;
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'Notification deliverer',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => {
        const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
        return { ...database, stores: createSqlGatewayStores(database.sql) };
      },
    },
    (fixture) => {
      const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));

      async function jobFor(url: string | null, overrides: Partial<NotificationJob> = {}) {
        const merchant = await enrollMerchant(fixture().stores.merchants);
        const job: NotificationJob = { merchantId: merchant.merchantId, refId: 'ref_1', url, notification: await settledNotification('ntf_1', merchant.payTo), ...overrides };
        return { merchant, job, notifyKey: deriveNotifyHmacKey(keys.notifyRoot, merchant.merchantId, merchant.notifyKeyId) };
      }

      it('signs the exact body with the merchant notify key and reports the delivery', async () => {
        const { job, merchant, notifyKey } = await jobFor('https://hooks.example.com/tollgate?token=s3cret');
        const { transport, calls } = scriptedTransport(204);
        const deliverer = createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport, timeoutMs: 4_321 });
        const signal = new AbortController().signal;
        expect(await deliverer.deliver(job, { signal })).toEqual({ kind: 'delivered', host: 'hooks.example.com', status: 204, keyIds: [merchant.notifyKeyId] });
        expect(calls).toHaveLength(1);
        const [{ url, request }] = calls as [(typeof calls)[number]];
        expect(url.href).toBe('https://hooks.example.com/tollgate?token=s3cret');
        expect(request).toMatchObject({ body: serializeNotification(job.notification), timeoutMs: 4_321, signal });
        expect(request.headers['idempotency-key']).toBe('ntf_1');
        expect(verifyNotification({ body: request.body, headers: request.headers, keys: { [merchant.notifyKeyId]: notifyKey }, now: unixSeconds(clock) })).toEqual({
          keyId: merchant.notifyKeyId,
          timestamp: unixSeconds(clock),
        });
      });

      it.each(['order.paid', 'order.refunded', 'refund.rejected'] as const)('delivers an order-mode %s notification, named in its event header', async (event) => {
        const { job } = await jobFor('https://hooks.example.com/orders');
        const notification = { event, id: orderNotificationId(event, 'ord_0123456789abcdef0123456789abcdef'), createdAt: 1_772_366_400, data: { orderId: 'ord_0123456789abcdef0123456789abcdef' } };
        const { transport, calls } = scriptedTransport(200);
        const deliverer = createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport });
        expect(await deliverer.deliver({ ...job, notification } as unknown as NotificationJob)).toMatchObject({ kind: 'delivered' });
        const { request } = calls[0] as (typeof calls)[number];
        expect(request.headers['tollgate-event']).toBe(event);
        expect(request.headers['idempotency-key']).toBe(notification.id);
        expect(JSON.parse(request.body)).toEqual(notification);
      });

      it('falls back to the webhook URL the merchant has at delivery time, signed with both keys during a rotation', async () => {
        const { stores } = fixture();
        const merchant = await enrollMerchant(stores.merchants);
        const job: NotificationJob = { merchantId: merchant.merchantId, refId: 'ref_1', url: null, notification: await settledNotification('ntf_2', merchant.payTo) };
        // Credential recovery after the job was enqueued: new webhook, the old notify key becomes previous.
        const challenge = challengeFor(merchant.payTo);
        await stores.merchants.insertChallenge(challenge);
        const recovery = enrollRequest(challenge, { webhookUrl: 'https://new-hooks.example.com/tollgate' });
        expect((await stores.merchants.register(recovery)).kind).toBe('recovered');

        const { transport, calls } = scriptedTransport(200);
        const outcome = await createNotificationDeliverer({ stores, keys, clock, transport }).deliver(job);
        expect(outcome).toEqual({ kind: 'delivered', host: 'new-hooks.example.com', status: 200, keyIds: [recovery.notifyKeyId, merchant.notifyKeyId] });
        const { request } = calls[0] as (typeof calls)[number];
        for (const keyId of [recovery.notifyKeyId, merchant.notifyKeyId]) {
          const key = deriveNotifyHmacKey(keys.notifyRoot, merchant.merchantId, keyId);
          expect(verifyNotification({ body: request.body, headers: request.headers, keys: { [keyId]: key }, now: unixSeconds(clock) }).keyId).toBe(keyId);
        }
      });

      it('completes without sending when there is no URL at all', async () => {
        const { job } = await jobFor(null);
        const { transport, calls } = scriptedTransport(200);
        expect(await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport }).deliver(job)).toEqual({ kind: 'skipped', reason: 'no_url' });
        expect(calls).toEqual([]);
      });

      it.each(['https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/hook', 'http://hooks.example.com/hook', 'https://hooks.example.com:8443/hook', 'https://printer.local/x'])(
        'abandons the non-public or non-HTTPS URL %s without sending',
        async (url) => {
          const { job } = await jobFor(url);
          const { transport, calls } = scriptedTransport(200);
          const outcome = await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport }).deliver(job);
          expect(outcome).toMatchObject({ kind: 'abandoned', reason: 'unsafe_url' });
          expect(calls).toEqual([]);
        },
      );

      it('accepts loopback http receivers only under the test policy', async () => {
        const { job } = await jobFor('http://127.0.0.1:8080/hook');
        const { transport, calls } = scriptedTransport(200);
        expect(await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport }).deliver(job)).toMatchObject({ kind: 'abandoned', reason: 'unsafe_url' });
        const testing = createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport, insecureAllowLoopbackForTests: true });
        expect(await testing.deliver(job)).toMatchObject({ kind: 'delivered', host: '127.0.0.1' });
        expect(calls).toHaveLength(1);
      });

      it.each([
        [200, 'delivered'],
        [202, 'delivered'],
        [299, 'delivered'],
        [301, 'retry'],
        [302, 'retry'],
        [400, 'retry'],
        [401, 'retry'],
        [404, 'retry'],
        [429, 'retry'],
        [500, 'retry'],
        [503, 'retry'],
        [410, 'abandoned'],
      ])('classifies HTTP %i as %s', async (status, kind) => {
        const { job } = await jobFor('https://hooks.example.com/hook');
        const outcome = await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport: scriptedTransport(status).transport }).deliver(job);
        expect(outcome).toMatchObject({ kind, ...(kind === 'delivered' ? {} : { status, reason: kind === 'retry' ? 'http_status' : 'gone' }) });
        if (status >= 300 && status < 400) expect(outcome).toMatchObject({ message: expect.stringContaining('redirects are not followed') });
      });

      it.each([
        ['non_public_address', 'abandoned'],
        ['unsafe_url', 'abandoned'],
        ['dns_failure', 'retry'],
        ['connect_timeout', 'retry'],
        ['timeout', 'retry'],
        ['connection_failed', 'retry'],
        ['aborted', 'retry'],
      ] as const)('classifies the transport failure %s as %s', async (reason: NotificationTransportFailure, kind) => {
        const { job } = await jobFor('https://hooks.example.com/hook');
        const failure = new NotificationTransportError(reason, `hooks.example.com: ${reason}`);
        const outcome = await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport: scriptedTransport(failure).transport }).deliver(job);
        expect(outcome).toEqual({ kind, reason, host: 'hooks.example.com', message: failure.message });
      });

      it('treats an unexpected transport error as retryable and names only the host', async () => {
        const { job } = await jobFor('https://hooks.example.com/hook?token=s3cret');
        const outcome = await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport: scriptedTransport(new TypeError('boom at /hook?token=s3cret')).transport }).deliver(job);
        expect(outcome).toEqual({ kind: 'retry', reason: 'transport_error', host: 'hooks.example.com', message: 'Sending to hooks.example.com failed (TypeError).' });
      });

      it('signs each attempt with a fresh timestamp over the same body', async () => {
        const { job } = await jobFor('https://hooks.example.com/hook');
        const { transport, calls } = scriptedTransport(500, 200);
        const deliverer = createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport });
        expect((await deliverer.deliver(job)).kind).toBe('retry');
        clock.advance(3_600_000);
        expect((await deliverer.deliver(job)).kind).toBe('delivered');
        const [first, second] = calls as [(typeof calls)[number], (typeof calls)[number]];
        expect(second.request.body).toBe(first.request.body);
        expect(second.request.headers['idempotency-key']).toBe(first.request.headers['idempotency-key']);
        expect(Number(second.request.headers['tollgate-timestamp']) - Number(first.request.headers['tollgate-timestamp'])).toBe(3_600);
      });

      it.each([
        ['no notification', (job: NotificationJob) => ({ ...job, notification: undefined })],
        ['a numeric url', (job: NotificationJob) => ({ ...job, url: 42 })],
        ['an empty merchant id', (job: NotificationJob) => ({ ...job, merchantId: '' })],
        ['another event kind', (job: NotificationJob) => ({ ...job, notification: { ...job.notification, event: 'payment.refunded' } })],
        ['no notification id', (job: NotificationJob) => ({ ...job, notification: { ...job.notification, id: undefined } })],
      ])('abandons a malformed job (%s) without sending', async (_case, corrupt) => {
        const { job } = await jobFor('https://hooks.example.com/hook');
        const { transport, calls } = scriptedTransport(200);
        const outcome = await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport }).deliver(corrupt(job) as unknown as NotificationJob);
        expect(outcome).toMatchObject({ kind: 'abandoned', reason: 'malformed_job' });
        expect(calls).toEqual([]);
        expect(await createNotificationDeliverer({ stores: fixture().stores, keys, clock, transport }).deliver(null as unknown as NotificationJob)).toMatchObject({ reason: 'malformed_job' });
      });

      it('abandons a job of an unknown merchant, or of a merchant without a live notify key', async () => {
        const { job } = await jobFor('https://hooks.example.com/hook');
        const { transport, calls } = scriptedTransport(200);
        const { stores } = fixture();
        expect(await createNotificationDeliverer({ stores, keys, clock, transport }).deliver({ ...job, merchantId: 'no-such-merchant' })).toMatchObject({
          kind: 'abandoned',
          reason: 'merchant_not_found',
        });
        const withoutNotifyKeys: Pick<MerchantStore, 'getMerchant'> = {
          getMerchant: async (id) => {
            const merchant = await stores.merchants.getMerchant(id);
            return merchant && { ...merchant, credentials: merchant.credentials.filter((credential) => credential.kind !== 'notify') };
          },
        };
        expect(await createNotificationDeliverer({ stores: { merchants: withoutNotifyKeys }, keys, clock, transport }).deliver(job)).toMatchObject({ kind: 'abandoned', reason: 'no_notify_key' });
        expect(calls).toEqual([]);
      });
    },
  );
}
