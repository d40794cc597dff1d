// Refund intents through HTTP on a real gateway and chain: created against a paid order (partial, the
// remainder, never more), read and listed, rejected with a signed rejected-refund receipt that verifies,
// expired; the stateless POST /refund-receipt/rejected. Paying a refund: test/refunds/ (refund-payments).
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignedRefundReceipt, type PaymentReceipt } from '@tollgate/core';
import { receiptHash, signReceipt } from '@tollgate/core/x402';
import { call, expectError, type TestMerchant } from '../helpers/gateway';
import { fundedPayer, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, createdOrder, getOrder, localMerchant, paidOrder, pathOf, startOrderGateway, type OrderGateway, type PaidOrder, type RefundBody } from './helpers';

let stack: PaymentStack;
let gateway: OrderGateway;
let merchant: TestMerchant;
let paid: PaidOrder;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack, { GATEWAY_PUBLIC_URL: 'http://localhost.test:1' });
  merchant = await localMerchant(gateway);
  paid = await paidOrder(gateway, stack, merchant, await fundedPayer(stack, 1_000_000n), { amount: '10000' });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const origin = 'http://localhost.test:1';
const nowSeconds = () => Math.floor(gateway.clock.now() / 1000);
const refundPath = (orderId: string, refundId: string) => `/order/${orderId}/refund/${refundId}`;
const getRefund = (orderId: string, refundId: string, apiKey = merchant.apiKey) => call<RefundBody>(gateway.url, 'GET', refundPath(orderId, refundId), { apiKey });
const reject = (orderId: string, refundId: string, body?: unknown, apiKey = merchant.apiKey) =>
  call<RefundBody>(gateway.url, 'POST', `${refundPath(orderId, refundId)}/reject`, { apiKey, ...(body === undefined ? {} : { json: body }) });
const listRefunds = (orderId: string, apiKey = merchant.apiKey) => call<{ items: RefundBody[] }>(gateway.url, 'GET', `/order/${orderId}/refunds`, { apiKey });

describe('POST /order/:orderId/refund', () => {
  let partial: RefundBody;

  it('creates a bound refund intent and its refund ref, reserving the amount', async () => {
    const response = await createRefund(gateway, merchant, paid.order.orderId, { amount: '3000', reason: 'Damaged box' });
    expect(response.status, response.text).toBe(201);
    partial = response.body;
    const refundOf = `sha256:${receiptHash(paid.receipt)}`;
    expect(partial.refundId).toMatch(/^rfd_[0-9a-f]{32}$/);
    expect(response.headers.get('location')).toBe(refundPath(paid.order.orderId, partial.refundId));
    expect(partial).toEqual({
      refundId: partial.refundId,
      orderId: paid.order.orderId,
      status: 'open',
      amount: '3000',
      payer: paid.payer.address,
      payTo: merchant.payTo,
      network: 'local',
      asset: 'USDC',
      refundOf,
      refId: expect.stringMatching(/^[0-9a-f]{32}$/),
      receiveUrl: `${origin}/receive/${paid.payer.address}?ref=${partial.refId}&refundOf=${refundOf}`,
      reason: 'Damaged box',
      createdAt: nowSeconds(),
      expiresAt: nowSeconds() + 7 * 24 * 3600,
      paidAt: null,
      payment: null,
      rejection: null,
    });
    // The refund ref is public like any ref: it pays the payer, the exact amount, at the refund's receive URL.
    const ref = await call<{ snapshot: Record<string, unknown>; status: string }>(gateway.url, 'GET', `/ref/${partial.refId}`);
    expect(ref.body.status).toBe('active');
    expect(ref.body.snapshot).toEqual({
      v: 2,
      scheme: 'exact',
      network: 'local',
      payTo: paid.payer.address,
      asset: 'USDC',
      amount: '3000',
      resource: partial.receiveUrl,
      mimeType: 'application/json',
      expiresAt: partial.expiresAt,
    });
    const order = (await getOrder(gateway, merchant, paid.order.orderId)).body;
    expect(order).toMatchObject({ status: 'paid', refundReserved: '3000', refunded: '0', refundable: '7000' });
    expect((await getRefund(paid.order.orderId, partial.refundId)).body).toEqual(partial);
    // Its 402 asks the payer's address to be paid, with the refund binding in the query.
    const negotiation = await call(gateway.url, 'GET', pathOf(partial.receiveUrl));
    expect(negotiation.status, negotiation.text).toBe(402);
    // The refund ref changes state only with its intent: POST /ref/:refId/revoke refuses it.
    const revoke = await call(gateway.url, 'POST', `/ref/${partial.refId}/revoke`, { apiKey: merchant.apiKey });
    expect(expectError(revoke, 409, 'conflict')).toMatchObject({ reason: 'use_order_routes', kind: 'refund' });
    expect((await getRefund(paid.order.orderId, partial.refundId)).body).toEqual(partial);
  });

  it('takes the remainder, and refuses anything over it with exceeds_remaining', async () => {
    // Listed oldest first by creation time (then id): a second later, so the order is the creation order.
    gateway.clock.advance(1_000);
    const rest = await createRefund(gateway, merchant, paid.order.orderId, { amount: '7000' });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.reason).toBeNull();
    const over = await createRefund(gateway, merchant, paid.order.orderId, { amount: '1' });
    expect(expectError(over, 409, 'conflict')).toEqual({ reason: 'exceeds_remaining', field: 'amount', remaining: '0', orderId: paid.order.orderId });
    expect((await getOrder(gateway, merchant, paid.order.orderId)).body).toMatchObject({ refundReserved: '10000', refundable: '0' });
    const listed = await listRefunds(paid.order.orderId);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((refund) => [refund.refundId, refund.amount])).toEqual([
      [partial.refundId, '3000'],
      [rest.body.refundId, '7000'],
    ]);
  });

  it('rejects an open intent with a signed rejected-refund receipt that verifies, releasing its reservation', async () => {
    gateway.clock.advance(1_000);
    // Cached as active by this 402; the clock stands still until the check below, so only the rejection's
    // ref_revoked event can make the next negotiation see the revocation.
    expect((await call(gateway.url, 'GET', pathOf(partial.receiveUrl))).status).toBe(402);
    const rejected = await reject(paid.order.orderId, partial.refundId, { reason: 'Refunded in store' });
    expect(rejected.status, rejected.text).toBe(200);
    const { rejection } = rejected.body;
    expect(rejected.body).toEqual({ ...partial, status: 'rejected', rejection: { reason: 'Refunded in store', rejectedAt: nowSeconds(), receipt: expect.any(Object), signedReceipt: expect.stringMatching(/^0x[0-9a-f]{130}$/) } });
    expect(rejection?.receipt).toEqual({
      type: 'x402.refund.rejected',
      version: 1,
      refundOf: partial.refundOf,
      refundId: partial.refundId,
      orderId: paid.order.orderId,
      originalPayer: paid.payer.address,
      originalPayTo: merchant.payTo,
      amount: '3000',
      reason: 'Refunded in store',
      gatewayOrigin: origin,
      network: 'eip155:31337',
      chainId: 31337,
      asset: stack.setup.usdc.address,
      issuedAt: nowSeconds(),
    });
    const verified = verifySignedRefundReceipt(rejection?.signedReceipt, rejection?.receipt, gateway.receiptSigner);
    expect(verified).toMatchObject({ valid: true, signer: gateway.receiptSigner });
    // Bound: a changed receipt does not verify under the same signature.
    expect(verifySignedRefundReceipt(rejection?.signedReceipt, { ...rejection?.receipt, amount: '1' }, gateway.receiptSigner).valid).toBe(false);
    // The gateway's own verification agrees, bound to the original receipt.
    const verification = await call(gateway.url, 'POST', '/verify-refund-receipt', {
      json: { signedReceipt: rejection?.signedReceipt, receipt: rejection?.receipt, originalReceipt: paid.receipt, minConfirmations: 1 },
    });
    expect(verification.status, verification.text).toBe(200);
    expect(verification.body).toMatchObject({ verified: true, kind: 'rejected_refund', refundOf: partial.refundOf, signature: { valid: true }, context: { valid: true } });
    expect((await call(gateway.url, 'GET', `/ref/${partial.refId}`)).body['status']).toBe('revoked');
    expectError(await call(gateway.url, 'GET', pathOf(partial.receiveUrl)), 410, 'ref_revoked');
    expect((await getOrder(gateway, merchant, paid.order.orderId)).body).toMatchObject({ refundReserved: '7000', refundable: '3000' });

    // Idempotent: the same receipt again, byte for byte, whatever the new body says.
    gateway.clock.advance(5_000);
    const again = await reject(paid.order.orderId, partial.refundId, { reason: 'Another reason' });
    expect(again.status).toBe(200);
    expect(again.text).toBe(rejected.text);
    expect((await getRefund(paid.order.orderId, partial.refundId)).text).toBe(rejected.text);
    // The released amount can be refunded again.
    expect((await createRefund(gateway, merchant, paid.order.orderId, { amount: '3000' })).status).toBe(201);
  });

  it('rejects with an empty body too (no reason in the receipt)', async () => {
    const order = await paidOrder(gateway, stack, merchant, await fundedPayer(stack, 100_000n), { amount: '500' });
    const refund = (await createRefund(gateway, merchant, order.order.orderId, { amount: '500' })).body;
    const rejected = await reject(order.order.orderId, refund.refundId);
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body.rejection?.reason).toBeNull();
    expect(rejected.body.rejection?.receipt).not.toHaveProperty('reason');
    expect(verifySignedRefundReceipt(rejected.body.rejection?.signedReceipt, rejected.body.rejection?.receipt, gateway.receiptSigner).valid).toBe(true);
  });

  it('refuses to refund an unpaid or cancelled order (409 not_refundable)', async () => {
    const unpaid = await createdOrder(gateway, merchant);
    expect(expectError(await createRefund(gateway, merchant, unpaid.orderId, { amount: '1' }), 409, 'conflict')).toEqual({ reason: 'not_refundable', status: 'unpaid', orderId: unpaid.orderId });
    await call(gateway.url, 'POST', `/order/${unpaid.orderId}/cancel`, { apiKey: merchant.apiKey });
    expect(expectError(await createRefund(gateway, merchant, unpaid.orderId, { amount: '1' }), 409, 'conflict')).toMatchObject({ reason: 'not_refundable', status: 'cancelled' });
    expect((await listRefunds(unpaid.orderId)).body).toEqual({ items: [] });
  });

  it('validates the body: amount, reason, expiresInSecs (≤ 30 days), nothing else', async () => {
    const refused = async (body: Record<string, unknown>) => expectError(await createRefund(gateway, merchant, paid.order.orderId, body), 400, 'invalid_request')['field'];
    for (const amount of [undefined, '0', '-1', '1.0', 1, '', '0x1']) expect(await refused({ amount })).toBe('amount');
    expect(await refused({ amount: '1', reason: '' })).toBe('reason');
    expect(await refused({ amount: '1', reason: 'x'.repeat(513) })).toBe('reason');
    expect(await refused({ amount: '1', reason: 'a\u0000b' })).toBe('reason');
    expect(await refused({ amount: '1', reason: 'evil\u202eexe' })).toBe('reason');
    expect(await refused({ amount: '1', expiresInSecs: 30 * 24 * 3600 + 1 })).toBe('expiresInSecs');
    expect(await refused({ amount: '1', expiresInSecs: 0 })).toBe('expiresInSecs');
    expect(await refused({ amount: '1', expiresInSecs: 1.5 })).toBe('expiresInSecs');
    expect(await refused({ amount: '1', to: paid.payer.address })).toBe('to');
    expectError(await call(gateway.url, 'POST', `/order/${paid.order.orderId}/refund`, { apiKey: merchant.apiKey, raw: '[]' }), 400, 'invalid_request');
    expectError(await reject(paid.order.orderId, 'rfd_00112233445566778899aabbccddeeff', { reason: 7 }), 400, 'invalid_request');
  });

  it('answers not_found for unknown and malformed ids', async () => {
    for (const [orderId, refundId] of [
      [paid.order.orderId, 'rfd_00112233445566778899aabbccddeeff'],
      [paid.order.orderId, 'nope'],
      ['ord_00112233445566778899aabbccddeeff', 'rfd_00112233445566778899aabbccddeeff'],
    ] as const) {
      expectError(await getRefund(orderId, refundId), 404, 'not_found');
      expectError(await reject(orderId, refundId), 404, 'not_found');
    }
    expectError(await listRefunds('ord_00112233445566778899aabbccddeeff'), 404, 'not_found');
    expectError(await createRefund(gateway, merchant, 'ord_00112233445566778899aabbccddeeff', { amount: '1' }), 404, 'not_found');
    // A refund of one order is not found under another order of the same merchant.
    const other = await createdOrder(gateway, merchant);
    const [first] = (await listRefunds(paid.order.orderId)).body.items;
    expectError(await getRefund(other.orderId, first!.refundId), 404, 'not_found');
  });
});

describe('expired refund intents', () => {
  it('read as expired after their expiry, cannot be rejected, and release their reservation', async () => {
    const order = await paidOrder(gateway, stack, merchant, await fundedPayer(stack, 100_000n), { amount: '900' });
    const refund = (await createRefund(gateway, merchant, order.order.orderId, { amount: '900', expiresInSecs: 60 })).body;
    expect(refund.expiresAt).toBe(nowSeconds() + 60);
    expect(expectError(await createRefund(gateway, merchant, order.order.orderId, { amount: '1' }), 409, 'conflict')['remaining']).toBe('0');
    gateway.clock.advance(61_000);
    try {
      expect((await getRefund(order.order.orderId, refund.refundId)).body.status).toBe('expired');
      // Reads leave the expired reservation out before any write releases it.
      expect((await getOrder(gateway, merchant, order.order.orderId)).body).toMatchObject({ refundReserved: '0', refundable: '900' });
      const listed = await call<{ items: { orderId: string; refundReserved: string }[] }>(gateway.url, 'GET', '/order?status=paid&limit=100', { apiKey: merchant.apiKey });
      expect(listed.body.items.find((item) => item.orderId === order.order.orderId)?.refundReserved).toBe('0');
      expect(expectError(await reject(order.order.orderId, refund.refundId), 409, 'conflict')).toMatchObject({ reason: 'not_open', status: 'expired' });
      expectError(await call(gateway.url, 'GET', pathOf(refund.receiveUrl)), 410, 'ref_expired');
      // The next intent finds the expired reservation released.
      const next = await createRefund(gateway, merchant, order.order.orderId, { amount: '900' });
      expect(next.status, next.text).toBe(201);
    } finally {
      gateway.clock.advance(-61_000);
    }
  });
});

describe('POST /refund-receipt/rejected', () => {
  const rejectReceipt = (body: unknown, apiKey = merchant.apiKey) => call<{ receipt: Record<string, unknown>; signedReceipt: string; receiptHash: string }>(gateway.url, 'POST', '/refund-receipt/rejected', { apiKey, json: body });

  it("signs a rejected-refund receipt bound to the merchant's own payment receipt, storing nothing", async () => {
    const response = await rejectReceipt({ receipt: paid.receipt, signedReceipt: paid.signedReceipt, reason: 'Outside the refund window' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.receipt).toEqual({
      type: 'x402.refund.rejected',
      version: 1,
      refundOf: `sha256:${receiptHash(paid.receipt)}`,
      originalPayer: paid.payer.address,
      originalPayTo: merchant.payTo,
      reason: 'Outside the refund window',
      gatewayOrigin: origin,
      network: 'eip155:31337',
      chainId: 31337,
      asset: stack.setup.usdc.address,
      issuedAt: nowSeconds(),
    });
    const verified = verifySignedRefundReceipt(response.body.signedReceipt, response.body.receipt, gateway.receiptSigner);
    expect(verified).toMatchObject({ valid: true, receiptHash: response.body.receiptHash });
    const without = await rejectReceipt({ receipt: paid.receipt, signedReceipt: paid.signedReceipt });
    expect(without.status).toBe(200);
    expect(without.body.receipt).not.toHaveProperty('reason');
  });

  it('refuses a receipt it did not sign, or one altered after signing, with receipt_invalid', async () => {
    const altered: PaymentReceipt = { ...paid.receipt, amount: '1' };
    expect(expectError(await rejectReceipt({ receipt: altered, signedReceipt: paid.signedReceipt }), 422, 'receipt_invalid')['reason']).toBe('signature');
    // A well-formed receipt signed by another key: the scheme is public, the key is not.
    const forged = await signReceipt(paid.receipt, privateKeyToAccount(generatePrivateKey()));
    expect(expectError(await rejectReceipt({ receipt: paid.receipt, signedReceipt: forged }), 422, 'receipt_invalid')['reason']).toBe('signature');
    expect(expectError(await rejectReceipt({ receipt: { ...paid.receipt, type: 'x402.refund.receipt' }, signedReceipt: paid.signedReceipt }), 422, 'receipt_invalid')['reason']).toBe(
      'malformed_receipt',
    );
    expect(expectError(await rejectReceipt({ receipt: { ...paid.receipt, payTo: 'nope' }, signedReceipt: paid.signedReceipt }), 422, 'receipt_invalid')['field']).toBe('receipt.payTo');
  });

  it('validates the body', async () => {
    for (const body of [{}, { receipt: paid.receipt }, { receipt: [], signedReceipt: paid.signedReceipt }, { receipt: paid.receipt, signedReceipt: '0x12' }, { receipt: paid.receipt, signedReceipt: paid.signedReceipt, reason: '' }, { receipt: paid.receipt, signedReceipt: paid.signedReceipt, extra: 1 }]) {
      expectError(await rejectReceipt(body), 400, 'invalid_request');
    }
  });
});
