import { describe, expect, it } from 'vitest';
import { constantTimeEqual, constantTimeEqualString, CryptoError, randomBytes } from './index';

describe('constantTimeEqual', () => {
  it('is true for equal contents, including empty arrays and distinct views', () => {
    const bytes = randomBytes(32);
    expect(constantTimeEqual(bytes, bytes.slice())).toBe(true);
    expect(constantTimeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    const backing = Uint8Array.of(9, 1, 2, 3, 9);
    expect(constantTimeEqual(backing.subarray(1, 4), Uint8Array.of(1, 2, 3))).toBe(true);
  });

  it('is false when any single byte differs, wherever it is', () => {
    const bytes = randomBytes(32);
    for (let index = 0; index < bytes.length; index++) {
      const changed = bytes.slice();
      changed[index] = (changed[index] as number) ^ 0x01;
      expect(constantTimeEqual(bytes, changed)).toBe(false);
    }
  });

  it('is false for different lengths, including a prefix', () => {
    const bytes = randomBytes(32);
    expect(constantTimeEqual(bytes, bytes.subarray(0, 31))).toBe(false);
    expect(constantTimeEqual(bytes.subarray(0, 0), bytes)).toBe(false);
    expect(constantTimeEqual(new Uint8Array(2), new Uint8Array(3))).toBe(false);
  });

  it('refuses arguments that are not bytes', () => {
    expect(() => constantTimeEqual('ab' as unknown as Uint8Array, new Uint8Array(2))).toThrow(CryptoError);
    expect(() => constantTimeEqual(new Uint8Array(2), [0, 0] as unknown as Uint8Array)).toThrow(CryptoError);
  });
});

describe('constantTimeEqualString', () => {
  it('compares hex digests exactly', () => {
    const digest = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(constantTimeEqualString(digest, `${digest}`)).toBe(true);
    expect(constantTimeEqualString(digest, `${digest.slice(0, -1)}4`)).toBe(false);
    expect(constantTimeEqualString(digest, `f${digest.slice(1)}`)).toBe(false);
    expect(constantTimeEqualString(digest, digest.toUpperCase())).toBe(false);
    expect(constantTimeEqualString(digest, digest.slice(0, 63))).toBe(false);
    expect(constantTimeEqualString('', '')).toBe(true);
  });

  it('sees differences in any UTF-16 code unit', () => {
    expect(constantTimeEqualString('é', 'e\u0301')).toBe(false);
    expect(constantTimeEqualString('\u0100', '\u0000')).toBe(false);
  });

  it('refuses arguments that are not strings', () => {
    expect(() => constantTimeEqualString(undefined as unknown as string, '')).toThrow(CryptoError);
    expect(() => constantTimeEqualString('', 0 as unknown as string)).toThrow(CryptoError);
  });
});
