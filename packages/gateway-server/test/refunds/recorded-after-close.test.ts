// A transfer mined before its ref was closed is still recorded by recovery: an order's payment that the
// payer executed on chain directly before the merchant cancelled the order, and a refund the merchant
// executed directly before rejecting it (or letting it expire). Found by a review: both used to be
// answered ref_revoked by /recover-settlement and recorded nowhere, and the rejected refund's amount
// could then be refunded a second time with no trace of the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, registerMerchant, type TestGateway } from '../helpers/gateway';
import { fundedPayer, officialPaymentHeader, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { executeAuthorization, recover } from '../helpers/recovery-app';
import { createRefund, getOrder, getRefund, paidOrder, pathOf, startOrderGateway, type OrderBody, type RefundBody } from './helpers';

let stack: PaymentStack;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

/** Puts the gateway's (manual) clock a little behind the chain's, so that refs created now predate the next block. */
async function behindTheChain(): Promise<void> {
  const latest = await stack.chain.getBlock();
  gateway.clock.set(Number(latest.timestamp) * 1000 - 5_000);
}

/**
 * Executes the authorization on chain directly, then moves the gateway's clock (a manual one) to
 * `afterMs` past the block's time: what the gateway does next happens after the transfer was mined.
 */
async function executeThenWait(payload: unknown, afterMs: number): Promise<`0x${string}`> {
  const { txHash, blockNumber } = await executeAuthorization(stack, payload);
  const block = await stack.chain.getBlock({ blockNumber });
  gateway.clock.set(Math.max(gateway.clock.now(), Number(block.timestamp) * 1000) + afterMs);
  return txHash;
}

describe('recovery of a transfer mined before its ref was closed', () => {
  it('records an order payment executed on chain before the order was cancelled: the order reads paid', async () => {
    await behindTheChain();
    const merchant = await registerMerchant(gateway.url, { network: 'local' });
    const created = await call<OrderBody>(gateway.url, 'POST', '/order', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local', amount: '5000' } });
    expect(created.status, created.text).toBe(201);
    const payer = await fundedPayer(stack, 1_000_000n);
    const { header, payload } = await officialPaymentHeader(gateway, pathOf(created.body.receiveUrl), stack, payer);
    const txHash = await executeThenWait(payload, 2_000);
    const cancelled = await call<OrderBody>(gateway.url, 'POST', `/order/${created.body.orderId}/cancel`, { apiKey: merchant.apiKey });
    expect(cancelled.body.status).toBe('cancelled');

    const recovered = await recover(gateway.url, { refId: created.body.refId, paymentPayload: header, txHash });
    expect(recovered.status, recovered.text).toBe(200);
    const order = await getOrder(gateway, merchant, created.body.orderId);
    expect(order).toMatchObject({ status: 'paid', cancelledAt: null, payment: { txHash, payer: payer.address } });
    // New payments are still refused: the ref stays revoked.
    expect((await call(gateway.url, 'GET', pathOf(created.body.receiveUrl))).status).toBe(410);
  });

  it('records a refund executed on chain before it was rejected, and marks a second refund of that amount over-refunded', async () => {
    await behindTheChain();
    const paid = await paidOrder(gateway, stack, { amount: '8000' });
    const refund = await createRefund(gateway, paid, { amount: '8000' });
    const { header, payload } = await officialPaymentHeader(gateway, pathOf(refund.receiveUrl), stack, paid.merchant.account);
    const txHash = await executeThenWait(payload, 2_000);
    const rejected = await call<RefundBody>(gateway.url, 'POST', `/order/${paid.order.orderId}/refund/${refund.refundId}/reject`, {
      apiKey: paid.merchant.apiKey,
      json: { reason: 'no' },
    });
    expect(rejected.body.status).toBe('rejected');
    // The released amount is taken by a second intent before anyone recovers the first refund.
    const second = await createRefund(gateway, paid, { amount: '8000' });
    expect(second.status).toBe('open');

    const recovered = await recover(gateway.url, { refId: refund.refId, paymentPayload: header, txHash });
    expect(recovered.status, recovered.text).toBe(200);
    const first = await getRefund(gateway, paid, refund.refundId);
    expect(first).toMatchObject({ status: 'paid', payment: { txHash }, rejection: rejected.body.rejection });
    // The chain is recorded, not refused: refunded 8000 of 8000 with 8000 still reserved by the second
    // intent, so nothing more is refundable.
    const order = await getOrder(gateway, paid.merchant, paid.order.orderId);
    expect(order).toMatchObject({ status: 'refunded', refunded: '8000', refundReserved: '8000', refundable: '0' });
    const third = await call(gateway.url, 'POST', `/order/${paid.order.orderId}/refund`, { apiKey: paid.merchant.apiKey, json: { amount: '1' } });
    expect(third.status).toBe(409);
  });

  it('records a refund executed on chain before its intent expired and was released', async () => {
    await behindTheChain();
    const paid = await paidOrder(gateway, stack, { amount: '6000' });
    const refund = await createRefund(gateway, paid, { amount: '2000', expiresInSecs: 60 });
    const { header, payload } = await officialPaymentHeader(gateway, pathOf(refund.receiveUrl), stack, paid.merchant.account);
    const txHash = await executeThenWait(payload, 61_000);
    // The next intent releases the expired one (its ref is revoked now).
    const next = await createRefund(gateway, paid, { amount: '1000' });
    expect(next.status).toBe('open');
    expect((await getRefund(gateway, paid, refund.refundId)).status).toBe('expired');

    const recovered = await recover(gateway.url, { refId: refund.refId, paymentPayload: header, txHash });
    expect(recovered.status, recovered.text).toBe(200);
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({ status: 'paid', payment: { txHash } });
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({
      status: 'partially_refunded',
      refunded: '2000',
      refundReserved: '1000',
      refundable: '3000',
    });
  });
});
