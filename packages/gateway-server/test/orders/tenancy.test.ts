// Tenancy and the order mode switch, through HTTP: another merchant's order, refund or receipt is
// answered exactly like a missing one on EVERY order route (and nothing changes), a request without a
// key is refused before anything is read, and with order mode off every order route is a plain 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, startTestGateway, type JsonResponse, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { fundedPayer, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, createdOrder, getOrder, localMerchant, paidOrder, startOrderGateway, type OrderBody, type OrderGateway, type PaidOrder, type RefundBody } from './helpers';

let stack: PaymentStack;

beforeAll(async () => {
  stack = await startPaymentStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** One request per order route, with the ids and bodies of a real order, refund and receipt. */
function everyRoute(ids: { orderId: string; refundId: string; payTo: string }, receipt: { receipt: unknown; signedReceipt: string }) {
  const { orderId, refundId, payTo } = ids;
  return [
    { method: 'POST', path: '/order', json: { payTo, network: 'local', amount: '10' } },
    { method: 'GET', path: '/order' },
    { method: 'GET', path: `/order/${orderId}` },
    { method: 'POST', path: `/order/${orderId}/cancel` },
    { method: 'POST', path: `/order/${orderId}/refund`, json: { amount: '1' } },
    { method: 'GET', path: `/order/${orderId}/refund/${refundId}` },
    { method: 'GET', path: `/order/${orderId}/refunds` },
    { method: 'POST', path: `/order/${orderId}/refund/${refundId}/reject`, json: { reason: 'not yours' } },
    { method: 'POST', path: '/refund-receipt/rejected', json: receipt },
  ] as const;
}

describe('another merchant’s orders, refunds and receipts', () => {
  let gateway: OrderGateway;
  let owner: TestMerchant;
  let intruder: TestMerchant;
  let paid: PaidOrder;
  let unpaid: OrderBody;
  let refund: RefundBody;

  beforeAll(async () => {
    gateway = await startOrderGateway(stack);
    owner = await localMerchant(gateway);
    intruder = await localMerchant(gateway);
    paid = await paidOrder(gateway, stack, owner, await fundedPayer(stack, 100_000n), { amount: '5000' });
    unpaid = await createdOrder(gateway, owner, { amount: '99' });
    const created = await createRefund(gateway, owner, paid.order.orderId, { amount: '1000' });
    expect(created.status, created.text).toBe(201);
    refund = created.body;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('is not_found on every order route, for the paid and the unpaid order alike, and changes nothing', async () => {
    const before = await Promise.all([getOrder(gateway, owner, paid.order.orderId), getOrder(gateway, owner, unpaid.orderId)]);
    const receipt = { receipt: paid.receipt, signedReceipt: paid.signedReceipt };
    for (const orderId of [paid.order.orderId, unpaid.orderId]) {
      const routes = everyRoute({ orderId, refundId: refund.refundId, payTo: owner.payTo }, receipt);
      for (const entry of routes) {
        const response = await call(gateway.url, entry.method, entry.path, { apiKey: intruder.apiKey, ...('json' in entry ? { json: entry.json } : {}) });
        if (entry.path === '/order' && entry.method === 'GET') {
          // The list is the intruder's own: empty, never the owner's.
          expect(response.status).toBe(200);
          expect(response.body).toEqual({ items: [] });
        } else {
          expectError(response, 404, 'not_found');
        }
      }
    }
    // Still the owner's, unchanged: not cancelled, no intruder refund, the intent still open.
    const after = await Promise.all([getOrder(gateway, owner, paid.order.orderId), getOrder(gateway, owner, unpaid.orderId)]);
    expect(after.map((response) => response.text)).toEqual(before.map((response) => response.text));
    const intent = await call<RefundBody>(gateway.url, 'GET', `/order/${paid.order.orderId}/refund/${refund.refundId}`, { apiKey: owner.apiKey });
    expect(intent.body.status).toBe('open');
    expect((await call<{ items: RefundBody[] }>(gateway.url, 'GET', `/order/${paid.order.orderId}/refunds`, { apiKey: owner.apiKey })).body.items).toHaveLength(1);
  });

  it('does not tell a foreign id from a missing one', async () => {
    const foreign = await call(gateway.url, 'GET', `/order/${paid.order.orderId}`, { apiKey: intruder.apiKey });
    const missing = await call(gateway.url, 'GET', '/order/ord_00112233445566778899aabbccddeeff', { apiKey: intruder.apiKey });
    expect(foreign.text).toBe(missing.text);
    const foreignRefund = await call(gateway.url, 'GET', `/order/${paid.order.orderId}/refund/${refund.refundId}`, { apiKey: intruder.apiKey });
    const missingRefund = await call(gateway.url, 'GET', `/order/${paid.order.orderId}/refund/rfd_00112233445566778899aabbccddeeff`, { apiKey: intruder.apiKey });
    expect(foreignRefund.text).toBe(missingRefund.text);
  });

  it('refuses every route without a valid key (401) before reading the body', async () => {
    const routes = everyRoute({ orderId: paid.order.orderId, refundId: refund.refundId, payTo: owner.payTo }, { receipt: paid.receipt, signedReceipt: paid.signedReceipt });
    for (const entry of routes) {
      for (const apiKey of [undefined, 'tg_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
        const response = await call(gateway.url, entry.method, entry.path, { ...(apiKey === undefined ? {} : { apiKey }), ...(entry.method === 'POST' ? { raw: '{not json' } : {}) });
        expectError(response, 401, 'unauthorized');
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    }
  });
});

describe('order mode off', () => {
  for (const [label, env] of [
    ['by default', {}],
    ['with GATEWAY_ORDER_MODE=off', { GATEWAY_ORDER_MODE: 'off' }],
  ] as const) {
    it(`answers 404 not_found on every order route ${label}, even with a valid key and body`, async () => {
      const gateway: TestGateway = await startTestGateway({ ...stack.gatewayEnv, ...env });
      try {
        const merchant = await localMerchant(gateway);
        // Refs still work: only the order routes are gone.
        expect((await call(gateway.url, 'POST', '/ref', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local', amount: '1' } })).status).toBe(201);
        const routes = everyRoute(
          { orderId: 'ord_00112233445566778899aabbccddeeff', refundId: 'rfd_00112233445566778899aabbccddeeff', payTo: merchant.payTo },
          { receipt: { type: 'x402.payment.receipt' }, signedReceipt: `0x${'11'.repeat(65)}` },
        );
        for (const entry of routes) {
          for (const apiKey of [merchant.apiKey, undefined]) {
            const response: JsonResponse = await call(gateway.url, entry.method, entry.path, { ...(apiKey === undefined ? {} : { apiKey }), ...('json' in entry ? { json: entry.json } : {}) });
            expectError(response, 404, 'not_found');
          }
        }
      } finally {
        await gateway.close();
      }
    });
  }
});
