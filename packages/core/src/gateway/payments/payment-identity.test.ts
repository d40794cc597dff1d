import { describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@tollgate/core';
import { authorizationPaymentId, identifyPayment, paymentFingerprint } from '@tollgate/core/gateway';

const payer = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const nonce = `0x${'AB'.repeat(32)}`;
const payload: PaymentPayload = {
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: payer, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } },
  payload: {
    authorization: { from: payer.toLowerCase(), to: payer, value: '10000', validAfter: '0', validBefore: '1800000000', nonce },
    signature: `0x${'11'.repeat(65)}`,
  },
};

describe('payment identity', () => {
  it('derives the id of a payment without payment-identifier from chain, payer and nonce, in lowercase', () => {
    expect(authorizationPaymentId(8453, payer, nonce)).toBe(`auth:8453:${payer.toLowerCase()}:0x${'ab'.repeat(32)}`);
    expect(identifyPayment(payload, 8453, undefined)).toEqual({
      paymentId: `auth:8453:${payer.toLowerCase()}:0x${'ab'.repeat(32)}`,
      chainId: 8453,
      payer,
      nonce: `0x${'ab'.repeat(32)}`,
      validBefore: '1800000000',
      validAfter: '0',
      fingerprint: paymentFingerprint(payload),
    });
    expect(identifyPayment(payload, 8453, 'pay_0123456789abcdef')).toMatchObject({ paymentId: 'pay_0123456789abcdef' });
  });

  it('fingerprints the canonical JSON: key order does not count, every value does', () => {
    const reordered = JSON.parse(JSON.stringify({ payload: payload.payload, accepted: payload.accepted, x402Version: 2 })) as PaymentPayload;
    expect(paymentFingerprint(reordered)).toBe(paymentFingerprint(payload));
    expect(paymentFingerprint(payload)).toMatch(/^[0-9a-f]{64}$/);
    const changed = { ...payload, extensions: { 'payment-identifier': { info: { required: false } } } };
    expect(paymentFingerprint(changed)).not.toBe(paymentFingerprint(payload));
  });

  it('has no identity for a malformed EIP-3009 payload', () => {
    expect(identifyPayment({ ...payload, payload: { authorization: { from: '0x12' }, signature: '0x' } }, 8453, undefined)).toBeUndefined();
  });
});
