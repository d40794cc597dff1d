// The order routes through HTTP on a real gateway (order mode on): creation and its validation, the
// order's ref (an ordinary ref whose snapshot is exactly what POST /ref makes), reads, the status filter
// and its tamper-refusing cursor, cancellation and expiry. Paying orders: lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createRef, expectError, startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { createOrder, createdOrder, getOrder, localMerchant, pathOf, type OrderBody } from './helpers';

let gateway: TestGateway;
let merchant: TestMerchant;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_ORDER_MODE: 'on', GATEWAY_PUBLIC_URL: 'https://pay.example.com' });
  merchant = await localMerchant(gateway);
});
afterAll(async () => {
  await gateway?.close();
});

const nowSeconds = () => Math.floor(gateway.clock.now() / 1000);
const refusedField = async (fields: Record<string, unknown>) => expectError(await createOrder(gateway, merchant, fields), 400, 'invalid_request')['field'];

interface OrderPage {
  items: OrderBody[];
  nextCursor?: string;
}
const listOrders = (query: string, apiKey = merchant.apiKey) => call<OrderPage>(gateway.url, 'GET', `/order${query}`, { apiKey });

describe('POST /order', () => {
  it('creates an unpaid order with its fixed-amount ref, and answers it in full', async () => {
    const response = await createOrder(gateway, merchant, {
      amount: '2500000',
      invoiceId: 'ORD-2026-001',
      label: 'Pro plan',
      description: 'One year of Pro.\nRenews yearly.',
      expiresInSecs: 3600,
      notifyUrl: 'https://hooks.example.com/orders',
      metadata: { customerId: 'cus_42', 'plan.tier': 'pro' },
    });
    expect(response.status, response.text).toBe(201);
    const order = response.body;
    expect(order.orderId).toMatch(/^ord_[0-9a-f]{32}$/);
    expect(order.refId).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get('location')).toBe(`/order/${order.orderId}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(order).toEqual({
      orderId: order.orderId,
      status: 'unpaid',
      amount: '2500000',
      payTo: merchant.payTo,
      network: 'local',
      asset: 'USDC',
      invoiceId: 'ORD-2026-001',
      label: 'Pro plan',
      description: 'One year of Pro.\nRenews yearly.',
      metadata: { customerId: 'cus_42', 'plan.tier': 'pro' },
      notifyUrl: 'https://hooks.example.com/orders',
      refId: order.refId,
      refUrl: `https://pay.example.com/ref/${order.refId}`,
      payUrl: `https://pay.example.com/pay/${order.refId}`,
      receiveUrl: `https://pay.example.com/receive/${merchant.payTo}?ref=${order.refId}`,
      createdAt: nowSeconds(),
      expiresAt: nowSeconds() + 3600,
      paidAt: null,
      cancelledAt: null,
      payment: null,
      refunded: '0',
      refundReserved: '0',
      refundable: '0',
    });
    expect(Object.keys(order.metadata ?? {})).toEqual(['customerId', 'plan.tier']);
    const read = await getOrder(gateway, merchant, order.orderId);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(order);
  });

  it("makes the order's ref exactly the ref POST /ref makes with the same fields", async () => {
    const fields = { amount: '777', description: 'Same terms', expiresInSecs: 900, label: 'L' };
    const order = await createdOrder(gateway, merchant, { ...fields, invoiceId: 'SNAP-ORDER' });
    const ref = await createRef(gateway.url, merchant, { ...fields, network: 'local', invoiceId: 'SNAP-REF' });
    expect(ref.status, ref.text).toBe(201);
    const orderRef = await call(gateway.url, 'GET', `/ref/${order.refId}`);
    expect(orderRef.status).toBe(200);
    expect(orderRef.body['status']).toBe('active');
    const normalise = (snapshot: unknown, refId: string, invoiceId: string) => JSON.stringify(snapshot).replaceAll(refId, '<ref>').replace(invoiceId, '<invoice>');
    expect(normalise(orderRef.body['snapshot'], order.refId, 'SNAP-ORDER')).toBe(normalise(ref.body['snapshot'], ref.body['refId'] as string, 'SNAP-REF'));
    expect((orderRef.body['snapshot'] as { resource: string }).resource).toBe(order.receiveUrl);
    // The 402 of the order's receive URL asks for exactly the order's amount.
    const negotiation = await call(gateway.url, 'GET', pathOf(order.receiveUrl));
    expect(negotiation.status).toBe(402);
  });

  it('requires a positive atomic amount, and refuses unknown fields', async () => {
    expect(await refusedField({ amount: undefined })).toBe('amount');
    for (const amount of ['0', '01', '-1', '1.5', '1e3', '', (2n ** 256n).toString()]) expect(await refusedField({ amount })).toBe('amount');
    expect(await refusedField({ amount: 10000 })).toBe('amount');
    expect(await refusedField({ amout: '1' })).toBe('amout');
    expect(await refusedField({ asset: 'USDT' })).toBe('asset');
    expect(await refusedField({ network: 'nowhere' })).toBe('network');
    expect(await refusedField({ payTo: '0x1234' })).toBe('payTo');
    expect(await refusedField({ invoiceId: 'INV 1' })).toBe('invoiceId');
    expect(await refusedField({ label: 'é'.repeat(61) })).toBe('label');
    expect(await refusedField({ description: '😀'.repeat(129) })).toBe('description');
    expect(await refusedField({ description: 'evil\u202etxt' })).toBe('description');
    expect(await refusedField({ expiresInSecs: 0 })).toBe('expiresInSecs');
    expect(await refusedField({ notifyUrl: 'http://hooks.example.com' })).toBe('notifyUrl');
  });

  it('bounds metadata: a flat object of ≤ 20 string values of ≤ 500 bytes, keys ≤ 40 characters, ≤ 4 KiB', async () => {
    const keys = (count: number, value = 'v') => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, value]));
    await createdOrder(gateway, merchant, { metadata: keys(20) });
    await createdOrder(gateway, merchant, { metadata: { [`a${'b'.repeat(39)}`]: 'é'.repeat(250) } });
    await createdOrder(gateway, merchant, { metadata: {} });
    expect(await refusedField({ metadata: keys(21) })).toBe('metadata');
    expect(await refusedField({ metadata: { [`a${'b'.repeat(40)}`]: 'v' } })).toBe('metadata');
    expect(await refusedField({ metadata: { x: `${'é'.repeat(250)}a` } })).toBe('metadata');
    // 9 values of 490 bytes: each fits, together they are over 4 KiB.
    expect(await refusedField({ metadata: keys(9, 'x'.repeat(490)) })).toBe('metadata');
    for (const metadata of [[], 'text', 1, null, { nested: { a: 'b' } }, { list: ['a'] }, { n: 1 }, { b: true }, { z: null }, { '': 'v' }, { '1st': 'v' }, { 'a b': 'v' }, { __proto__x: 'v' }, { bell: '\u0007' }]) {
      expect(await refusedField({ metadata }), JSON.stringify(metadata)).toBe('metadata');
    }
    // A `__proto__` key is data like any other, never a prototype: refused by the key rule, not swallowed.
    const proto = await call(gateway.url, 'POST', '/order', { apiKey: merchant.apiKey, raw: `{"payTo":"${merchant.payTo}","network":"local","amount":"1","metadata":{"__proto__":"x"}}` });
    expectError(proto, 400, 'invalid_request');
  });

  it('refuses a payTo that is not the caller’s, and a taken invoiceId with conflict', async () => {
    const other = await localMerchant(gateway);
    expectError(await createOrder(gateway, merchant, { payTo: other.payTo }), 404, 'not_found');
    await createdOrder(gateway, merchant, { invoiceId: 'TAKEN-1' });
    const details = expectError(await createOrder(gateway, merchant, { invoiceId: 'TAKEN-1' }), 409, 'conflict');
    expect(details).toMatchObject({ field: 'invoiceId', reason: 'invoice_taken', refId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('needs the bearer key', async () => {
    const response = await call(gateway.url, 'POST', '/order', { json: { payTo: merchant.payTo, network: 'local', amount: '1' } });
    expectError(response, 401, 'unauthorized');
    expectError(await call(gateway.url, 'GET', '/order', { apiKey: 'tg_live_not-a-real-key' }), 401, 'unauthorized');
  });
});

describe('GET /order', () => {
  let shop: TestMerchant;
  const created: OrderBody[] = [];
  beforeAll(async () => {
    shop = await localMerchant(gateway);
    for (let index = 0; index < 5; index++) {
      created.push(await createdOrder(gateway, shop, { invoiceId: `LIST-${index}` }));
      gateway.clock.advance(1_000);
    }
    const cancelled = await call(gateway.url, 'POST', `/order/${created[1]!.orderId}/cancel`, { apiKey: shop.apiKey });
    expect(cancelled.status).toBe(200);
  });

  it('pages newest first with an opaque cursor, filtered by status', async () => {
    const first = await listOrders('?limit=2', shop.apiKey);
    expect(first.status).toBe(200);
    expect(first.body.items.map((order) => order.orderId)).toEqual([created[4]!.orderId, created[3]!.orderId]);
    const second = await listOrders(`?limit=2&cursor=${first.body.nextCursor}`, shop.apiKey);
    expect(second.body.items.map((order) => order.orderId)).toEqual([created[2]!.orderId, created[1]!.orderId]);
    const third = await listOrders(`?limit=2&cursor=${second.body.nextCursor}`, shop.apiKey);
    expect(third.body.items.map((order) => order.orderId)).toEqual([created[0]!.orderId]);
    expect(third.body).not.toHaveProperty('nextCursor');

    const unpaid = await listOrders('?status=unpaid', shop.apiKey);
    expect(unpaid.body.items.map((order) => order.orderId)).toEqual([4, 3, 2, 0].map((index) => created[index]!.orderId));
    const cancelled = await listOrders('?status=cancelled', shop.apiKey);
    expect(cancelled.body.items.map((order) => [order.orderId, order.status])).toEqual([[created[1]!.orderId, 'cancelled']]);
    expect((await listOrders('?status=paid', shop.apiKey)).body).toEqual({ items: [] });
  });

  it('refuses an altered cursor, one of another filter or merchant, and a ref list cursor', async () => {
    const page = await listOrders('?limit=1&status=unpaid', shop.apiKey);
    const cursor = page.body.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const at = cursor.length - 5;
    const flipped = `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
    expect(expectError(await listOrders(`?status=unpaid&cursor=${flipped}`, shop.apiKey), 400, 'invalid_request')['field']).toBe('cursor');
    expectError(await listOrders(`?status=paid&cursor=${cursor}`, shop.apiKey), 400, 'invalid_request');
    expectError(await listOrders(`?cursor=${cursor}`, shop.apiKey), 400, 'invalid_request');
    expectError(await listOrders(`?status=unpaid&cursor=${cursor}`, merchant.apiKey), 400, 'invalid_request');
    const refs = await call<{ nextCursor: string }>(gateway.url, 'GET', `/ref?pay_to=${shop.payTo}&limit=1`, { apiKey: shop.apiKey });
    expectError(await listOrders(`?cursor=${refs.body.nextCursor}`, shop.apiKey), 400, 'invalid_request');
  });

  it('refuses bad filters and limits', async () => {
    for (const query of ['?status=open', '?status=', '?limit=0', '?limit=101', '?limit=1.5', '?limit=-1', '?cursor=', '?unknown=1']) {
      expectError(await listOrders(query, shop.apiKey), 400, 'invalid_request');
    }
  });
});

describe('POST /order/:orderId/cancel', () => {
  it('cancels an unpaid order, revokes its ref, and answers the same again', async () => {
    const order = await createdOrder(gateway, merchant);
    gateway.clock.advance(2_000);
    // A 402 first: this instance now caches the ref as active, and the clock stands still from here, so
    // only the cancel's ref_revoked event can make the next negotiation see the revocation.
    expect((await call(gateway.url, 'GET', pathOf(order.receiveUrl))).status).toBe(402);
    const cancelled = await call<OrderBody>(gateway.url, 'POST', `/order/${order.orderId}/cancel`, { apiKey: merchant.apiKey });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toEqual({ ...order, status: 'cancelled', cancelledAt: nowSeconds() });
    const again = await call<OrderBody>(gateway.url, 'POST', `/order/${order.orderId}/cancel`, { apiKey: merchant.apiKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect((await call(gateway.url, 'GET', `/ref/${order.refId}`)).body['status']).toBe('revoked');
    expectError(await call(gateway.url, 'GET', pathOf(order.receiveUrl)), 410, 'ref_revoked');
    expect((await getOrder(gateway, merchant, order.orderId)).body).toEqual(cancelled.body);
  });

  it("refuses to revoke an order's ref through POST /ref/:refId/revoke: the order is cancelled instead", async () => {
    const order = await createdOrder(gateway, merchant);
    const refused = expectError(await call(gateway.url, 'POST', `/ref/${order.refId}/revoke`, { apiKey: merchant.apiKey }), 409, 'conflict');
    expect(refused).toMatchObject({ reason: 'use_order_routes', kind: 'payment' });
    expect((await call(gateway.url, 'GET', `/ref/${order.refId}`)).body['status']).toBe('active');
    expect((await getOrder(gateway, merchant, order.orderId)).body['status']).toBe('unpaid');
    // Another merchant learns nothing: its revoke is the not_found of a missing ref.
    const stranger = await localMerchant(gateway);
    expectError(await call(gateway.url, 'POST', `/ref/${order.refId}/revoke`, { apiKey: stranger.apiKey }), 404, 'not_found');
  });

  it('answers not_found for malformed and unknown ids', async () => {
    for (const id of ['ord_00', 'nope', 'ord_00112233445566778899aabbccddeeff', 'ORD_00112233445566778899AABBCCDDEEFF']) {
      expectError(await call(gateway.url, 'POST', `/order/${id}/cancel`, { apiKey: merchant.apiKey }), 404, 'not_found');
      expectError(await getOrder(gateway, merchant, id), 404, 'not_found');
    }
  });
});

describe('expiry', () => {
  it('reads an unpaid order past its expiry as expired: listed as such, not cancellable, its ref refuses payment', async () => {
    const shop = await localMerchant(gateway);
    const order = await createdOrder(gateway, shop, { expiresInSecs: 60 });
    const fresh = await createdOrder(gateway, shop, { expiresInSecs: 3600 });
    gateway.clock.advance(59_000);
    expect((await getOrder(gateway, shop, order.orderId)).body.status).toBe('unpaid');
    gateway.clock.advance(1_000);
    expect((await getOrder(gateway, shop, order.orderId)).body).toEqual({ ...order, status: 'expired' });
    expect((await listOrders('?status=expired', shop.apiKey)).body.items.map((item) => item.orderId)).toEqual([order.orderId]);
    expect((await listOrders('?status=unpaid', shop.apiKey)).body.items.map((item) => item.orderId)).toEqual([fresh.orderId]);
    const refused = await call(gateway.url, 'POST', `/order/${order.orderId}/cancel`, { apiKey: shop.apiKey });
    expect(expectError(refused, 409, 'conflict')).toMatchObject({ reason: 'not_cancellable', status: 'expired' });
    expectError(await call(gateway.url, 'GET', pathOf(order.receiveUrl)), 410, 'ref_expired');
  });
});
