import { describe, expect, it } from 'vitest';
import { base64Decode, hmacSha256, keyedHash, utf8Encode } from '@tollgate/core/crypto';
import { apiKeyPattern, deriveNotifyHmacKey, generateApiKey, hashApiKey, newCredentialId } from '@tollgate/core/gateway';

const key = new Uint8Array(32).fill(9);

describe('merchant credentials', () => {
  it('generates tg_live_ API keys with 256 random bits', () => {
    const apiKey = generateApiKey();
    expect(apiKey).toMatch(apiKeyPattern);
    expect(apiKey).toHaveLength(8 + 43);
    expect(generateApiKey()).not.toBe(apiKey);
    expect(generateApiKey((length) => new Uint8Array(length).fill(0xff))).toBe(`tg_live_${'_'.repeat(42)}8`);
  });

  it('stores API keys as the api-key keyed hash', () => {
    const apiKey = generateApiKey();
    expect(hashApiKey(key, apiKey)).toBe(keyedHash(key, apiKey, 'api-key'));
    expect(hashApiKey(key, apiKey)).not.toBe(keyedHash(key, apiKey, 'license-key'));
  });

  it('derives notify keys as base64url(HMAC(root, domain ‖ 0 ‖ merchant ‖ 0 ‖ key id))', () => {
    const derived = deriveNotifyHmacKey(key, 'merchant-1', 'key-1');
    const expected = hmacSha256(key, utf8Encode('tollgate/notify-key/v1\u0000merchant-1\u0000key-1'));
    expect(base64Decode(derived)).toEqual(expected);
    expect(derived).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deriveNotifyHmacKey(key, 'merchant-1', 'key-2')).not.toBe(derived);
    expect(deriveNotifyHmacKey(key, 'merchant-2', 'key-1')).not.toBe(derived);
    expect(() => deriveNotifyHmacKey(key, 'merchant\u0000', 'x')).toThrow(TypeError);
  });

  it('names credentials with 16 hex digits', () => {
    expect(newCredentialId()).toMatch(/^[0-9a-f]{16}$/);
  });
});
