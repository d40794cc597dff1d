import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../testing';
import { signCheckoutToken, verifyCheckoutToken, type CheckoutTokenClaims } from './checkout-token';

const key = new Uint8Array(32).fill(7);
const claims: CheckoutTokenClaims = {
  vendorId: 'a1'.repeat(16),
  productId: 'b2'.repeat(16),
  policyId: null,
  licenseId: 'c3'.repeat(16),
  accountId: null,
  provider: 'lemonsqueezy',
  priceId: 'price_123',
  expiresAt: 1_900_000_000,
};

describe('checkout tokens', () => {
  it('round-trips what they bind and fit a 500-character metadata value', () => {
    const token = signCheckoutToken(key, claims);
    expect(verifyCheckoutToken(key, token)).toEqual(claims);
    const full = signCheckoutToken(key, { ...claims, licenseId: null, policyId: 'd4'.repeat(16), accountId: 'e5'.repeat(16), priceId: 'x'.repeat(64) });
    expect(full.length).toBeLessThanOrEqual(500);
    expect(verifyCheckoutToken(key, full)?.policyId).toBe('d4'.repeat(16));
  });

  it('refuses another key, any changed field and junk', () => {
    const token = signCheckoutToken(key, claims);
    expect(verifyCheckoutToken(new Uint8Array(32).fill(8), token)).toBeUndefined();
    const parts = token.split('.');
    // Swap the bound license for another (a buyer editing custom data): the MAC no longer matches.
    const swapped = [...parts.slice(0, 4), 'ff'.repeat(16), ...parts.slice(5)].join('.');
    expect(verifyCheckoutToken(key, swapped)).toBeUndefined();
    const unbound = [...parts.slice(0, 7), '', ...parts.slice(8)].join('.');
    expect(verifyCheckoutToken(key, unbound)).toBeUndefined();
    for (const junk of ['', 'tgc1', '.'.repeat(9), `${token}.x`, token.replace('tgc1', 'tgc2'), 'x'.repeat(600)]) expect(verifyCheckoutToken(key, junk)).toBeUndefined();
    const random = seededRandom(0xc4ec);
    for (let round = 0; round < 300; round += 1) {
      const chars = [...token];
      chars[random.int(chars.length)] = String.fromCharCode(33 + random.int(90));
      const mutated = chars.join('');
      if (mutated !== token) expect(verifyCheckoutToken(key, mutated)).toBeUndefined();
    }
  });
});
