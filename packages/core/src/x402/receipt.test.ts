import { createHash } from 'node:crypto';
import { verifyTypedData } from 'viem';
import { describe, expect, it } from 'vitest';
import { base, freshAccount, merchant, NOW, randomNonce } from '../../test/x402/fixtures';
import {
  buildPaymentReceipt,
  receiptHash,
  signReceipt,
  tollgateReceiptDomain,
  tollgateReceiptTypes,
  verifySignedReceipt,
  type BuildPaymentReceiptParams,
  type EvmSigner,
  type PaymentReceipt,
} from './index';

const gatewayKey = freshAccount();
const payer = freshAccount();
const facts: BuildPaymentReceiptParams = {
  refId: 'r_7f3a',
  paymentId: 'pay_0123456789abcdef0123456789abcdef',
  invoiceId: 'INV-2026-0042',
  gatewayOrigin: 'https://pay.example.com',
  resourceUrl: `https://pay.example.com/receive/${merchant}?ref=r_7f3a`,
  network: base,
  payTo: merchant.toLowerCase(),
  payer: payer.address.toLowerCase(),
  amount: '10000',
  authorizationNonce: `0x${'AB'.repeat(32)}`,
  txHash: `0x${'Cd'.repeat(32)}`,
  blockNumber: 12_345_678n,
  issuedAt: NOW,
};

/** RFC 8785 for this flat receipt, written out by hand: keys sorted, no whitespace. */
function handCanonical(receipt: PaymentReceipt): string {
  const entries = Object.entries(receipt).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
}

describe('buildPaymentReceipt', () => {
  it('spells every fact one way: checksummed addresses, lowercase hex, decimal block number', () => {
    expect(buildPaymentReceipt(facts)).toEqual({
      type: 'x402.payment.receipt',
      version: 1,
      refId: 'r_7f3a',
      paymentId: facts.paymentId,
      invoiceId: 'INV-2026-0042',
      gatewayOrigin: 'https://pay.example.com',
      resourceUrl: facts.resourceUrl,
      network: 'eip155:8453',
      chainId: 8453,
      asset: base.usdc.address,
      payTo: merchant,
      payer: payer.address,
      amount: '10000',
      authorizationNonce: `0x${'ab'.repeat(32)}`,
      txHash: `0x${'cd'.repeat(32)}`,
      blockNumber: '12345678',
      issuedAt: NOW,
    });
  });

  it('leaves out invoiceId and blockNumber when unknown', () => {
    const { invoiceId: _i, blockNumber: _b, ...rest } = facts;
    const receipt = buildPaymentReceipt(rest);
    expect('invoiceId' in receipt || 'blockNumber' in receipt).toBe(false);
  });

  it('refuses malformed facts', () => {
    const bad: Partial<BuildPaymentReceiptParams>[] = [
      { txHash: '0x1234' },
      { authorizationNonce: 'ab'.repeat(32) },
      { amount: '1.0' },
      { payer: 'alice' },
      { issuedAt: -1 },
      { blockNumber: -5 },
      { refId: '' },
    ];
    for (const change of bad) expect(() => buildPaymentReceipt({ ...facts, ...change })).toThrow();
  });
});

describe('receiptHash', () => {
  it('is lowercase hex sha256 of the RFC 8785 canonical JSON', () => {
    const receipt = buildPaymentReceipt(facts);
    const expected = createHash('sha256').update(handCanonical(receipt), 'utf8').digest('hex');
    expect(receiptHash(receipt)).toBe(expected);
    expect(receiptHash(receipt)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order and changes with any value', () => {
    const receipt = buildPaymentReceipt(facts);
    const shuffled = Object.fromEntries(Object.entries(receipt).reverse()) as unknown as PaymentReceipt;
    expect(receiptHash(shuffled)).toBe(receiptHash(receipt));
    for (const [key, value] of Object.entries({ amount: '10001', issuedAt: NOW + 1, refId: 'r_7f3b', chainId: 1 })) {
      expect(receiptHash({ ...receipt, [key]: value })).not.toBe(receiptHash(receipt));
    }
  });

  it('escapes non-ASCII text as RFC 8785 says (UTF-8, no \\u escapes)', () => {
    const receipt = buildPaymentReceipt({ ...facts, invoiceId: 'Rechnung-ü-€' });
    expect(receiptHash(receipt)).toBe(createHash('sha256').update(handCanonical(receipt), 'utf8').digest('hex'));
  });
});

describe('signReceipt / verifySignedReceipt', () => {
  it('signs TollgateReceipt(bytes32 receiptHash), verifiable with viem', async () => {
    const receipt = buildPaymentReceipt(facts);
    const signedReceipt = await signReceipt(receipt, gatewayKey);
    expect(signedReceipt).toMatch(/^0x[0-9a-f]{130}$/);
    const typed = { domain: tollgateReceiptDomain, types: tollgateReceiptTypes, primaryType: 'TollgateReceipt', message: { receiptHash: `0x${receiptHash(receipt)}` } };
    expect(await verifyTypedData({ ...typed, address: gatewayKey.address, signature: signedReceipt } as Parameters<typeof verifyTypedData>[0])).toBe(true);
    expect(verifySignedReceipt(signedReceipt, JSON.parse(JSON.stringify(receipt)), gatewayKey.address)).toEqual({
      valid: true,
      receipt,
      receiptHash: receiptHash(receipt),
      signer: gatewayKey.address,
    });
  });

  it('signs identically through signTypedData when the key cannot sign a digest', async () => {
    const receipt = buildPaymentReceipt(facts);
    const typedDataOnly: EvmSigner = { address: gatewayKey.address, signTypedData: (parameters) => gatewayKey.signTypedData(parameters) };
    expect(await signReceipt(receipt, typedDataOnly)).toBe(await signReceipt(receipt, gatewayKey));
  });

  it('refuses a receipt altered after signing, or signed by another key', async () => {
    const receipt = buildPaymentReceipt(facts);
    const signedReceipt = await signReceipt(receipt, gatewayKey);
    const altered = verifySignedReceipt(signedReceipt, { ...receipt, amount: '1' }, gatewayKey.address);
    expect(altered).toMatchObject({ valid: false, reason: 'wrong_signer' });
    const extraKey = verifySignedReceipt(signedReceipt, { ...receipt, note: 'added' }, gatewayKey.address);
    expect(extraKey).toMatchObject({ valid: false, reason: 'wrong_signer' });
    const other = freshAccount();
    expect(verifySignedReceipt(await signReceipt(receipt, other), receipt, gatewayKey.address)).toEqual({ valid: false, reason: 'wrong_signer', receiptHash: receiptHash(receipt), signer: other.address });
  });

  it('reports a malformed receipt with its field, and a malformed signature', async () => {
    const receipt = buildPaymentReceipt(facts);
    const signedReceipt = await signReceipt(receipt, gatewayKey);
    expect(verifySignedReceipt(signedReceipt, { ...receipt, txHash: '0x12' }, gatewayKey.address)).toEqual({ valid: false, reason: 'malformed_receipt', field: 'txHash' });
    expect(verifySignedReceipt(signedReceipt, { ...receipt, type: 'other' }, gatewayKey.address)).toMatchObject({ reason: 'malformed_receipt', field: 'type' });
    expect(verifySignedReceipt(signedReceipt, 'receipt', gatewayKey.address)).toMatchObject({ reason: 'malformed_receipt' });
    for (const signature of ['0x12', 42, `0x${'00'.repeat(65)}`, randomNonce()]) {
      expect(verifySignedReceipt(signature, receipt, gatewayKey.address)).toMatchObject({ valid: false, reason: 'malformed_signature' });
    }
  });
});
