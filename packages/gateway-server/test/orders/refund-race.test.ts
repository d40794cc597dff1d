// 20 concurrent refund intents against one paid order, across two gateway instances on one PostgreSQL
// server: together they never reserve more than was paid. (PGlite has one connection, so requests
// serialise there and prove nothing: this runs on the PostgreSQL server only.)
import { seededRandom, testDatabaseEngines, testDatabaseUrlVariable } from '@tollgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type JsonResponse, type TestMerchant } from '../helpers/gateway';
import { startInstances, type GatewayInstances } from '../helpers/instances';
import { fundedPayer, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, getOrder, localMerchant, paidOrder, startOrderGateway, type OrderGateway, type RefundBody } from './helpers';

const postgres = (await testDatabaseEngines()).find((engine) => engine.name === 'postgres');

describe.skipIf(postgres === undefined)(
  `20 concurrent refund intents on PostgreSQL${postgres === undefined ? ` (skipped: ${testDatabaseUrlVariable} is not set; CI sets it)` : ''}`,
  () => {
    let stack: PaymentStack;
    let instances: GatewayInstances<OrderGateway> | undefined;
    let gateways: OrderGateway[] = [];
    let merchant: TestMerchant;

    beforeAll(async () => {
      stack = await startPaymentStack();
      instances = await startInstances({
        adminUrl: postgres!.connectionString as string,
        databasePrefix: 'tollgate_orders',
        start: (env, options) => startOrderGateway(stack, env, options),
      });
      gateways = instances.gateways;
      merchant = await localMerchant(gateways[0]!);
    }, 120_000);
    afterAll(async () => {
      await instances?.close();
      await stack?.stop();
    });

    /** Sends the 20 refunds at once, alternating instances. */
    const race = (orderId: string, amounts: string[]): Promise<JsonResponse<RefundBody>[]> =>
      Promise.all(amounts.map((amount, index) => createRefund(gateways[index % gateways.length]!, merchant, orderId, { amount })));

    it('equal amounts: exactly as many as fit are created, the rest refused with exceeds_remaining', async () => {
      expect(gateways.map((gateway) => gateway.server.database.engine)).toEqual(['postgres', 'postgres']);
      const order = await paidOrder(gateways[0]!, stack, merchant, await fundedPayer(stack, 100_000n), { amount: '10000' });
      const responses = await race(order.order.orderId, Array.from({ length: 20 }, () => '1000'));
      const created = responses.filter((response) => response.status === 201);
      expect(created).toHaveLength(10);
      for (const refused of responses.filter((response) => response.status !== 201)) {
        expect(expectError(refused, 409, 'conflict')).toMatchObject({ reason: 'exceeds_remaining', remaining: '0' });
      }
      const after = (await getOrder(gateways[1]!, merchant, order.order.orderId)).body;
      expect(after).toMatchObject({ refundReserved: '10000', refunded: '0', refundable: '0' });
      const { rows } = await gateways[0]!.server.database.sql.query<{ total: string; count: string }>(
        "SELECT COALESCE(SUM(amount), 0)::text AS total, COUNT(*)::text AS count FROM gateway_refunds WHERE order_id = $1 AND status = 'open'",
        [order.order.orderId],
      );
      expect(rows[0]).toEqual({ total: '10000', count: '10' });
    });

    it('mixed amounts: what was created never exceeds what was paid, and is exactly what is reserved', async () => {
      const random = seededRandom(0x5eed);
      const order = await paidOrder(gateways[0]!, stack, merchant, await fundedPayer(stack, 100_000n), { amount: '10000' });
      const amounts = Array.from({ length: 20 }, () => String(500 + random.int(2_000)));
      const responses = await race(order.order.orderId, amounts);
      const created = responses.filter((response) => response.status === 201).map((response) => BigInt(response.body.amount));
      const total = created.reduce((sum, amount) => sum + amount, 0n);
      expect(created.length).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(10_000n);
      responses.forEach((response, index) => {
        if (response.status === 201) return;
        // Refused only because it did not fit in what was left at its turn.
        const { remaining } = expectError(response, 409, 'conflict') as { remaining: string };
        expect(BigInt(remaining)).toBeLessThan(BigInt(amounts[index]!));
      });
      const after = (await getOrder(gateways[1]!, merchant, order.order.orderId)).body;
      expect(BigInt(after.refundReserved)).toBe(total);
      expect(BigInt(after.refundable)).toBe(10_000n - total);
    });
  },
);
