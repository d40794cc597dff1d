// A refund the merchant's authorization moved on chain without the gateway's settle (someone submitted it
// to the token directly): POST /recover-settlement records it from chain evidence with a REFUND receipt,
// the intent and the order move as for a settled refund, and the facilitator is never asked to settle.
// Also: /verify-refund-receipt spends /verify-receipt's rate-limit budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptHash } from '@tollgate/core/x402';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { officialPaymentHeader, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { executeAuthorization, recover } from '../helpers/recovery-app';
import { createRefund, getOrder, getRefund, paidOrder, pathOf, refundReceiptOf, startOrderGateway, verifyRefund } from './helpers';

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

describe('recovering a refund settled outside the gateway', () => {
  it('records it with a refund receipt, moves the intent and the order, and never calls settle', async () => {
    const paid = await paidOrder(gateway, stack, { amount: '8000' });
    const refund = await createRefund(gateway, paid, { amount: '3000' });
    const path = pathOf(refund.receiveUrl);
    const { header, payload } = await officialPaymentHeader(gateway, path, stack, paid.merchant.account);
    const { txHash } = await executeAuthorization(stack, payload);
    stack.resetCounts();

    const recovered = await recover(gateway.url, { refId: refund.refId, paymentPayload: header, txHash });
    expect(recovered.status, recovered.text).toBe(200);
    const { receipt } = refundReceiptOf(recovered);
    expect(receipt).toMatchObject({ type: 'x402.refund.receipt', refundId: refund.refundId, from: paid.merchant.payTo, to: paid.payer.address, amount: '3000', txHash, refundOf: `sha256:${receiptHash(paid.receipt)}` });
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({ status: 'paid', payment: { txHash } });
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ status: 'partially_refunded', refunded: '3000', refundReserved: '0' });

    // The payer's own submission of the same payment gets the recorded answer.
    const submitted = await call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });
    expect([submitted.status, submitted.text]).toEqual([200, recovered.text]);
    expect(stack.counts.settle).toBe(0);
    const verified = await verifyRefund<{ verified: boolean }>(gateway, { ...refundReceiptOf(recovered), originalReceipt: paid.receipt, minConfirmations: 1 });
    expect(verified.body.verified).toBe(true);
  });
});

describe('rate limits', () => {
  it('/verify-refund-receipt and /verify-receipt share one budget per client', async () => {
    const limited = await startOrderGateway(stack, { GATEWAY_RATE_LIMIT_VERIFY_RECEIPT: '3/3600' });
    try {
      const body = { signedReceipt: '0x00', receipt: {}, minConfirmations: 1 };
      for (const path of ['/verify-receipt', '/verify-refund-receipt', '/verify-receipt']) expectError(await call(limited.url, 'POST', path, { json: body }), 422, 'receipt_invalid');
      expectError(await call(limited.url, 'POST', '/verify-refund-receipt', { json: body }), 429, 'rate_limited');
    } finally {
      await limited.close();
    }
  });
});
