// POST /verify-refund-receipt on a real anvil chain: a paid refund's receipt and both rejected-refund
// receipts (of an intent, and the stateless one) verify; every tampered field, a foreign signer, and an
// original receipt the refund is not bound to are `receipt_invalid` with evidence naming the field; a
// rotated-out key still verifies; the merchant access policy hides other merchants' refunds.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRefundReceipt, type AnyRefundReceipt } from '@tollgate/core/x402';
import { call, expectError, registerMerchant, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { mismatched, type VerificationField } from '../helpers/verification';
import { createRefund, paidOrder, payRefund, refundReceiptOf, startOrderGateway, verifyRefund, type PaidOrder } from './helpers';

const previousKey = generatePrivateKey();
const previousSigner = privateKeyToAccount(previousKey);
const signingKey = generatePrivateKey();
const receiptSigner = privateKeyToAccount(signingKey).address;

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidOrder;
let refunded: { receipt: Record<string, unknown> & { type: string; txHash: string; amount: string }; signedReceipt: string };

interface Verification {
  verified: boolean;
  kind: string;
  receiptHash: string;
  refundOf: string;
  signature: { valid: boolean; signer: string | null; role: string | null; reason: string };
  context: { valid: boolean; content: string; binding: string; fields: VerificationField[] };
  chain: { status: string; confirmed: boolean } | null;
}

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack, { GATEWAY_SIGNING_KEY: signingKey, GATEWAY_PREVIOUS_RECEIPT_SIGNERS: previousSigner.address });
  paid = await paidOrder(gateway, stack, { amount: '10000' });
  const refund = await createRefund(gateway, paid, { amount: '2500' });
  const response = await payRefund(gateway, stack, refund, paid.merchant);
  expect(response.status, response.text).toBe(200);
  refunded = refundReceiptOf(response);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

describe('rejected-refund receipts', () => {
  it('verifies the signed rejection of an intent: signature and binding, no chain part', async () => {
    const refund = await createRefund(gateway, paid, { amount: '1000' });
    const rejected = await call<{ rejection: { receipt: Record<string, unknown>; signedReceipt: string } }>(gateway.url, 'POST', `/order/${paid.order.orderId}/refund/${refund.refundId}/reject`, {
      apiKey: paid.merchant.apiKey,
      json: { reason: 'outside the return window' },
    });
    expect(rejected.status, rejected.text).toBe(200);
    const { receipt, signedReceipt } = rejected.body.rejection;
    expect(receipt).toMatchObject({ type: 'x402.refund.rejected', refundId: refund.refundId, orderId: paid.order.orderId, refundOf: refund.refundOf });
    for (const body of [{ signedReceipt, receipt, minConfirmations: 1 }, { signedReceipt, receipt, originalReceipt: paid.receipt, minConfirmations: 1 }]) {
      const response = await verifyRefund<Verification>(gateway, body);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        verified: true,
        kind: 'rejected_refund',
        refundOf: refund.refundOf,
        signature: { valid: true, signer: receiptSigner, role: 'current' },
        context: { valid: true, content: 'signed', binding: 'originalReceipt' in body ? 'original_receipt' : 'signed_only' },
        chain: null,
      });
    }
    // Bound to another payment's receipt: the binding fails, named field by field.
    const other = await paidOrder(gateway, stack, { amount: '700' });
    const wrong = await verifyRefund(gateway, { signedReceipt, receipt, originalReceipt: other.receipt, minConfirmations: 1 });
    const details = expectError(wrong, 422, 'receipt_invalid') as { reason: string; context: { fields: VerificationField[] } };
    expect(details.reason).toBe('context');
    expect(mismatched(details.context.fields)).toEqual(expect.arrayContaining(['refundOf', 'originalPayer', 'originalPayTo']));
  });

  it('verifies the stateless rejected-refund receipt', async () => {
    const signed = await call<{ receipt: Record<string, unknown>; signedReceipt: string }>(gateway.url, 'POST', '/refund-receipt/rejected', {
      apiKey: paid.merchant.apiKey,
      json: { receipt: paid.receipt, signedReceipt: paid.signedReceipt, reason: 'chargeback' },
    });
    expect(signed.status, signed.text).toBe(200);
    const response = await verifyRefund<Verification>(gateway, { signedReceipt: signed.body.signedReceipt, receipt: signed.body.receipt, originalReceipt: paid.receipt, minConfirmations: 0 });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ verified: true, kind: 'rejected_refund', context: { valid: true, binding: 'original_receipt' }, chain: null });
    expect(signed.body.receipt).not.toHaveProperty('refundId');
  });
});

describe('tampered refund receipts', () => {
  it('refuses every changed field with receipt_invalid; the stored receipt names what differs', async () => {
    const changes: Record<string, unknown> = {
      amount: '9999',
      to: privateKeyToAccount(generatePrivateKey()).address,
      from: paid.payer.address,
      refundOf: `sha256:${'cd'.repeat(32)}`,
      txHash: `0x${'ab'.repeat(32)}`,
      issuedAt: (refunded.receipt['issuedAt'] as number) + 1,
      extra: 'field',
    };
    for (const [field, value] of Object.entries(changes)) {
      const receipt = { ...refunded.receipt, [field]: value };
      const response = await verifyRefund(gateway, { signedReceipt: refunded.signedReceipt, receipt, minConfirmations: 1 });
      const details = expectError(response, 422, 'receipt_invalid') as { reason: string; signature: { valid: boolean; reason: string }; context: { content: string; fields: VerificationField[] } };
      expect(details.reason, field).toBe('signature');
      expect(details.signature.valid, field).toBe(false);
      // Fields that identify the stored payment (paymentId, from, nonce) find it; then it decides.
      if (field !== 'from') {
        expect(details.context.content, field).toBe('differs_from_stored');
        expect(mismatched(details.context.fields), field).toContain(field);
      }
    }
  });

  it('refuses a malformed receipt or original receipt, and a receipt of another kind', async () => {
    const cases: [unknown, unknown, string][] = [
      [{ ...refunded.receipt, type: 'x402.payment.receipt' }, undefined, 'receipt.type'],
      [{ ...refunded.receipt, refundOf: 'sha256:xyz' }, undefined, 'receipt.refundOf'],
      [{ ...refunded.receipt, amount: -1 }, undefined, 'receipt.amount'],
      ['not a receipt', undefined, 'receipt'],
      [refunded.receipt, { ...paid.receipt, payer: 'nope' }, 'originalReceipt.payer'],
      [refunded.receipt, [], 'originalReceipt'],
      [[], undefined, 'receipt'],
    ];
    for (const [receipt, originalReceipt, field] of cases) {
      const response = await verifyRefund(gateway, { signedReceipt: refunded.signedReceipt, receipt, ...(originalReceipt === undefined ? {} : { originalReceipt }), minConfirmations: 1 });
      expect(expectError(response, 422, 'receipt_invalid'), field).toMatchObject({ reason: 'malformed_receipt', field });
    }
    expectError(await verifyRefund(gateway, { signedReceipt: refunded.signedReceipt, receipt: refunded.receipt }), 400, 'invalid_request');
    expectError(await verifyRefund(gateway, { signedReceipt: refunded.signedReceipt, receipt: refunded.receipt, minConfirmations: 1, expectedAmount: '1' }), 400, 'invalid_request');
  });

  it('refuses a signature by a key that is not this gateway’s, accepts a rotated-out one', async () => {
    const receipt = refunded.receipt as unknown as AnyRefundReceipt;
    const stranger = await signRefundReceipt(receipt, privateKeyToAccount(generatePrivateKey()));
    const refused = expectError(await verifyRefund(gateway, { signedReceipt: stranger, receipt, minConfirmations: 1 }), 422, 'receipt_invalid') as { signature: { reason: string }; context: { content: string } };
    expect(refused.signature.reason).toBe('unknown_signer');
    // The stored receipt matches: the content is proven, the signer is not accepted.
    expect(refused.context.content).toBe('matches_stored');
    const previous = await verifyRefund<Verification>(gateway, { signedReceipt: await signRefundReceipt(receipt, previousSigner), receipt, minConfirmations: 1 });
    expect(previous.status, previous.text).toBe(200);
    expect(previous.body).toMatchObject({ verified: true, signature: { valid: true, signer: previousSigner.address, role: 'previous' } });
    expectError(await verifyRefund(gateway, { signedReceipt: '0x1234', receipt, minConfirmations: 1 }), 422, 'receipt_invalid');
  });

  it('refuses a refund bound to another original receipt, and one claiming more than the original', async () => {
    const other = await paidOrder(gateway, stack, { amount: '5000' });
    const details = expectError(await verifyRefund(gateway, { ...refunded, originalReceipt: other.receipt, minConfirmations: 1 }), 422, 'receipt_invalid') as { context: { fields: VerificationField[] } };
    expect(mismatched(details.context.fields)).toEqual(['refundOf', 'from', 'to']);
    // A refund receipt signed (by this gateway's key) for more than its original is refused on its amount.
    const inflated = { ...refunded.receipt, amount: '10001' } as unknown as AnyRefundReceipt;
    const signed = await signRefundReceipt(inflated, privateKeyToAccount(signingKey));
    const over = expectError(await verifyRefund(gateway, { signedReceipt: signed, receipt: inflated, originalReceipt: paid.receipt, minConfirmations: 1 }), 422, 'receipt_invalid') as { context: { fields: VerificationField[] } };
    expect(mismatched(over.context.fields)).toEqual(['amount']);
  });
});

describe('the merchant access policy', () => {
  it('serves a merchant its own refund receipts only, as /verify-receipt does', async () => {
    // Another deployment with the same receipt key, where the refunding merchant registered its payTo.
    const guarded = await startOrderGateway(stack, { GATEWAY_SIGNING_KEY: signingKey, GATEWAY_EVIDENCE_ACCESS: 'merchant' });
    try {
      const owner = await registerMerchant(guarded.url, { network: 'local', account: paid.merchant.account });
      const body = { ...refunded, minConfirmations: 1 };
      expectError(await call(guarded.url, 'POST', '/verify-refund-receipt', { json: body }), 401, 'unauthorized');
      const own = await call<Verification>(guarded.url, 'POST', '/verify-refund-receipt', { json: body, apiKey: owner.apiKey });
      expect(own.status, own.text).toBe(200);
      expect(own.body).toMatchObject({ verified: true, context: { binding: 'signed_only' } });
      const other = await registerMerchant(guarded.url, { network: 'local' });
      expectError(await call(guarded.url, 'POST', '/verify-refund-receipt', { json: body, apiKey: other.apiKey }), 404, 'not_found');
    } finally {
      await guarded.close();
    }
  });
});
