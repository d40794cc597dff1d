// Order mode's real answers against the checked-in OpenAPI document (which is the order-mode document):
// orders, refund intents, rejected-refund receipts, a refund payment's settlement answer, refund receipt
// verification, and the pay page's HTML and files, on a tollgate-gateway with GATEWAY_ORDER_MODE=on
// settling on a real anvil chain. Answers are validated with closed objects (see openapi-checks.ts), so a
// field the gateway sends without documenting it fails here.
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '@tollgate/core/gateway';
import { registerMerchant, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import type { OrderBody, RefundBody } from '../orders/helpers';
import { createRefund, paidOrder, pathOf, payRefund, refundReceiptOf, startOrderGateway, type PaidOrder } from '../refunds/helpers';
import { documentedCaller, fetchText, type DocumentedCall } from './openapi-calls';
import { checkedInText, DocumentValidator } from './openapi-checks';

let stack: PaymentStack;
let gateway: TestGateway;
let validator: DocumentValidator;
let documented: DocumentedCall;
let merchant: TestMerchant;
let paid: PaidOrder;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack, { GATEWAY_SIGNING_KEY: generatePrivateKey() });
  validator = new DocumentValidator(JSON.parse(checkedInText()) as OpenApiDocument);
  documented = documentedCaller(gateway.url, validator);
  merchant = await registerMerchant(gateway.url, { network: 'local' });
  paid = await paidOrder(gateway, stack, { merchant, amount: '10000' });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const reasonOf = (response: { body: unknown }) => (response.body as { error: { details: { reason?: string } } }).error.details.reason;

describe('orders answer what the document says', () => {
  it('create (201), read, list, cancel (twice), and the 409 of cancelling a paid order', async () => {
    const json = { payTo: merchant.payTo, network: 'local', amount: '2500', invoiceId: 'INV-openapi-1', label: 'Docs', description: 'A documented order', metadata: { plan: 'pro' } };
    const created = await documented<OrderBody>('POST', '/order', '/order', { apiKey: merchant.apiKey, json });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/order/${created.body.orderId}`);
    const read = await documented('GET', '/order/:orderId', `/order/${created.body.orderId}`, { apiKey: merchant.apiKey });
    expect(read.body).toMatchObject({ status: 'unpaid', payment: null, metadata: { plan: 'pro' } });
    // Not vacuous: the same answer fails a document that lacks one of its fields.
    const strict = JSON.parse(checkedInText()) as { components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> } };
    delete strict.components.schemas['Order']!.properties['metadata'];
    strict.components.schemas['Order']!.required = strict.components.schemas['Order']!.required.filter((name) => name !== 'metadata');
    expect(new DocumentValidator(strict as unknown as OpenApiDocument).response('GET', '/order/:orderId', read).join('\n')).toMatch(/must NOT have additional properties.*metadata/);
    // The paid order: its payment and refund totals.
    expect((await documented('GET', '/order/:orderId', `/order/${paid.order.orderId}`, { apiKey: merchant.apiKey })).body).toMatchObject({ status: 'paid', refundable: '10000' });
    const page = await documented('GET', '/order', '/order', { apiKey: merchant.apiKey, query: { limit: '1' } });
    expect(page.body).toHaveProperty('nextCursor');
    expect((await documented('GET', '/order', '/order', { apiKey: merchant.apiKey, query: { status: 'paid' } })).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const cancelled = await documented('POST', '/order/:orderId/cancel', `/order/${created.body.orderId}/cancel`, { apiKey: merchant.apiKey });
      expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    }
    const conflict = await documented('POST', '/order/:orderId/cancel', `/order/${paid.order.orderId}/cancel`, { apiKey: merchant.apiKey });
    expect({ status: conflict.status, reason: reasonOf(conflict) }).toEqual({ status: 409, reason: 'not_cancellable' });
    // An order's ref is not revoked through POST /ref/:refId/revoke.
    const viaRef = await documented('POST', '/ref/:refId/revoke', `/ref/${paid.order.refId}/revoke`, { apiKey: merchant.apiKey });
    expect({ status: viaRef.status, reason: reasonOf(viaRef) }).toEqual({ status: 409, reason: 'use_order_routes' });
    expect((await documented('GET', '/order/:orderId', `/order/ord_${'0'.repeat(32)}`, { apiKey: merchant.apiKey })).status).toBe(404);
    const misspelt = await documented('POST', '/order', '/order', { apiKey: merchant.apiKey, json: { ...json, amont: '1' }, refusedByDocument: true });
    expect(misspelt.status).toBe(400);
    const unknownStatus = await documented('GET', '/order', '/order', { apiKey: merchant.apiKey, query: { status: 'shipped' }, refusedByDocument: true });
    expect(unknownStatus.status).toBe(400);
  });
});

describe('refunds answer what the document says', () => {
  it('intents: create (201), read, list, pay back (the refund settlement), reject with and without a body, and the 409s', async () => {
    const routes = { one: '/order/:orderId/refund/:refundId', reject: '/order/:orderId/refund/:refundId/reject' };
    const base = `/order/${paid.order.orderId}`;
    const created = await documented<RefundBody>('POST', '/order/:orderId/refund', `${base}/refund`, { apiKey: merchant.apiKey, json: { amount: '3000', reason: 'Damaged item', expiresInSecs: 3600 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/refund/${created.body.refundId}`);
    expect((await documented('GET', routes.one, `${base}/refund/${created.body.refundId}`, { apiKey: merchant.apiKey })).body).toMatchObject({ status: 'open', payment: null, rejection: null });

    // The merchant pays it back through /receive: a 200 with the refund receipt, in body and PAYMENT-RESPONSE.
    const refundPayment = await payRefund(gateway, stack, created.body, merchant);
    expect(refundPayment.status, refundPayment.text).toBe(200);
    const receiveUrl = new URL(created.body.receiveUrl);
    expect(validator.request('GET', '/receive/:payTo', { query: Object.fromEntries(receiveUrl.searchParams) })).toEqual([]);
    expect(validator.response('GET', '/receive/:payTo', refundPayment)).toEqual([]);
    expect(refundReceiptOf(refundPayment).receipt.type).toBe('x402.refund.receipt');
    const paidBack = await documented('GET', routes.one, `${base}/refund/${created.body.refundId}`, { apiKey: merchant.apiKey });
    expect(paidBack.body).toMatchObject({ status: 'paid', payment: { txHash: refundReceiptOf(refundPayment).receipt.txHash } });

    const withReason = await createRefund(gateway, paid, { amount: '1000' });
    const rejected = await documented<RefundBody>('POST', routes.reject, `${base}/refund/${withReason.refundId}/reject`, { apiKey: merchant.apiKey, json: { reason: 'Outside the return window' } });
    expect(rejected.body).toMatchObject({ status: 'rejected', rejection: { reason: 'Outside the return window', receipt: { type: 'x402.refund.rejected' } } });
    const withoutBody = await createRefund(gateway, paid, { amount: '500' });
    expect((await documented('POST', routes.reject, `${base}/refund/${withoutBody.refundId}/reject`, { apiKey: merchant.apiKey })).body).toMatchObject({ status: 'rejected' });
    const notOpen = await documented('POST', routes.reject, `${base}/refund/${created.body.refundId}/reject`, { apiKey: merchant.apiKey });
    expect({ status: notOpen.status, reason: reasonOf(notOpen) }).toEqual({ status: 409, reason: 'not_open' });
    const tooMuch = await documented('POST', '/order/:orderId/refund', `${base}/refund`, { apiKey: merchant.apiKey, json: { amount: '1000000' } });
    expect({ status: tooMuch.status, reason: reasonOf(tooMuch) }).toEqual({ status: 409, reason: 'exceeds_remaining' });

    const list = await documented<{ items: RefundBody[] }>('GET', '/order/:orderId/refunds', `${base}/refunds`, { apiKey: merchant.apiKey });
    // The test clock stands still: the three share a creation time, so their order is not asserted.
    expect(list.body.items.map((refund) => refund.status).sort()).toEqual(['paid', 'rejected', 'rejected']);
    expect((await documented('GET', '/order/:orderId', base, { apiKey: merchant.apiKey })).body).toMatchObject({ status: 'partially_refunded', refunded: '3000' });

    // Both kinds of refund receipt verify, and the document describes both answers.
    const refundReceipt = refundReceiptOf(refundPayment);
    const verifiedRefund = await documented('POST', '/verify-refund-receipt', '/verify-refund-receipt', { json: { ...refundReceipt, minConfirmations: 1 } });
    expect(verifiedRefund.body).toMatchObject({ verified: true, kind: 'refund', context: { binding: 'refund_intent' }, chain: { status: 'confirmed' } });
    const rejection = rejected.body.rejection!;
    const verifiedRejection = await documented('POST', '/verify-refund-receipt', '/verify-refund-receipt', {
      json: { receipt: rejection.receipt, signedReceipt: rejection.signedReceipt, originalReceipt: paid.receipt, minConfirmations: 1 },
    });
    expect(verifiedRejection.body).toMatchObject({ verified: true, kind: 'rejected_refund', context: { binding: 'original_receipt' }, chain: null });
    const tampered = await documented('POST', '/verify-refund-receipt', '/verify-refund-receipt', { json: { ...refundReceipt, receipt: { ...refundReceipt.receipt, amount: '1' }, minConfirmations: 1 } });
    expect(tampered.status).toBe(422);
  });

  it('the stateless rejected-refund receipt, and its refusals', async () => {
    const json = { receipt: paid.receipt, signedReceipt: paid.signedReceipt, reason: 'Chargeback filed' };
    const rejected = await documented('POST', '/refund-receipt/rejected', '/refund-receipt/rejected', { apiKey: merchant.apiKey, json });
    expect(rejected.body).toMatchObject({ receipt: { type: 'x402.refund.rejected', refundOf: expect.stringMatching(/^sha256:/) } });
    const forged = await documented('POST', '/refund-receipt/rejected', '/refund-receipt/rejected', { apiKey: merchant.apiKey, json: { ...json, receipt: { ...paid.receipt, amount: '1' } } });
    expect(forged.status).toBe(422);
    const other = await registerMerchant(gateway.url, { network: 'local' });
    expect((await documented('POST', '/refund-receipt/rejected', '/refund-receipt/rejected', { apiKey: other.apiKey, json })).status).toBe(404);
  });
});

describe('the document itself', () => {
  it('/openapi.json of a gateway in order mode is the checked-in document', async () => {
    const response = await documented('GET', '/openapi.json', '/openapi.json');
    expect(response.text).toBe(checkedInText());
  });
});

describe('the pay page answers what the document says', () => {
  it('HTML for a payable ref (200), an unknown one (404) and a cancelled one (410); its files as JavaScript and CSS', async () => {
    const order = await documented<OrderBody>('POST', '/order', '/order', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'local', amount: '700' } });
    const page = await fetchText(gateway.url, pathOf(order.body.payUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(validator.response('GET', '/pay/:refId', page)).toEqual([]);
    const files = [...page.text.matchAll(/(?:src|href)="assets\/(pay-[0-9a-f]{16}\.(?:js|css))"/g)].map((match) => match[1]!);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const asset = await fetchText(gateway.url, `/pay/assets/${file}`);
      expect({ status: asset.status, type: asset.headers.get('content-type') }).toEqual({ status: 200, type: file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8' });
      expect(validator.response('GET', '/pay/assets/:file', asset)).toEqual([]);
    }
    const oldFile = await fetchText(gateway.url, '/pay/assets/pay-0000000000000000.js');
    expect(oldFile.status).toBe(404);
    expect(validator.response('GET', '/pay/assets/:file', oldFile)).toEqual([]);
    const missing = await fetchText(gateway.url, `/pay/${'0'.repeat(32)}`);
    expect({ status: missing.status, type: missing.headers.get('content-type') }).toEqual({ status: 404, type: 'text/html; charset=utf-8' });
    expect(validator.response('GET', '/pay/:refId', missing)).toEqual([]);
    await documented('POST', '/order/:orderId/cancel', `/order/${order.body.orderId}/cancel`, { apiKey: merchant.apiKey });
    const gone = await fetchText(gateway.url, pathOf(order.body.payUrl));
    expect(gone.status).toBe(410);
    expect(validator.response('GET', '/pay/:refId', gone)).toEqual([]);
    // The checks are not vacuous: HTML where JSON is documented, or JSON where HTML is, fails them.
    expect(validator.response('GET', '/ref/:refId', { ...page, status: 200 }).join('\n')).toMatch(/content-type text\/html/);
    const json = await documented('GET', '/order/:orderId', `/order/${order.body.orderId}`, { apiKey: merchant.apiKey });
    expect(validator.response('GET', '/pay/:refId', json).join('\n')).toMatch(/is not one of text\/html/);
  });
});
