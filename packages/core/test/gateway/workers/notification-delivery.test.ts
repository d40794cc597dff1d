import * as v from 'valibot';
import pino from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, expect, it } from 'vitest';
import {
  ManualClock,
  NotificationSignatureError,
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  gatewayMigrations,
  notificationQueue,
  unixSeconds,
  verifyNotification,
  type GatewayStores,
  type NotificationJob,
} from '@tollgate/core';
import { createSqlJobQueue, type Job } from '@tollgate/core/storage';
import {
  buildPaymentReceipt,
  buildPaymentSettledNotification,
  signReceipt,
} from '@tollgate/core/x402';
import {
  createMerchantAccountService,
  createRegistrationService,
  deriveNotifyHmacKey,
  enqueuePaymentNotification,
  notificationUserAgent,
  registerRequestSchema,
  startNotificationWorker,
  type NotificationWorker,
  type NotificationWorkerOptions,
} from '@tollgate/core/gateway';
import { createNodeNotificationTransport } from '@tollgate/core/node';
import { challengeFor, describeConformance, enrollRequest, openTestDatabase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { thrownBy } from '../../support/thrown';
import { eventually, startReceiver, unusedPort, type ReceivedNotification, type Receiver } from '../../support/notification-receivers';

const keys = deriveGatewayKeys(crypto.getRandomValues(new Uint8Array(32)));
const networks = createNetworkRegistry();
const gatewaySigner = privateKeyToAccount(generatePrivateKey());
// With jitter pinned at 0.5, the n-th retry waits exactly half of min(6 h, 30 s × 2^(n−1)).
const jitter = () => 0.5;

interface Fixture extends TestDatabase {
  stores: GatewayStores;
}

/** The merchant as registration returns it, plus its payTo. */
interface Merchant {
  merchantId: string;
  payTo: string;
  apiKey: string;
  notifyHmacKey: string;
  notifyHmacKeyId: string;
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'Notification worker',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => {
        const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
        return { ...database, stores: createSqlGatewayStores(database.sql) };
      },
    },
    (fixture) => {
      const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
      const cleanups: (() => Promise<void>)[] = [];
      let logLines: string[] = [];

      afterEach(async () => {
        // Workers first: a stopped worker never claims again, then the receivers can go.
        for (const cleanup of cleanups.splice(0)) await cleanup();
        logLines = [];
      });

      const logs = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>);

      function worker(overrides: Partial<NotificationWorkerOptions> = {}): NotificationWorker {
        const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
        const { sql, stores } = fixture();
        // The transport the gateway server uses, allowed to reach the loopback receivers like the deliverer.
        const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
        const running = startNotificationWorker({ sql, stores, keys, clock, logger, transport, pollIntervalMs: 5, concurrency: 2, timeoutMs: 5_000, random: jitter, insecureAllowLoopbackForTests: true, ...overrides });
        cleanups.unshift(() => running.stop());
        return running;
      }

      async function receiver(options: Parameters<typeof startReceiver>[0] = {}): Promise<Receiver> {
        const started = await startReceiver(options);
        cleanups.push(() => started.close());
        return started;
      }

      async function registerMerchant(): Promise<Merchant> {
        const deps = { stores: fixture().stores, keys, networks, publicUrl: 'https://pay.example.com', clock };
        const registration = createRegistrationService({ ...deps, signatureVerifier: createViemWalletSignatureVerifier() });
        const account = privateKeyToAccount(generatePrivateKey());
        const challenge = await registration.createChallenge({ payTo: account.address, network: 'base', action: 'merchant.register' });
        const signature = await account.signMessage({ message: challenge.signingMessage });
        const issued = await registration.register(v.parse(registerRequestSchema, { challengeId: challenge.challengeId, payTo: account.address, network: 'base', label: 'Shop', signature }));
        if (issued.kind !== 'created') throw new Error(`expected a new merchant, got ${issued.kind}`);
        return { merchantId: issued.merchantId, payTo: issued.payTo, apiKey: issued.apiKey, notifyHmacKey: issued.notifyHmacKey, notifyHmacKeyId: issued.notifyHmacKeyId };
      }

      /** Enqueues a settled payment's notification as the settlement does; returns its job. */
      async function enqueue(merchant: Pick<Merchant, 'merchantId' | 'payTo'>, url: string | null, paymentId = `pay_${crypto.randomUUID()}`): Promise<Job<NotificationJob>> {
        const receipt = buildPaymentReceipt({
          refId: 'ref_1',
          paymentId,
          gatewayOrigin: 'https://pay.example.com',
          resourceUrl: `https://pay.example.com/receive/${merchant.payTo}?ref=ref_1`,
          network: { caip2: 'eip155:8453', chainId: 8453, usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 } },
          payTo: merchant.payTo,
          payer: privateKeyToAccount(generatePrivateKey()).address,
          amount: '10000',
          authorizationNonce: `0x${'01'.repeat(32)}`,
          txHash: `0x${'02'.repeat(32)}`,
          issuedAt: unixSeconds(clock),
        });
        const notification = buildPaymentSettledNotification({ id: `ntf_${paymentId}`, createdAt: unixSeconds(clock), receipt, signedReceipt: await signReceipt(receipt, gatewaySigner) });
        const payload: NotificationJob = { merchantId: merchant.merchantId, refId: 'ref_1', url, notification };
        const jobs = createSqlJobQueue(fixture().sql, { clock });
        expect(await enqueuePaymentNotification(jobs, paymentId, payload)).toBe(true);
        // The contract's idempotency key returns the existing job instead of adding one.
        const { job, created } = await jobs.enqueue<NotificationJob>(notificationQueue, payload, { idempotencyKey: `payment:${paymentId}` });
        expect(created).toBe(false);
        return job;
      }

      const read = (job: Job<NotificationJob>) => async () => (await createSqlJobQueue(fixture().sql, { clock }).get<NotificationJob>(job.id)) as Job<NotificationJob>;
      const settledAs = (job: Job<NotificationJob>, status: Job['status'], attempts: number) =>
        eventually(read(job), (current) => current.status === status && current.attempts === attempts, `job ${job.id} ${status} after ${attempts} attempt(s)`);

      function verifies(request: ReceivedNotification, keyId: string, key: string): boolean {
        return verifyNotification({ body: request.body, headers: request.headers, keys: { [keyId]: key }, now: unixSeconds(clock) }).keyId === keyId;
      }

      it('delivers a settled payment with a valid signature under the notify key registration returned', async () => {
        const merchant = await registerMerchant();
        const target = await receiver();
        const job = await enqueue(merchant, target.url);
        worker();
        const [request] = await target.received(1);
        expect(request).toMatchObject({ method: 'POST', path: '/hooks/tollgate?token=receiver-secret' });
        expect(verifies(request as ReceivedNotification, merchant.notifyHmacKeyId, merchant.notifyHmacKey)).toBe(true);
        expect(request?.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': notificationUserAgent, 'idempotency-key': job.payload.notification.id, 'tollgate-event': 'payment.settled' });
        expect(JSON.parse(request?.body as string)).toEqual(job.payload.notification);
        expect(await settledAs(job, 'completed', 1)).toMatchObject({ lastError: null });
        expect(logs()).toContainEqual(expect.objectContaining({ msg: 'notification delivered', jobId: job.id, host: '127.0.0.1', status: 200, keyIds: [merchant.notifyHmacKeyId] }));
        // Neither the notify key, the signature header nor the receiver's own URL token reaches the logs.
        const text = logLines.join('\n');
        for (const secret of [merchant.notifyHmacKey, String(request?.headers['tollgate-signature']), 'receiver-secret']) expect(text).not.toContain(secret);
      });

      it('retries with backoff while the receiver fails, then delivers the same notification', async () => {
        const merchant = await registerMerchant();
        const target = await receiver({ answers: [500, 200] });
        const job = await enqueue(merchant, target.url);
        worker();
        const failed = await settledAs(job, 'pending', 1);
        expect(failed.lastError).toBe('NotificationDeliveryError: 127.0.0.1 answered HTTP 500.');
        expect(failed.runAt.getTime()).toBe(clock.now() + 15_000);
        expect(logs()).toContainEqual(expect.objectContaining({ msg: 'notification attempt failed; it will be retried', reason: 'http_status', status: 500, attempt: 1 }));
        clock.advance(15_000);
        await settledAs(job, 'completed', 2);
        const [first, second] = target.requests as [ReceivedNotification, ReceivedNotification];
        expect(second.body).toBe(first.body);
        expect(verifies(second, merchant.notifyHmacKeyId, merchant.notifyHmacKey)).toBe(true);
      });

      it('retries while the receiver is not listening and delivers once it is up', async () => {
        const merchant = await registerMerchant();
        const port = await unusedPort();
        const job = await enqueue(merchant, `http://127.0.0.1:${port}/hook`);
        worker();
        expect((await settledAs(job, 'pending', 1)).lastError).toMatch(/^NotificationDeliveryError: The connection to 127\.0\.0\.1 failed \(ECONNREFUSED\)\.$/);
        const target = await receiver({ port });
        clock.advance(15_000);
        await settledAs(job, 'completed', 2);
        expect(verifies(target.requests[0] as ReceivedNotification, merchant.notifyHmacKeyId, merchant.notifyHmacKey)).toBe(true);
      });

      it('dead-letters a notification after its 12th failed attempt', async () => {
        const merchant = await registerMerchant();
        const target = await receiver({ answers: [503] });
        const job = await enqueue(merchant, target.url);
        worker();
        const delays: number[] = [];
        for (let attempt = 1; attempt < 12; attempt += 1) {
          const pending = await settledAs(job, 'pending', attempt);
          delays.push(pending.runAt.getTime() - clock.now());
          clock.set(pending.runAt.getTime());
        }
        const dead = await settledAs(job, 'dead', 12);
        expect(dead.lastError).toBe('NotificationDeliveryError: 127.0.0.1 answered HTTP 503.');
        expect(delays.map((ms) => ms / 1000)).toEqual([15, 30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 10800]);
        expect(target.requests).toHaveLength(12);
        expect(logs().filter((line) => line['msg'] === 'notification dead-lettered: the last attempt failed')).toEqual([expect.objectContaining({ attempt: 12, maxAttempts: 12, status: 503 })]);
      });

      it('falls back to the merchant webhook URL when the ref has no notify URL', async () => {
        const { stores } = fixture();
        const target = await receiver();
        const payTo = privateKeyToAccount(generatePrivateKey()).address;
        const challenge = challengeFor(payTo, { issuedAt: new Date(clock.now()), expiresAt: new Date(clock.now() + 300_000) });
        await stores.merchants.insertChallenge(challenge);
        const enrollment = enrollRequest(challenge, { webhookUrl: target.url, now: new Date(clock.now()) });
        const outcome = await stores.merchants.register(enrollment);
        if (outcome.kind !== 'created') throw new Error(outcome.kind);
        const job = await enqueue({ merchantId: outcome.merchantId, payTo }, null);
        worker();
        const [request] = await target.received(1);
        const notifyKey = deriveNotifyHmacKey(keys.notifyRoot, outcome.merchantId, enrollment.notifyKeyId);
        expect(verifies(request as ReceivedNotification, enrollment.notifyKeyId, notifyKey)).toBe(true);
        await settledAs(job, 'completed', 1);
      });

      it('completes without delivering when neither the ref nor the merchant has a URL', async () => {
        const merchant = await registerMerchant();
        const job = await enqueue(merchant, null);
        worker();
        await settledAs(job, 'completed', 1);
        expect(logs()).toContainEqual(expect.objectContaining({ msg: 'notification skipped: neither the ref nor the merchant has a notify URL', jobId: job.id }));
      });

      it('signs with the current and the previous notify key while both are live, and each verifies', async () => {
        const merchant = await registerMerchant();
        const accounts = createMerchantAccountService({ stores: fixture().stores, keys, networks, publicUrl: 'https://pay.example.com', clock });
        const caller = await accounts.authenticate(merchant.apiKey);
        const rotated = await accounts.rotateKey(caller, 'notify');
        if (rotated.credential !== 'notify') throw new Error('expected a notify key');
        const target = await receiver();
        await enqueue(merchant, target.url);
        worker();
        const [request] = (await target.received(1)) as [ReceivedNotification];
        expect(request.headers['tollgate-signature']).toMatch(new RegExp(`^t=\\d+,${rotated.notifyHmacKeyId}=[0-9a-f]{64},${merchant.notifyHmacKeyId}=[0-9a-f]{64}$`));
        expect(verifies(request, merchant.notifyHmacKeyId, merchant.notifyHmacKey)).toBe(true);
        expect(verifies(request, rotated.notifyHmacKeyId, rotated.notifyHmacKey)).toBe(true);

        await accounts.revokeKey(caller, 'notify');
        await enqueue(merchant, target.url);
        const [, afterRevocation] = (await target.received(2)) as [ReceivedNotification, ReceivedNotification];
        expect(afterRevocation.headers['tollgate-signature']).toMatch(new RegExp(`^t=\\d+,${rotated.notifyHmacKeyId}=[0-9a-f]{64}$`));
        expect(thrownBy(NotificationSignatureError, () => verifies(afterRevocation, merchant.notifyHmacKeyId, merchant.notifyHmacKey)).reason).toBe('unknown_key');
      });

      it('abandons a non-public URL at once, whether literal or resolved, without connecting', async () => {
        const merchant = await registerMerchant();
        const literal = await enqueue(merchant, 'https://169.254.169.254/latest/meta-data');
        const resolved = await enqueue(merchant, 'https://hooks.example.com/tollgate');
        const resolvedNames: string[] = [];
        // A DNS answer pointing into the private network (the resolver is the only thing injected).
        const transport = createNodeNotificationTransport({ resolve: async (name) => (resolvedNames.push(name), [{ address: '10.0.0.5', family: 4 }]) });
        worker({ transport, insecureAllowLoopbackForTests: false });
        await settledAs(literal, 'completed', 1);
        await settledAs(resolved, 'completed', 1);
        expect(resolvedNames).toEqual(['hooks.example.com']);
        const abandoned = logs().filter((line) => line['msg'] === 'notification abandoned: it will not be retried');
        expect(abandoned).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ jobId: literal.id, reason: 'unsafe_url', host: '169.254.169.254', level: 40 }),
            expect.objectContaining({ jobId: resolved.id, reason: 'non_public_address', host: 'hooks.example.com', level: 40 }),
          ]),
        );
      });

      it('sends the same notification id and body again after a lost acknowledgement', async () => {
        const merchant = await registerMerchant();
        // The receiver takes the first delivery but its answer never arrives: the attempt times out.
        const target = await receiver({ answers: ['hang', 200] });
        const job = await enqueue(merchant, target.url);
        worker({ timeoutMs: 300 });
        expect((await settledAs(job, 'pending', 1)).lastError).toBe('NotificationDeliveryError: 127.0.0.1 did not answer within 300 ms.');
        clock.advance(15_000);
        await settledAs(job, 'completed', 2);
        const [first, second] = target.requests as [ReceivedNotification, ReceivedNotification];
        expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
        expect(JSON.parse(second.body).id).toBe(job.payload.notification.id);
        expect(second.body).toBe(first.body);
        expect(Number(second.headers['tollgate-timestamp']) - Number(first.headers['tollgate-timestamp'])).toBe(15);
      });

      it('aborts a delivery in flight on stop and leaves it to be retried', async () => {
        const merchant = await registerMerchant();
        const target = await receiver({ answers: ['hang'] });
        const job = await enqueue(merchant, target.url);
        const running = worker({ timeoutMs: 60_000 });
        await target.received(1);
        await running.stop();
        expect(await read(job)()).toMatchObject({ status: 'pending', attempts: 1, lastError: 'NotificationDeliveryError: The notification to 127.0.0.1 was aborted.' });
      });
    },
  );
}
