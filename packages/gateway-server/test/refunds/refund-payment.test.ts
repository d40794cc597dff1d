// A refund paid end to end on a real anvil chain: an order paid by its payer, a refund intent, the
// merchant's EIP-3009 transfer from its payTo back to the payer through /receive with refundOf, the signed
// refund receipt, the order's refund state, and /verify-refund-receipt on the reverse transfer.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundOfReceipt, verifySignedRefundReceipt } from '@tollgate/core';
import { receiptHash, refundReceiptHash, type AnyRefundReceipt } from '@tollgate/core/x402';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { decodeHeader, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { mine } from '../evidence/helpers';
import { createRefund, getOrder, getRefund, paidOrder, pathOf, payRefund, refundReceiptOf, startOrderGateway, verifyRefund } from './helpers';

const signingKey = generatePrivateKey();
const receiptSigner = privateKeyToAccount(signingKey).address;

let stack: PaymentStack;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack, { GATEWAY_SIGNING_KEY: signingKey });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

interface Verification {
  verified: boolean;
  kind: string;
  receiptHash: string;
  refundOf: string;
  signature: { valid: boolean; signer: string; role: string; reason: string };
  context: { valid: boolean; content: string; binding: string; fields: { field: string; source: string; match: boolean }[] };
  chain: { status: string; confirmed: boolean; confirmations: number; transfer: Record<string, unknown> | null; fields: { field: string; match: boolean }[] } | null;
}

describe('a refund paid through /receive with refundOf', () => {
  it('pays the payer back, answers a signed refund receipt, moves the order, and verifies on chain', async () => {
    const paid = await paidOrder(gateway, stack, { amount: '10000' });
    expect(paid.order).toMatchObject({ status: 'paid', refundable: '10000' });
    expect(paid.order.payment?.receiptHash).toBe(receiptHash(paid.receipt));

    const refund = await createRefund(gateway, paid, { amount: '4000', reason: 'one item returned' });
    expect(refund).toMatchObject({ status: 'open', amount: '4000', payer: paid.payer.address, payTo: paid.merchant.payTo, refundOf: refundOfReceipt(paid.receipt) });
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ refundReserved: '4000', refundable: '6000' });

    stack.resetCounts();
    const response = await payRefund(gateway, stack, refund, paid.merchant);
    expect(response.status, response.text).toBe(200);
    expect(stack.counts.settle).toBe(1);
    // The PAYMENT-RESPONSE header is the body.
    expect(decodeHeader(response.headers.get('payment-response'))).toEqual(response.body);
    const { receipt, signedReceipt } = refundReceiptOf(response);
    expect(response.body).toMatchObject({
      x402Version: 2,
      success: true,
      network: `eip155:${stack.setup.chainId}`,
      transaction: receipt.txHash,
      payer: paid.merchant.payTo,
      receiptStatus: 'issued',
      response: { code: 'settled', message: 'Refund settled.' },
    });
    expect(receipt).toMatchObject({
      type: 'x402.refund.receipt',
      version: 1,
      refundId: refund.refundId,
      orderId: paid.order.orderId,
      refId: refund.refId,
      refundOf: `sha256:${receiptHash(paid.receipt)}`,
      from: paid.merchant.payTo,
      to: paid.payer.address,
      amount: '4000',
      asset: stack.setup.usdc.address,
      chainId: stack.setup.chainId,
    });
    const signature = verifySignedRefundReceipt(signedReceipt, receipt, receiptSigner);
    expect(signature.valid).toBe(true);
    // The official x402 receipt artifact names the refund's payer too.
    const artifact = (response.body as { extensions: { 'offer-receipt': { info: { receipt: { payload: Record<string, unknown> } } } } }).extensions['offer-receipt'].info.receipt;
    expect(artifact.payload).toMatchObject({ payer: paid.merchant.payTo, transaction: receipt.txHash });

    // On chain: the merchant's payTo sent the payer 4000.
    const back = (await transfersTo(stack, paid.payer.address)).filter((transfer) => transfer.from === paid.merchant.payTo);
    expect(back.map((transfer) => [transfer.value, transfer.transactionHash])).toEqual([[4000n, receipt.txHash]]);

    // The order and the intent moved in the completion.
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ status: 'partially_refunded', refunded: '4000', refundReserved: '0', refundable: '6000' });
    expect(await getRefund(gateway, paid, refund.refundId)).toMatchObject({
      status: 'paid',
      payment: { txHash: receipt.txHash, receiptHash: refundReceiptHash(receipt as unknown as AnyRefundReceipt) },
    });

    // The same submission again: the same bytes, no second settle. Another payment of the paid intent:
    // refused before the facilitator (its ref takes one payment).
    const replayed = await call(gateway.url, 'GET', pathOf(refund.receiveUrl), { headers: { 'payment-signature': response.paymentSignature } });
    expect([replayed.status, replayed.text]).toEqual([200, response.text]);
    stack.resetCounts();
    const again = await payRefund(gateway, stack, refund, paid.merchant);
    expect(expectError(again, 402, 'payment_verification_failed')).toMatchObject({ field: 'ref', reason: 'refund_not_open', refundStatus: 'paid' });
    expect(stack.counts).toEqual({ settle: 0, verify: 0 });

    // /verify-refund-receipt: signature, binding (to the original receipt, and without it to the intent), chain.
    await mine(stack, 2);
    const withOriginal = await verifyRefund<Verification>(gateway, { signedReceipt, receipt, originalReceipt: paid.receipt, minConfirmations: 3 });
    expect(withOriginal.status, withOriginal.text).toBe(200);
    expect(withOriginal.body).toMatchObject({
      verified: true,
      kind: 'refund',
      refundOf: refund.refundOf,
      signature: { valid: true, signer: receiptSigner, role: 'current', reason: 'accepted' },
      context: { valid: true, content: 'signed', binding: 'original_receipt' },
      chain: { status: 'confirmed', confirmed: true, transfer: { from: paid.merchant.payTo, to: paid.payer.address, value: '4000' } },
    });
    expect(withOriginal.body.chain!.confirmations).toBeGreaterThanOrEqual(3);
    expect(withOriginal.body.context.fields.filter((entry) => entry.source === 'original_receipt').map((entry) => [entry.field, entry.match])).toEqual([
      ['refundOf', true],
      ['from', true],
      ['to', true],
      ['network', true],
      ['asset', true],
      ['amount', true],
    ]);
    const withIntent = await verifyRefund<Verification>(gateway, { signedReceipt, receipt, minConfirmations: 1 });
    expect(withIntent.body).toMatchObject({ verified: true, context: { binding: 'refund_intent' } });
    expect(withIntent.body.context.fields.filter((entry) => entry.source === 'refund_intent').every((entry) => entry.match)).toBe(true);
    // Too many confirmations asked: valid, not (yet) verified.
    const early = await verifyRefund<Verification>(gateway, { signedReceipt, receipt, minConfirmations: 1_000 });
    expect(early.body).toMatchObject({ verified: false, signature: { valid: true }, context: { valid: true }, chain: { status: 'unconfirmed', confirmed: false } });

    // The rest of the order: a second refund takes what is left, and the order is refunded.
    const rest = await createRefund(gateway, paid, { amount: '6000' });
    const second = await payRefund(gateway, stack, rest, paid.merchant);
    expect(second.status, second.text).toBe(200);
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ status: 'refunded', refunded: '10000', refundable: '0' });
  });

  it('still pays a refund from a payTo its merchant retired since (retiring stops receiving, not paying back)', async () => {
    const paid = await paidOrder(gateway, stack, { amount: '3000' });
    const refund = await createRefund(gateway, paid, { amount: '3000' });
    const retired = await call(gateway.url, 'POST', `/payto/${paid.merchant.payTo}/revoke`, { apiKey: paid.merchant.apiKey });
    expect(retired.status, retired.text).toBe(200);
    const response = await payRefund(gateway, stack, refund, paid.merchant);
    expect(response.status, response.text).toBe(200);
    expect(await getOrder(gateway, paid.merchant, paid.order.orderId)).toMatchObject({ status: 'refunded', refunded: '3000' });
  });
});
