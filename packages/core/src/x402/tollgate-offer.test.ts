import { hashTypedData, verifyTypedData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { base, baseSepolia, freshAccount, merchant, NOW, randomNonce } from '../../test/x402/fixtures';
import {
  alignedOfferExpiry,
  buildPaymentRequirements,
  createSignedOffer,
  extractEchoedOffer,
  hashTollgateOffer,
  PaymentVerificationError,
  TOLLGATE_OFFER,
  tollgateOfferExtension,
  tollgateOfferTypedData,
  verifySignedOffer,
  type EvmSigner,
  type SignedTollgateOffer,
  type TollgateOfferPayload,
} from './index';
import { thrownBy } from '../../test/support/thrown';

const gatewayKey = freshAccount();
const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
const common = { gatewayOrigin: 'https://pay.example.com', resourceUrl: `https://pay.example.com/receive/${merchant}?ref=r1`, requirements: accepted, network: base };
const expiry = NOW + 300;
const offerFor = (overrides: Partial<Parameters<typeof createSignedOffer>[0]> = {}) => createSignedOffer({ ...common, expiry, ...overrides }, gatewayKey);

const refusal = (run: () => unknown): PaymentVerificationError => thrownBy(PaymentVerificationError, run);

describe('createSignedOffer', () => {
  it('binds origin, resource, id, payTo, amount, network, chain id, asset, expiry and nonce', async () => {
    const nonce = randomNonce();
    const offer = await offerFor({ paymentId: 'pay_0123456789abcdef0123456789abcdef', nonce });
    expect(offer.format).toBe('eip712');
    expect(offer.payload).toEqual({
      gatewayOrigin: common.gatewayOrigin,
      resourceUrl: common.resourceUrl,
      paymentId: 'pay_0123456789abcdef0123456789abcdef',
      payTo: merchant,
      amount: '10000',
      network: 'eip155:8453',
      chainId: 8453,
      asset: base.usdc.address,
      expiry,
      nonce,
    });
    expect(offer.signature).toMatch(/^0x[0-9a-f]{130}$/);
  });

  it('is a standard EIP-712 signature any library verifies', async () => {
    const offer = await offerFor();
    const typed = tollgateOfferTypedData(offer.payload);
    expect(hashTollgateOffer(offer.payload)).toBe(hashTypedData(typed));
    expect(await verifyTypedData({ ...typed, address: gatewayKey.address, signature: offer.signature })).toBe(true);
  });

  it('signs the digest when the key can, typed data otherwise, with identical bytes', async () => {
    const typedDataOnly: EvmSigner = { address: gatewayKey.address, signTypedData: (parameters) => gatewayKey.signTypedData(parameters) };
    const params = { ...common, expiry, paymentId: 'pay_0123456789abcdef0123456789abcdef', nonce: randomNonce() };
    expect(await createSignedOffer(params, typedDataOnly)).toEqual(await createSignedOffer(params, gatewayKey));
  });

  it('mints a fresh payment id and nonce unless given', async () => {
    const [a, b] = [await offerFor(), await offerFor()];
    expect(a.payload.paymentId).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(a.payload.paymentId).not.toBe(b.payload.paymentId);
    expect(a.payload.nonce).not.toBe(b.payload.nonce);
  });

  it('refuses a requirement for another network', async () => {
    await expect(createSignedOffer({ ...common, network: baseSepolia, expiry }, gatewayKey)).rejects.toThrow(TypeError);
  });
});

describe('alignedOfferExpiry', () => {
  it('rounds now + validity up to the granule, so offers within one granule are identical', () => {
    expect(alignedOfferExpiry(1_000, 300, 60)).toBe(1_320);
    expect(alignedOfferExpiry(1_020, 300, 60)).toBe(1_320);
    expect(alignedOfferExpiry(1_021, 300, 60)).toBe(1_380);
    expect(alignedOfferExpiry(1_000, 300)).toBe(1_320);
    expect(() => alignedOfferExpiry(1_000, 300, 0)).toThrow(RangeError);
    expect(() => alignedOfferExpiry(1.5, 300, 60)).toThrow(RangeError);
  });
});

describe('extractEchoedOffer / tollgateOfferExtension', () => {
  it('reads back the offer an x402 client echoed in its payload', async () => {
    const offer = await offerFor();
    const entry = tollgateOfferExtension(offer);
    expect(entry.info).toBe(offer);
    const payload = { x402Version: 2 as const, accepted, payload: {}, extensions: { [TOLLGATE_OFFER]: JSON.parse(JSON.stringify(entry)) as unknown } };
    expect(extractEchoedOffer(payload)).toEqual(offer);
    expect(extractEchoedOffer({ ...payload, extensions: {} })).toBeUndefined();
  });
});

describe('verifySignedOffer', () => {
  const expected = (offer: SignedTollgateOffer): Partial<TollgateOfferPayload> => ({ ...offer.payload });

  it('returns the payload of our unexpired, matching offer', async () => {
    const offer = await offerFor();
    expect(verifySignedOffer(offer, { expectedSigner: gatewayKey.address, now: NOW, expected: expected(offer) })).toEqual(offer.payload);
    expect(verifySignedOffer(offer, { expectedSigner: gatewayKey.address, now: expiry })).toEqual(offer.payload);
  });

  it('names every field that does not match', async () => {
    const offer = await offerFor();
    const wrong: Partial<TollgateOfferPayload> = {
      gatewayOrigin: 'https://evil.example',
      resourceUrl: 'https://pay.example.com/receive/x?ref=r2',
      paymentId: 'pay_ffffffffffffffffffffffffffffffff',
      payTo: freshAccount().address,
      amount: '10001',
      network: 'eip155:84532',
      chainId: 84532,
      asset: baseSepolia.usdc.address,
      expiry: expiry + 1,
      nonce: randomNonce(),
    };
    for (const [field, value] of Object.entries(wrong)) {
      const error = refusal(() => verifySignedOffer(offer, { expectedSigner: gatewayKey.address, now: NOW, expected: { ...expected(offer), [field]: value } }));
      expect([error.field, error.reason, error.code]).toEqual([`offer.${field}`, 'mismatch', 'payment_verification_failed']);
    }
    // Addresses compare case-insensitively.
    expect(() => verifySignedOffer(offer, { expectedSigner: gatewayKey.address, now: NOW, expected: { payTo: merchant.toLowerCase() as Hex } })).not.toThrow();
  });

  it('refuses an expired offer', async () => {
    const offer = await offerFor();
    const error = refusal(() => verifySignedOffer(offer, { expectedSigner: gatewayKey.address, now: expiry + 1 }));
    expect([error.field, error.reason]).toEqual(['offer.expiry', 'expired']);
  });

  it('refuses an offer signed by another key or altered after signing', async () => {
    const offer = await offerFor();
    const foreign = await createSignedOffer({ ...common, expiry }, freshAccount());
    expect(refusal(() => verifySignedOffer(foreign, { expectedSigner: gatewayKey.address, now: NOW })).reason).toBe('wrong_signer');
    const altered = { ...offer, payload: { ...offer.payload, amount: '1' } };
    const error = refusal(() => verifySignedOffer(altered, { expectedSigner: gatewayKey.address, now: NOW }));
    expect([error.field, error.reason]).toEqual(['offer.signature', 'wrong_signer']);
    const garbled = { ...offer, signature: `0x${'00'.repeat(65)}` };
    expect(refusal(() => verifySignedOffer(garbled, { expectedSigner: gatewayKey.address, now: NOW })).reason).toMatch(/^unrecoverable_/);
  });

  it('refuses malformed offers and names the path', async () => {
    const offer = await offerFor();
    const cases: [unknown, string][] = [
      [undefined, 'offer'],
      ['offer', 'offer'],
      [{ ...offer, format: 'jws' }, 'offer.format'],
      [{ ...offer, payload: { ...offer.payload, nonce: '0x12' } }, 'offer.payload.nonce'],
      [{ ...offer, payload: { ...offer.payload, amount: 10000 } }, 'offer.payload.amount'],
      [{ ...offer, payload: { ...offer.payload, chainId: '8453' } }, 'offer.payload.chainId'],
      [{ ...offer, payload: { ...offer.payload, expiry: -1 } }, 'offer.payload.expiry'],
      [{ ...offer, signature: 'zz' }, 'offer.signature'],
    ];
    for (const [value, field] of cases) {
      const error = refusal(() => verifySignedOffer(value, { expectedSigner: gatewayKey.address, now: NOW }));
      expect([error.field, error.reason]).toEqual([field, 'malformed']);
    }
  });
});
