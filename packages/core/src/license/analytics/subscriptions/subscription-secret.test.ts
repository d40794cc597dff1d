import { describe, expect, it } from 'vitest';
import { hexEncode } from '../../../crypto/hex';
import { createSubscriptionSigningKey, openSubscriptionSigningKey } from './subscription-secret';

const masterKey = new Uint8Array(32).fill(7);
const otherMaster = new Uint8Array(32).fill(8);
const subscriptionId = 'a'.repeat(32);

describe('subscription signing secrets', () => {
  it('seals a fresh random secret that opens only for its subscription, key id and master key', () => {
    const { key, sealed } = createSubscriptionSigningKey(masterKey, subscriptionId);
    expect(key.keyId).toMatch(/^sk_[0-9a-f]{16}$/);
    expect(key.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(hexEncode(sealed)).not.toContain(key.secret);
    expect(openSubscriptionSigningKey(masterKey, subscriptionId, key.keyId, sealed)).toEqual(key);
    expect(() => openSubscriptionSigningKey(masterKey, 'b'.repeat(32), key.keyId, sealed)).toThrow(/does not open/);
    expect(() => openSubscriptionSigningKey(masterKey, subscriptionId, 'sk_0000000000000000', sealed)).toThrow(/does not open/);
    expect(() => openSubscriptionSigningKey(otherMaster, subscriptionId, key.keyId, sealed)).toThrow(/does not open/);
    const altered = sealed.slice();
    altered[40] = (altered[40] ?? 0) ^ 1;
    expect(() => openSubscriptionSigningKey(masterKey, subscriptionId, key.keyId, altered)).toThrow(/does not open/);
    expect(() => openSubscriptionSigningKey(masterKey, subscriptionId, key.keyId, sealed.subarray(1))).toThrow(/unknown format/);
  });

  it('draws a new secret every time', () => {
    const a = createSubscriptionSigningKey(masterKey, subscriptionId).key;
    const b = createSubscriptionSigningKey(masterKey, subscriptionId).key;
    expect(a.secret).not.toBe(b.secret);
    expect(a.keyId).not.toBe(b.keyId);
  });
});
