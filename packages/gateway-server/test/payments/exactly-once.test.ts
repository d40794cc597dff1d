// Exactly-once settlement under concurrency: 20 identical submissions at once → one settle, one
// transfer, 20 identical answers; on one instance (PGlite) and across two instances on one PostgreSQL.
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseEngines, testDatabaseUrlVariable } from '@tollgate/core/testing';
import { call, createScratchDatabase, startTestGateway, type JsonResponse, type TestGateway } from '../helpers/gateway';
import { demoPayer, officialPaymentHeader, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

const postgres = (await testDatabaseEngines()).find((engine) => engine.name === 'postgres');

let stack: PaymentStack;
beforeAll(async () => {
  stack = await startPaymentStack();
});
afterAll(() => stack?.stop());

/** Sends `header` 20 times at once, round-robin over the gateways. */
async function submitConcurrently(gateways: TestGateway[], path: string, header: string): Promise<JsonResponse[]> {
  return Promise.all(Array.from({ length: 20 }, (_, n) => call(gateways[n % gateways.length]!.url, 'GET', path, { headers: { 'payment-signature': header } })));
}

function expectOneAnswer(responses: JsonResponse[]): void {
  const answers = new Set(responses.map((response) => JSON.stringify([response.status, response.headers.get('payment-response'), response.text])));
  expect(answers.size).toBe(1);
  expect(responses[0]?.status, responses[0]?.text).toBe(200);
}

describe('20 concurrent identical submissions on one instance', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(stack.gatewayEnv, { clock: new TestWallClock() });
  });
  afterAll(() => gateway?.close());

  it('settle once, transfer once, and answer 20 times with identical bytes', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    stack.resetCounts();
    expectOneAnswer(await submitConcurrently([gateway], ref.path, header));
    expect(stack.counts.settle).toBe(1);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });
});

describe.skipIf(postgres === undefined)(
  `20 concurrent identical submissions across two instances on one PostgreSQL${postgres === undefined ? ` (skipped: ${testDatabaseUrlVariable} is not set; CI sets it)` : ''}`,
  () => {
    const gateways: TestGateway[] = [];
    let dropDatabase: () => Promise<void> = async () => undefined;

    beforeAll(async () => {
      const database = await createScratchDatabase(postgres!.connectionString as string, 'tollgate_gateway');
      dropDatabase = database.drop;
      const secret = crypto.getRandomValues(new Uint8Array(32));
      // Instances behind one load balancer share the secret, the signing key and the public origin.
      const env = { ...stack.gatewayEnv, GATEWAY_DATABASE_URL: database.url, GATEWAY_SIGNING_KEY: generatePrivateKey(), GATEWAY_PUBLIC_URL: 'https://pay.example.com' };
      gateways.push(await startTestGateway(env, { secret, clock: new TestWallClock() }));
      gateways.push(await startTestGateway(env, { secret, clock: new TestWallClock() }));
    });
    afterAll(async () => {
      await Promise.all(gateways.map((gateway) => gateway.close()));
      await dropDatabase();
    });

    it('settle once, transfer once, and answer 20 times with identical bytes', async () => {
      const [first] = gateways;
      const ref = await payableRef(first!);
      expect(ref.resource.startsWith('https://pay.example.com/receive/')).toBe(true);
      const { header } = await officialPaymentHeader(first!, ref.path, stack, demoPayer(stack));
      stack.resetCounts();
      const responses = await submitConcurrently(gateways, ref.path, header);
      expectOneAnswer(responses);
      expect(stack.counts.settle).toBe(1);
      expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
      expect(gateways.map((gateway) => gateway.server.database.engine)).toEqual(['postgres', 'postgres']);
    });
  },
);
