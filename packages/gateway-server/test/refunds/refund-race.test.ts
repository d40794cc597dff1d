// Refund payments racing on one PostgreSQL behind two gateway instances: 20 concurrent refund payments
// (distinct authorizations, all signed by the merchant's payTo) against one order's three refund intents.
// Each intent's refund ref takes one payment, so exactly three settle, the chain holds exactly three
// transfers back, and what the order refunded never exceeds what was paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseEngines, testDatabaseUrlVariable } from '@tollgate/core/testing';
import { call, expectError, type JsonResponse, type TestGateway } from '../helpers/gateway';
import { startInstances, type GatewayInstances } from '../helpers/instances';
import { encodePayment, signPayment, startPaymentStack, tokenOf, transfersTo, type PaymentStack } from '../helpers/payments';
import { createRefund, getOrder, getRefund, paidOrder, pathOf, refundRequirement, startOrderGateway, type RefundBody } from './helpers';

const postgres = (await testDatabaseEngines()).find((engine) => engine.name === 'postgres');

describe.skipIf(postgres === undefined)(
  `concurrent refund payments on one PostgreSQL${postgres === undefined ? ` (skipped: ${testDatabaseUrlVariable} is not set)` : ''}`,
  () => {
    let stack: PaymentStack;
    let instances: GatewayInstances<TestGateway> | undefined;
    let gateways: TestGateway[] = [];

    beforeAll(async () => {
      stack = await startPaymentStack();
      instances = await startInstances({
        adminUrl: postgres!.connectionString as string,
        databasePrefix: 'tollgate_refunds',
        env: { GATEWAY_PUBLIC_URL: 'https://pay.example.com' },
        start: (env, options) => startOrderGateway(stack, env, options),
      });
      gateways = instances.gateways;
    });
    afterAll(async () => {
      await instances?.close();
      await stack?.stop();
    });

    it('settles one payment per intent, and never refunds more than was paid', async () => {
      const [first] = gateways;
      const paid = await paidOrder(first!, stack, { amount: '10000' });
      const intents: RefundBody[] = [];
      for (const amount of ['5000', '3000', '2000']) intents.push(await createRefund(first!, paid, { amount }));
      expect(await getOrder(first!, paid.merchant, paid.order.orderId)).toMatchObject({ refundReserved: '10000', refundable: '0' });

      // 20 distinct authorizations, spread over the three intents and the two instances, sent at once.
      const submissions = await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const refund = intents[n % intents.length]!;
          const { accepted, resource } = await refundRequirement(first!, refund);
          const header = encodePayment({ ...(await signPayment(tokenOf(stack), paid.merchant.account, accepted)), resource });
          return { refund, gateway: gateways[n % 2]!, header };
        }),
      );
      stack.resetCounts();
      const responses: JsonResponse[] = await Promise.all(
        submissions.map(({ refund, gateway, header }) => call(gateway.url, 'GET', pathOf(refund.receiveUrl), { headers: { 'payment-signature': header } })),
      );

      const settled = responses.filter((response) => response.status === 200);
      expect(settled.length, responses.map((response) => `${response.status} ${response.text.slice(0, 160)}`).join('\n')).toBe(3);
      for (const response of responses.filter((candidate) => candidate.status !== 200)) {
        // Another payment holds the refund ref (in flight), or the intent is already paid.
        if (response.status === 409) expect(expectError(response, 409, 'conflict')).toMatchObject({ reason: 'ref_used' });
        else expect(expectError(response, 402, 'payment_verification_failed')).toMatchObject({ reason: 'refund_not_open' });
      }
      // Each settled answer is one intent's, with its amount.
      const refunded = settled.map((response) => (response.body as { extensions: { 'offer-receipt': { receipt: { refundId: string; amount: string } } } }).extensions['offer-receipt'].receipt);
      expect(refunded.map((receipt) => receipt.refundId).sort()).toEqual(intents.map((refund) => refund.refundId).sort());
      expect(stack.counts.settle).toBe(3);

      // The chain: exactly three transfers back, summing to what was paid.
      const back = (await transfersTo(stack, paid.payer.address)).filter((transfer) => transfer.from === paid.merchant.payTo);
      expect(back.map((transfer) => transfer.value).sort()).toEqual([2000n, 3000n, 5000n]);
      expect(await getOrder(gateways[1]!, paid.merchant, paid.order.orderId)).toMatchObject({ status: 'refunded', refunded: '10000', refundReserved: '0' });
      for (const refund of intents) expect((await getRefund(first!, paid, refund.refundId)).status).toBe('paid');

      // One payment row per refund ref that is not failed.
      const rows = await first!.server.database.sql.query<{ ref_id: string; state: string }>(
        `SELECT ref_id, state FROM gateway_payments WHERE ref_id = ANY($1) AND state <> 'failed' ORDER BY ref_id`,
        [intents.map((refund) => refund.refId)],
      );
      expect(rows.rows.map((row) => row.state)).toEqual(['settled', 'settled', 'settled']);
    });
  },
);
