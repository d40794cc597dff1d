// An order's life through HTTP on a real gateway and a real anvil chain: created, paid by the official
// x402 client through /receive, read back as paid with its payment (and an `order.paid` notification job
// enqueued with the settlement); the cancel rules around payments.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignedReceipt, type PaymentReceipt } from '@tollgate/core';
import { receiptHash } from '@tollgate/core/x402';
import { call, expectError, type JsonResponse, type TestMerchant } from '../helpers/gateway';
import { fundedPayer, officialPaymentHeader, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { createdOrder, getOrder, localMerchant, notificationJobs, payOrder, pathOf, startOrderGateway, type OrderBody, type OrderGateway } from './helpers';

let stack: PaymentStack;
let gateway: OrderGateway;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
  merchant = await localMerchant(gateway);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});
beforeEach(() => {
  stack.faults.beforeSettleResponse = undefined;
});

const nowSeconds = () => Math.floor(gateway.clock.now() / 1000);
const cancel = (orderId: string, apiKey = merchant.apiKey) => call<OrderBody>(gateway.url, 'POST', `/order/${orderId}/cancel`, { apiKey });
const submit = (path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });

describe('an order paid through /receive', () => {
  it('reads as paid with its payment, lists as paid, and has its order.paid notification job', async () => {
    const order = await createdOrder(gateway, merchant, { amount: '25000', invoiceId: 'LIFE-1', notifyUrl: 'https://hooks.example.com/orders', metadata: { sku: 'PRO-1Y' } });
    const unpaid = await call(gateway.url, 'GET', pathOf(order.receiveUrl));
    expect(unpaid.status).toBe(402);
    const payer = await fundedPayer(stack, 1_000_000n);
    const paid = await payOrder(gateway, stack, order, payer);
    expect(verifySignedReceipt(paid.signedReceipt, paid.receipt, gateway.receiptSigner).valid).toBe(true);
    expect(paid.receipt).toMatchObject({ refId: order.refId, invoiceId: 'LIFE-1', payTo: merchant.payTo, payer: payer.address, amount: '25000' });

    const read = await getOrder(gateway, merchant, order.orderId);
    expect(read.body).toEqual({
      ...order,
      status: 'paid',
      paidAt: nowSeconds(),
      payment: { paymentId: paid.receipt.paymentId, payer: payer.address, txHash: paid.transaction, receiptHash: receiptHash(paid.receipt) },
      refundable: '25000',
    });
    const listed = await call<{ items: OrderBody[] }>(gateway.url, 'GET', '/order?status=paid', { apiKey: merchant.apiKey });
    expect(listed.body.items.map((item) => item.orderId)).toContain(order.orderId);
    expect((await call<{ items: OrderBody[] }>(gateway.url, 'GET', '/order?status=unpaid', { apiKey: merchant.apiKey })).body.items.map((item) => item.orderId)).not.toContain(
      order.orderId,
    );
    const [transfer, ...more] = await transfersTo(stack, merchant.payTo);
    expect(more).toEqual([]);
    expect(transfer).toMatchObject({ from: payer.address, value: 25_000n, transactionHash: paid.transaction });

    // Enqueued in the settlement's transaction: it is there as soon as the payment's answer is.
    const jobs = await notificationJobs(gateway);
    const orderPaid = jobs.filter((job) => job.notification.event === 'order.paid' && JSON.stringify(job.notification).includes(order.orderId));
    expect(orderPaid).toHaveLength(1);
    expect(orderPaid[0]).toMatchObject({ merchantId: merchant.merchantId, url: 'https://hooks.example.com/orders' });
  });

  it('refuses a second payment of a paid order: one transfer, one payment', async () => {
    const shop = await localMerchant(gateway);
    const order = await createdOrder(gateway, shop);
    const first = await fundedPayer(stack, 100_000n);
    const second = await fundedPayer(stack, 100_000n);
    // Both authorizations are signed while the order is unpaid; only the first may settle.
    const headers = [await officialPaymentHeader(gateway, pathOf(order.receiveUrl), stack, first), await officialPaymentHeader(gateway, pathOf(order.receiveUrl), stack, second)];
    expect((await submit(pathOf(order.receiveUrl), headers[0]!.header)).status).toBe(200);
    const again = await submit(pathOf(order.receiveUrl), headers[1]!.header);
    expect(again.status, again.text).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
    expect(await transfersTo(stack, shop.payTo)).toHaveLength(1);
    expect((await getOrder(gateway, shop, order.orderId)).body.payment?.payer).toBe(first.address);
  });
});

describe('cancelling around payments', () => {
  it('refuses to cancel a paid order (409 not_cancellable) and leaves it paid', async () => {
    const order = await createdOrder(gateway, merchant);
    await payOrder(gateway, stack, order, await fundedPayer(stack, 100_000n));
    const refused = await cancel(order.orderId);
    expect(expectError(refused, 409, 'conflict')).toEqual({ reason: 'not_cancellable', status: 'paid', orderId: order.orderId });
    expect((await getOrder(gateway, merchant, order.orderId)).body.status).toBe('paid');
    expect((await call(gateway.url, 'GET', `/ref/${order.refId}`)).body['status']).toBe('active');
  });

  it("refuses a payment signed before the cancel with ref_revoked: no transfer, the order stays cancelled", async () => {
    const shop = await localMerchant(gateway);
    const order = await createdOrder(gateway, shop);
    const payer = await fundedPayer(stack, 100_000n);
    const { header } = await officialPaymentHeader(gateway, pathOf(order.receiveUrl), stack, payer);
    expect((await cancel(order.orderId, shop.apiKey)).status).toBe(200);
    stack.resetCounts();
    expectError(await submit(pathOf(order.receiveUrl), header), 410, 'ref_revoked');
    expect(stack.counts.settle).toBe(0);
    expect(await transfersTo(stack, shop.payTo)).toEqual([]);
    expect((await getOrder(gateway, shop, order.orderId)).body).toMatchObject({ status: 'cancelled', payment: null });
  });

  it('refuses to cancel while a payment of the order is being settled (409 payment_in_flight); the payment then settles', async () => {
    const shop = await localMerchant(gateway);
    const order = await createdOrder(gateway, shop);
    const { header } = await officialPaymentHeader(gateway, pathOf(order.receiveUrl), stack, await fundedPayer(stack, 100_000n));
    let duringSettle: JsonResponse<OrderBody> | undefined;
    // The transfer is mined and the claim is held: the facilitator has not answered yet.
    stack.faults.beforeSettleResponse = async () => {
      duringSettle = await cancel(order.orderId, shop.apiKey);
    };
    const paid = await submit(pathOf(order.receiveUrl), header);
    expect(paid.status, paid.text).toBe(200);
    expect(duringSettle).toBeDefined();
    expect(expectError(duringSettle as JsonResponse<unknown>, 409, 'conflict')).toEqual({ reason: 'payment_in_flight', orderId: order.orderId });
    expect((await getOrder(gateway, shop, order.orderId)).body.status).toBe('paid');
    expect(await transfersTo(stack, shop.payTo)).toHaveLength(1);
  });

  it('pays a cancelled order never: its 402 is refused before any signature', async () => {
    const order = await createdOrder(gateway, merchant);
    expect((await cancel(order.orderId)).status).toBe(200);
    expectError(await call(gateway.url, 'GET', pathOf(order.receiveUrl)), 410, 'ref_revoked');
  });
});

describe('the payment receipt of an order', () => {
  it('names the order’s ref and is what payment.receiptHash hashes', async () => {
    const order = await createdOrder(gateway, merchant, { amount: '1234' });
    const { receipt } = await payOrder(gateway, stack, order, await fundedPayer(stack, 10_000n));
    const read = (await getOrder(gateway, merchant, order.orderId)).body;
    expect((receipt as PaymentReceipt).refId).toBe(order.refId);
    expect(read.payment?.receiptHash).toBe(receiptHash(receipt));
    expect(read.payment?.receiptHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
