import { createHash } from 'node:crypto';
import { verifyTypedData } from 'viem';
import { describe, expect, it } from 'vitest';
import { base, freshAccount, merchant, NOW } from '../../test/x402/fixtures';
import {
  buildPaymentReceipt,
  buildRefundReceipt,
  buildRejectedRefundReceipt,
  readRefundReceipt,
  receiptHash,
  refundOfReceipt,
  refundReceiptHash,
  signReceipt,
  signRefundReceipt,
  tollgateReceiptDomain,
  tollgateReceiptTypes,
  verifySignedReceipt,
  verifySignedRefundReceipt,
  type BuildRefundReceiptParams,
} from './index';

const gatewayKey = freshAccount();
const payer = freshAccount();
const original = buildPaymentReceipt({
  refId: 'r_7f3a',
  paymentId: 'pay_0123456789abcdef0123456789abcdef',
  gatewayOrigin: 'https://pay.example.com',
  resourceUrl: `https://pay.example.com/receive/${merchant}?ref=r_7f3a`,
  network: base,
  payTo: merchant,
  payer: payer.address,
  amount: '10000',
  authorizationNonce: `0x${'ab'.repeat(32)}`,
  txHash: `0x${'cd'.repeat(32)}`,
  issuedAt: NOW,
});
const refundOf = refundOfReceipt(original);
const facts: BuildRefundReceiptParams = {
  refundId: `rfd_${'1'.repeat(32)}`,
  orderId: `ord_${'2'.repeat(32)}`,
  refId: `${'3'.repeat(32)}`,
  paymentId: 'pay_fedcba9876543210fedcba9876543210',
  refundOf,
  gatewayOrigin: 'https://pay.example.com',
  network: base,
  from: merchant.toLowerCase(),
  to: payer.address.toLowerCase(),
  amount: '2500',
  authorizationNonce: `0x${'EF'.repeat(32)}`,
  txHash: `0x${'0A'.repeat(32)}`,
  blockNumber: 77n,
  issuedAt: NOW + 60,
};

describe('refund receipts', () => {
  it('refundOf is sha256: + the original receipt hash', () => {
    expect(refundOf).toBe(`sha256:${receiptHash(original)}`);
    expect(refundOf).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('spells a paid refund one way: checksummed, lowercase hex, decimal block', () => {
    const receipt = buildRefundReceipt(facts);
    expect(receipt).toMatchObject({
      type: 'x402.refund.receipt',
      version: 1,
      from: merchant,
      to: payer.address,
      authorizationNonce: `0x${'ef'.repeat(32)}`,
      txHash: `0x${'0a'.repeat(32)}`,
      blockNumber: '77',
      network: 'eip155:8453',
      chainId: 8453,
      asset: base.usdc.address,
    });
    expect(buildRefundReceipt({ ...facts, from: merchant, to: payer.address })).toEqual(receipt);
  });

  it('refuses malformed facts', () => {
    expect(() => buildRefundReceipt({ ...facts, refundOf: 'sha256:ABC' })).toThrow(TypeError);
    expect(() => buildRefundReceipt({ ...facts, refundId: 'rfd_x' })).toThrow(TypeError);
    expect(() => buildRefundReceipt({ ...facts, amount: '01' })).toThrow(TypeError);
    expect(() => buildRefundReceipt({ ...facts, txHash: '0x12' })).toThrow(TypeError);
    expect(() => buildRefundReceipt({ ...facts, blockNumber: -1 })).toThrow(RangeError);
    expect(() => buildRejectedRefundReceipt({ refundOf, originalPayer: payer.address, originalPayTo: merchant, gatewayOrigin: 'x', network: base, issuedAt: NOW, reason: 'é'.repeat(257) })).toThrow(TypeError);
  });

  it('hashes with JCS sha256, as any implementation would', () => {
    const receipt = buildRefundReceipt(facts);
    const sorted = Object.fromEntries(Object.entries(receipt).sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(refundReceiptHash(receipt)).toBe(createHash('sha256').update(JSON.stringify(sorted)).digest('hex'));
  });

  it('signs both kinds like payment receipts: viem verifyTypedData agrees, and the signer is recovered', async () => {
    const paid = buildRefundReceipt(facts);
    const rejected = buildRejectedRefundReceipt({ refundOf, orderId: facts.orderId, refundId: facts.refundId, originalPayer: payer.address, originalPayTo: merchant, amount: '2500', reason: 'used the goods', gatewayOrigin: 'https://pay.example.com', network: base, issuedAt: NOW });
    for (const receipt of [paid, rejected]) {
      const signature = await signRefundReceipt(receipt, gatewayKey);
      const hash = refundReceiptHash(receipt);
      const ok = await verifyTypedData({ address: gatewayKey.address, domain: tollgateReceiptDomain, types: tollgateReceiptTypes, primaryType: 'TollgateReceipt', message: { receiptHash: `0x${hash}` }, signature });
      expect(ok).toBe(true);
      expect(verifySignedRefundReceipt(signature, receipt, gatewayKey.address)).toEqual({ valid: true, receipt, receiptHash: hash, signer: gatewayKey.address });
      expect(verifySignedRefundReceipt(signature, receipt, merchant)).toMatchObject({ valid: false, reason: 'wrong_signer', signer: gatewayKey.address });
      expect(verifySignedRefundReceipt(signature, { ...receipt, amount: '1' }, gatewayKey.address)).toMatchObject({ valid: false, reason: 'wrong_signer' });
      expect(verifySignedRefundReceipt('0x1234', receipt, gatewayKey.address)).toMatchObject({ valid: false, reason: 'malformed_signature' });
    }
  });

  it('leaves absent optional facts out of the stateless rejected receipt', () => {
    const rejected = buildRejectedRefundReceipt({ refundOf, originalPayer: payer.address.toLowerCase(), originalPayTo: merchant, gatewayOrigin: 'https://pay.example.com', network: base, issuedAt: NOW });
    expect(Object.keys(rejected).sort()).toEqual(['asset', 'chainId', 'gatewayOrigin', 'issuedAt', 'network', 'originalPayTo', 'originalPayer', 'refundOf', 'type', 'version']);
    expect(rejected.originalPayer).toBe(payer.address);
  });

  it('a signature of one kind never passes as another kind', async () => {
    const paymentSignature = await signReceipt(original, gatewayKey);
    // The same bytes read as a refund receipt fail on type; a refund signature over a payment receipt does not verify.
    expect(readRefundReceipt(paymentSignature, original)).toEqual({ ok: false, reason: 'malformed_receipt', field: 'type' });
    const paid = buildRefundReceipt(facts);
    const refundSignature = await signRefundReceipt(paid, gatewayKey);
    expect(verifySignedReceipt(refundSignature, paid, gatewayKey.address)).toMatchObject({ valid: false, reason: 'malformed_receipt' });
    expect(readRefundReceipt(refundSignature, null)).toEqual({ ok: false, reason: 'malformed_receipt', field: 'receipt' });
    expect(readRefundReceipt(refundSignature, { ...paid, refundOf: 'sha256:zz' })).toMatchObject({ ok: false, field: 'refundOf' });
  });
});
