// Refund payments that must not happen are refused before the facilitator is ever asked (its /verify and
// /settle calls are counted): a wrong or missing refundOf, refundOf on a payment ref, someone other than
// the merchant's payTo paying, a wrong amount, a rejected intent, an expired intent; and outside order
// mode no refund is payable at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { encodePayment, fundedPayer, signPayment, startPaymentStack, tokenOf, transfersTo, type PaymentStack } from '../helpers/payments';
import { createRefund, getOrder, getRefund, paidOrder, pathOf, refundRequirement, startOrderGateway, submitRefundPayment, type PaidOrder, type RefundBody } from './helpers';

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidOrder;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
  paid = await paidOrder(gateway, stack, { amount: '10000' });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

/** A query with `refundOf` replaced (`undefined` removes it). */
function withRefundOf(refund: RefundBody, refundOf: string | undefined): string {
  const url = new URL(refund.receiveUrl);
  if (refundOf === undefined) url.searchParams.delete('refundOf');
  else url.searchParams.set('refundOf', refundOf);
  return `${url.pathname}${url.search}`;
}

/** Runs `attempt` and asserts the facilitator was not asked anything. */
async function beforeFacilitator<T>(attempt: () => Promise<T>): Promise<T> {
  stack.resetCounts();
  const result = await attempt();
  expect(stack.counts).toEqual({ settle: 0, verify: 0 });
  return result;
}

describe('refund payments refused before the facilitator', () => {
  it('refuses a wrong, malformed or missing refundOf, in the 402 negotiation and with a payment', async () => {
    const refund = await createRefund(gateway, paid, { amount: '1000' });
    const other = `sha256:${'ab'.repeat(32)}`;
    for (const [refundOf, reason] of [
      [other, 'refund_of_mismatch'],
      [refund.refundOf.toUpperCase().replace('SHA256', 'sha256'), 'refund_of_malformed'],
      ['sha256:12', 'refund_of_malformed'],
      [undefined, 'refund_of_required'],
    ] as const) {
      const path = withRefundOf(refund, refundOf);
      expect(expectError(await call(gateway.url, 'GET', path), 400, 'invalid_request'), path).toMatchObject({ field: 'refundOf', reason });
      const response = await beforeFacilitator(() => submitRefundPayment(gateway, stack, refund, paid.merchant.account, { path }));
      expect(expectError(response, 400, 'invalid_request'), path).toMatchObject({ field: 'refundOf', reason });
    }
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({ status: 'open', payment: null });
  });

  it('refuses refundOf on an ordinary payment ref', async () => {
    const order = await call<{ receiveUrl: string }>(gateway.url, 'POST', '/order', { apiKey: paid.merchant.apiKey, json: { payTo: paid.merchant.payTo, network: 'local', amount: '500' } });
    expect(order.status, order.text).toBe(201);
    const path = `${pathOf(order.body.receiveUrl)}&refundOf=${encodeURIComponent(paid.order.payment!.receiptHash.replace(/^/, 'sha256:'))}`;
    expect(expectError(await call(gateway.url, 'GET', path), 400, 'invalid_request')).toMatchObject({ field: 'refundOf', reason: 'not_a_refund_ref' });
  });

  it('refuses a refund paid by anyone but the order payTo: the payer itself, or a stranger', async () => {
    const refund = await createRefund(gateway, paid, { amount: '1000' });
    const stranger = await fundedPayer(stack, 5_000n);
    for (const signer of [paid.payer, stranger]) {
      const response = await beforeFacilitator(() => submitRefundPayment(gateway, stack, refund, signer));
      expect(expectError(response, 402, 'payment_verification_failed')).toMatchObject({ field: 'payload.authorization.from', reason: 'refund_payer_mismatch', expected: paid.merchant.payTo });
    }
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({ status: 'open' });
  });

  it('refuses a wrong amount: in the query, or in the signed authorization', async () => {
    const refund = await createRefund(gateway, paid, { amount: '1000' });
    const path = `${pathOf(refund.receiveUrl)}&amount=999`;
    expect(expectError(await call(gateway.url, 'GET', path), 400, 'invalid_request')).toMatchObject({ field: 'amount', reason: 'fixed_amount_mismatch' });
    for (const amount of ['999', '1001', '10000']) {
      const response = await beforeFacilitator(() => submitRefundPayment(gateway, stack, refund, paid.merchant.account, { alter: (accepted) => ({ ...accepted, amount }) }));
      expectError(response, 402, 'payment_verification_failed');
    }
    // The authorization's value differs from an unchanged `accepted`.
    const { accepted, resource } = await refundRequirement(gateway, refund);
    const payload = await signPayment(tokenOf(stack), paid.merchant.account, { ...accepted, amount: '1001' });
    const tampered = { ...payload, accepted, resource };
    const response = await beforeFacilitator(() => call(gateway.url, 'GET', pathOf(refund.receiveUrl), { headers: { 'payment-signature': encodePayment(tampered) } }));
    expect(expectError(response, 402, 'payment_verification_failed')).toMatchObject({ field: 'authorization.value' });
  });

  it('refuses a rejected intent with ref_revoked, also for an authorization signed before the rejection', async () => {
    const before = await getOrder(gateway, paid.merchant, paid.order.orderId);
    const refund = await createRefund(gateway, paid, { amount: '1500' });
    const { accepted, resource } = await refundRequirement(gateway, refund);
    const payload = await signPayment(tokenOf(stack), paid.merchant.account, accepted);
    const rejected = await call(gateway.url, 'POST', `/order/${paid.order.orderId}/refund/${refund.refundId}/reject`, { apiKey: paid.merchant.apiKey, json: { reason: 'no' } });
    expect(rejected.status, rejected.text).toBe(200);
    expectError(await call(gateway.url, 'GET', pathOf(refund.receiveUrl)), 410, 'ref_revoked');
    const response = await beforeFacilitator(() => call(gateway.url, 'GET', pathOf(refund.receiveUrl), { headers: { 'payment-signature': encodePayment({ ...payload, resource }) } }));
    expectError(response, 410, 'ref_revoked');
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({ status: 'rejected', payment: null });
    // The reservation was released; nothing was refunded.
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ refunded: before.refunded, refundReserved: before.refundReserved });
  });

  it('refuses an expired intent with ref_expired, also for an authorization signed before it expired', async () => {
    const refund = await createRefund(gateway, paid, { amount: '1000', expiresInSecs: 60 });
    const { accepted, resource } = await refundRequirement(gateway, refund);
    const payload = await signPayment(tokenOf(stack), paid.merchant.account, accepted);
    gateway.clock.advance(61_000);
    try {
      const response = await beforeFacilitator(() => call(gateway.url, 'GET', pathOf(refund.receiveUrl), { headers: { 'payment-signature': encodePayment({ ...payload, resource }) } }));
      expectError(response, 410, 'ref_expired');
      expect((await getRefund(gateway, paid, refund.refundId)).status).toBe('expired');
    } finally {
      gateway.clock.advance(-61_000);
    }
    const back = (await transfersTo(stack, paid.payer.address)).filter((transfer) => transfer.from === paid.merchant.payTo);
    expect(back).toEqual([]);
  });
});

describe('outside order mode', () => {
  it('refuses refundOf on any ref, as before order mode existed', async () => {
    const off = await startOrderGateway(stack, { GATEWAY_ORDER_MODE: 'off' });
    try {
      const path = `/receive/${paid.payer.address}?ref=${'0'.repeat(32)}&refundOf=sha256:${'ab'.repeat(32)}`;
      expect(expectError(await call(off.url, 'GET', path), 400, 'invalid_request')).toMatchObject({ field: 'refundOf', reason: 'not_enabled' });
    } finally {
      await off.close();
    }
  });
});
