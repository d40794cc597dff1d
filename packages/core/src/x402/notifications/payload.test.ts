import { describe, expect, it } from 'vitest';
import { base, freshAccount, merchant, NOW } from '../../../test/x402/fixtures';
import {
  buildPaymentReceipt,
  buildPaymentSettledNotification,
  receiptHash,
  serializeNotification,
  signNotification,
  signReceipt,
  verifyNotification,
  verifySignedReceipt,
} from '../index';

const gatewayKey = freshAccount();
const facts = {
  refId: 'r1',
  paymentId: 'pay_0123456789abcdef0123456789abcdef',
  gatewayOrigin: 'https://pay.example.com',
  resourceUrl: `https://pay.example.com/receive/${merchant}?ref=r1`,
  network: base,
  payTo: merchant,
  payer: freshAccount().address,
  amount: '10000',
  authorizationNonce: `0x${'01'.repeat(32)}`,
  txHash: `0x${'02'.repeat(32)}`,
  issuedAt: NOW,
};

describe('buildPaymentSettledNotification', () => {
  it('carries the receipt, its hash and signature, and the ref and invoice ids taken from it', async () => {
    const receipt = buildPaymentReceipt({ ...facts, invoiceId: 'INV-7' });
    const signedReceipt = await signReceipt(receipt, gatewayKey);
    const notification = buildPaymentSettledNotification({ id: 'evt_1', createdAt: NOW + 2, receipt, signedReceipt });
    expect(notification).toEqual({
      event: 'payment.settled',
      id: 'evt_1',
      createdAt: NOW + 2,
      data: { refId: 'r1', invoiceId: 'INV-7', receipt, receiptHash: receiptHash(receipt), signedReceipt },
    });
    const withoutInvoice = buildPaymentSettledNotification({ id: 'evt_2', createdAt: NOW, receipt: buildPaymentReceipt(facts), signedReceipt });
    expect('invoiceId' in withoutInvoice.data).toBe(false);
  });

  it('serialises to a body the merchant can verify end to end', async () => {
    const receipt = buildPaymentReceipt(facts);
    const body = serializeNotification(buildPaymentSettledNotification({ id: 'evt_3', createdAt: NOW, receipt, signedReceipt: await signReceipt(receipt, gatewayKey) }));
    const headers = signNotification({ body, keys: [{ id: 'nk_1', key: 'nhk_secret_0123456789' }], timestamp: NOW });
    expect(verifyNotification({ body, headers, keys: { nk_1: 'nhk_secret_0123456789' }, now: NOW + 5 }).keyId).toBe('nk_1');
    const received = JSON.parse(body) as { data: { receipt: unknown; signedReceipt: string; receiptHash: string } };
    expect(verifySignedReceipt(received.data.signedReceipt, received.data.receipt, gatewayKey.address)).toMatchObject({ valid: true, receiptHash: received.data.receiptHash });
  });

  it('refuses an empty id or a bad creation time', () => {
    const receipt = buildPaymentReceipt(facts);
    expect(() => buildPaymentSettledNotification({ id: '', createdAt: NOW, receipt, signedReceipt: '0x' })).toThrow(TypeError);
    expect(() => buildPaymentSettledNotification({ id: 'e', createdAt: -1, receipt, signedReceipt: '0x' })).toThrow(TypeError);
  });
});
