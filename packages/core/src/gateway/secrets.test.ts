import { describe, expect, it } from 'vitest';
import { deriveGatewayKeys, hexEncode, parseGatewaySecret } from '@tollgate/core';
import { base64Encode, base64UrlEncode } from '@tollgate/core/crypto';

const secret = Uint8Array.from({ length: 32 }, (_, index) => index * 7 + 1);

describe('gateway secret', () => {
  it('parses 32 bytes written as hex, base64 or base64url', () => {
    expect(parseGatewaySecret(hexEncode(secret))).toEqual(secret);
    expect(parseGatewaySecret(hexEncode(secret).toUpperCase())).toEqual(secret);
    expect(parseGatewaySecret(base64Encode(secret))).toEqual(secret);
    expect(parseGatewaySecret(base64UrlEncode(secret))).toEqual(secret);
    expect(parseGatewaySecret(` ${hexEncode(secret)}\n`)).toEqual(secret);
  });

  it('refuses other lengths and forms without echoing the value', () => {
    for (const bad of ['', 'not-the-right-form', hexEncode(secret).slice(2), `${hexEncode(secret)}00`, base64Encode(secret.subarray(1)), `${base64UrlEncode(secret).slice(0, -1)}+`]) {
      expect(() => parseGatewaySecret(bad)).toThrow(TypeError);
      try {
        parseGatewaySecret(bad);
      } catch (error) {
        if (bad.length > 0) expect((error as Error).message).not.toContain(bad);
      }
    }
  });

  it('derives three distinct, deterministic 32-byte subkeys', () => {
    const keys = deriveGatewayKeys(secret);
    const again = deriveGatewayKeys(Uint8Array.from(secret));
    expect(keys).toEqual(again);
    const all = [keys.apiKeyHash, keys.cursor, keys.notifyRoot].map(hexEncode);
    expect(new Set(all).size).toBe(3);
    for (const key of [keys.apiKeyHash, keys.cursor, keys.notifyRoot]) expect(key).toHaveLength(32);
    expect(all).not.toContain(hexEncode(secret));
    const other = deriveGatewayKeys(Uint8Array.from(secret, (byte, index) => (index === 0 ? byte ^ 1 : byte)));
    expect(hexEncode(other.apiKeyHash)).not.toBe(all[0]);
    expect(() => deriveGatewayKeys(secret.subarray(1))).toThrow(TypeError);
  });
});
