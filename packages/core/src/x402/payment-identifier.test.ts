import { describe, expect, it } from 'vitest';
import { declarePaymentIdentifier, extractPaymentIdentifier, generatePaymentId, isValidPaymentId, PAYMENT_IDENTIFIER, PaymentVerificationError, type PaymentPayload } from './index';
import { thrownBy } from '../../test/support/thrown';

const bare: PaymentPayload = {
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'eip155:8453', amount: '1', asset: '0x', payTo: '0x', maxTimeoutSeconds: 60, extra: {} },
  payload: {},
};
const withExtension = (entry: unknown): PaymentPayload => ({ ...bare, extensions: { [PAYMENT_IDENTIFIER]: entry } });

const refusal = (run: () => unknown): PaymentVerificationError => thrownBy(PaymentVerificationError, run);

describe('declarePaymentIdentifier', () => {
  it('declares an optional id by default, a required one on request', () => {
    expect(declarePaymentIdentifier().info).toEqual({ required: false });
    expect(declarePaymentIdentifier({ required: true }).info).toEqual({ required: true });
    expect(declarePaymentIdentifier().schema).toMatchObject({ required: ['required'], properties: { id: { minLength: 16, maxLength: 128 } } });
  });
});

describe('isValidPaymentId / generatePaymentId', () => {
  it('enforces 16-128 characters of [a-zA-Z0-9_-]', () => {
    expect(isValidPaymentId('a'.repeat(16))).toBe(true);
    expect(isValidPaymentId('A-b_9'.repeat(25) + 'xyz')).toBe(true); // 128
    expect(isValidPaymentId('a'.repeat(15))).toBe(false);
    expect(isValidPaymentId('a'.repeat(129))).toBe(false);
    for (const bad of ['pay_0123456789abcde!', 'pay 0123456789abcdef', 'pay_0123456789abcdé', 12345678901234567]) expect(isValidPaymentId(bad)).toBe(false);
  });

  it('generates valid, distinct pay_ ids', () => {
    const ids = new Set(Array.from({ length: 50 }, generatePaymentId));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^pay_[0-9a-f]{32}$/);
  });
});

describe('extractPaymentIdentifier', () => {
  it('returns the id the client added to the echoed declaration', () => {
    expect(extractPaymentIdentifier(withExtension({ info: { required: false, id: 'pay_7d5d747be160e280504c099d984bcfe0' }, schema: {} }))).toBe('pay_7d5d747be160e280504c099d984bcfe0');
  });

  it('returns undefined without the extension or without an id', () => {
    expect(extractPaymentIdentifier(bare)).toBeUndefined();
    expect(extractPaymentIdentifier(withExtension({ info: { required: false } }))).toBeUndefined();
  });

  it('refuses a malformed id or extension with invalid_request', () => {
    const badId = refusal(() => extractPaymentIdentifier(withExtension({ info: { required: false, id: 'short' } })));
    expect([badId.code, badId.field, badId.reason]).toEqual(['invalid_request', 'extensions.payment-identifier.info.id', 'malformed']);
    expect(refusal(() => extractPaymentIdentifier(withExtension({ info: { id: 1234567890123456 } }))).field).toBe('extensions.payment-identifier.info.id');
    for (const entry of ['pay_x', null, { info: 'x' }, { info: [] }, {}]) {
      expect(refusal(() => extractPaymentIdentifier(withExtension(entry))).field).toBe('extensions.payment-identifier');
    }
  });

  it('refuses a missing id when the gateway requires one', () => {
    const missing = refusal(() => extractPaymentIdentifier(bare, { required: true }));
    expect([missing.code, missing.field, missing.reason]).toEqual(['invalid_request', 'extensions.payment-identifier', 'missing']);
    expect(refusal(() => extractPaymentIdentifier(withExtension({ info: { required: true } }), { required: true })).reason).toBe('missing');
  });
});
