// Races of POST /recover-settlement with /receive on one PostgreSQL behind two gateway instances: a
// payment executed on chain by someone else, asked for by 20 recoveries and 20 submissions at once,
// ends as one record with one answer, never a second settle or a second transfer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseEngines, testDatabaseUrlVariable } from '@tollgate/core/testing';
import { call, startTestGateway, type JsonResponse, type TestGateway } from '../helpers/gateway';
import { startInstances, type GatewayInstances } from '../helpers/instances';
import { demoPayer, officialPaymentHeader, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { answerBytes, executeAuthorization, recover } from '../helpers/recovery-app';
import { relaxedEvidenceLimits } from './helpers';
import { TestWallClock } from '../helpers/clock';

const postgres = (await testDatabaseEngines()).find((engine) => engine.name === 'postgres');

describe.skipIf(postgres === undefined)(
  `recovery racing /receive across two instances on one PostgreSQL${postgres === undefined ? ` (skipped: ${testDatabaseUrlVariable} is not set)` : ''}`,
  () => {
    let stack: PaymentStack;
    let instances: GatewayInstances<TestGateway> | undefined;
    let gateways: TestGateway[] = [];

    beforeAll(async () => {
      stack = await startPaymentStack();
      instances = await startInstances({
        adminUrl: postgres!.connectionString as string,
        databasePrefix: 'tollgate_gateway',
        env: { ...stack.gatewayEnv, ...relaxedEvidenceLimits, GATEWAY_PUBLIC_URL: 'https://pay.example.com' },
        start: (env, options) => startTestGateway(env, { ...options, clock: new TestWallClock() }),
      });
      gateways = instances.gateways;
    });
    afterAll(async () => {
      await instances?.close();
      await stack?.stop();
    });

    it('records one payment and gives every caller the same answer, with no settle', async () => {
      const [first] = gateways;
      const ref = await payableRef(first!);
      const { header, payload } = await officialPaymentHeader(first!, ref.path, stack, demoPayer(stack));
      const { txHash } = await executeAuthorization(stack, payload);
      stack.resetCounts();
      const requests: Promise<JsonResponse>[] = [];
      for (let n = 0; n < 20; n++) {
        const gateway = gateways[n % 2]!;
        requests.push(recover(gateway.url, { refId: ref.refId, paymentPayload: header, ...(n % 4 === 0 ? { txHash } : {}) }));
        requests.push(call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }));
      }
      const responses = await Promise.all(requests);
      for (const response of responses) expect([200, 202], response.text).toContain(response.status);
      const settled = responses.filter((response) => response.status === 200).map((response) => JSON.stringify(answerBytes(response)));
      expect(settled.length).toBeGreaterThan(0);
      expect(new Set(settled).size).toBe(1);
      // Whoever was told "pending" gets that same answer next.
      const final = answerBytes(await recover(gateways[1]!.url, { refId: ref.refId, paymentPayload: header }));
      expect(JSON.stringify(final)).toBe(settled[0]);
      expect(JSON.parse(final.body)).toMatchObject({ success: true, transaction: txHash });
      const rows = await first!.server.database.sql.query<{ state: string }>('SELECT state FROM gateway_payments WHERE ref_id = $1', [ref.refId]);
      expect(rows.rows.map((row) => row.state)).toEqual(['settled']);
      expect(stack.counts.settle).toBe(0);
      expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
      expect(first!.server.database.engine).toBe('postgres');
    });

    it('never settles twice or answers twice when recoveries race the payment’s own settlement', async () => {
      const [first] = gateways;
      const ref = await payableRef(first!);
      const { header } = await officialPaymentHeader(first!, ref.path, stack, demoPayer(stack));
      stack.resetCounts();
      const requests: Promise<JsonResponse>[] = [];
      for (let n = 0; n < 20; n++) {
        const gateway = gateways[n % 2]!;
        requests.push(call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }));
        requests.push(recover(gateway.url, { refId: ref.refId, paymentPayload: header }));
      }
      const responses = await Promise.all(requests);
      // A recovery before the claim says "not settled yet" (404, retryable); anything else is pending or the one answer.
      for (const response of responses) expect([200, 202, 404], response.text).toContain(response.status);
      for (const response of responses.filter((entry) => entry.status === 404)) expect(response.body).toMatchObject({ error: { details: { settled: false, retryable: true } } });
      const settled = responses.filter((response) => response.status === 200).map((response) => JSON.stringify(answerBytes(response)));
      expect(settled.length).toBeGreaterThan(0);
      expect(new Set(settled).size).toBe(1);
      expect(JSON.stringify(answerBytes(await recover(gateways[1]!.url, { refId: ref.refId, paymentPayload: header })))).toBe(settled[0]);
      expect(stack.counts.settle).toBe(1);
      expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    });
  },
);
