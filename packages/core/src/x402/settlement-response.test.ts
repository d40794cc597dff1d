import { describe, expect, it } from 'vitest';
import { base, freshAccount, merchant, NOW } from '../../test/x402/fixtures';
import {
  buildPaymentReceipt,
  buildSettlementFailureResponse,
  buildSettlementResponse,
  decodePaymentResponseHeader,
  signReceipt,
  signX402Receipt,
  verifySignedReceipt,
} from './index';

const gatewayKey = freshAccount();
const payer = freshAccount().address;
const txHash = `0x${'5a'.repeat(32)}`;

async function settled() {
  const receipt = buildPaymentReceipt({
    refId: 'r1',
    paymentId: 'pay_0123456789abcdef0123456789abcdef',
    gatewayOrigin: 'https://pay.example.com',
    resourceUrl: `https://pay.example.com/receive/${merchant}?ref=r1`,
    network: base,
    payTo: merchant,
    payer,
    amount: '10000',
    authorizationNonce: `0x${'01'.repeat(32)}`,
    txHash,
    issuedAt: NOW,
  });
  const signedReceipt = await signReceipt(receipt, gatewayKey);
  const x402Receipt = await signX402Receipt({ network: receipt.network, resourceUrl: receipt.resourceUrl, payer, issuedAt: NOW, transaction: txHash }, gatewayKey);
  return { receipt, signedReceipt, x402Receipt };
}

describe('buildSettlementResponse', () => {
  it('lays out the spec body with the receipt, its signature and the x402 artifact', async () => {
    const parts = await settled();
    const { body } = buildSettlementResponse(parts);
    expect(body).toEqual({
      x402Version: 2,
      success: true,
      network: 'eip155:8453',
      transaction: txHash,
      payer,
      receiptStatus: 'issued',
      response: { code: 'settled', message: 'Payment settled.' },
      extensions: {
        'offer-receipt': {
          info: { receipt: parts.x402Receipt },
          schema: expect.objectContaining({ required: ['receipt'] }),
          signedReceipt: parts.signedReceipt,
          receipt: parts.receipt,
        },
      },
    });
    expect(body.extensions['offer-receipt'].receipt).toMatchObject({ type: 'x402.payment.receipt', txHash });
    expect(buildSettlementResponse({ ...parts, message: 'Thanks!' }).body.response.message).toBe('Thanks!');
  });

  it('puts the same body in the PAYMENT-RESPONSE header, and the receipt still verifies after the trip', async () => {
    const parts = await settled();
    const { body, header } = buildSettlementResponse(parts);
    const decoded = decodePaymentResponseHeader(header);
    expect(decoded).toEqual(JSON.parse(JSON.stringify(body)));
    const extension = (decoded.extensions as Record<string, { signedReceipt: string; receipt: unknown }>)['offer-receipt'];
    expect(verifySignedReceipt(extension?.signedReceipt, extension?.receipt, gatewayKey.address)).toMatchObject({ valid: true });
  });
});

describe('buildSettlementFailureResponse', () => {
  it('reports a failure without a transaction as an x402 SettleResponse', () => {
    const { body, header } = buildSettlementFailureResponse({ network: 'eip155:8453', errorReason: 'insufficient_funds', payer });
    expect(body).toEqual({ x402Version: 2, success: false, errorReason: 'insufficient_funds', network: 'eip155:8453', transaction: '', payer });
    expect(decodePaymentResponseHeader(header)).toEqual(body);
  });

  it('keeps the hash and message of a pending or reverted settlement', () => {
    const { body } = buildSettlementFailureResponse({ network: 'eip155:8453', errorReason: 'settlement_pending', errorMessage: 'receipt wait timed out', transaction: txHash });
    expect(body).toEqual({ x402Version: 2, success: false, errorReason: 'settlement_pending', errorMessage: 'receipt wait timed out', network: 'eip155:8453', transaction: txHash });
  });
});
