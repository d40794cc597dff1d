import { describe, expect, it } from 'vitest';
import { keyedHash, keyedHashLabels } from '../../../crypto/keyed-hash';
import { generateLicenseKey, hashLicenseKey, licenseKeyHint, normalizeLicenseKey } from './license-key';

const hashKey = new Uint8Array(32).fill(7);

describe('license keys', () => {
  it('are six groups of five Crockford base32 characters', () => {
    for (let n = 0; n < 200; n += 1) expect(generateLicenseKey()).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){5}$/);
  });

  it('carry 150 random bits: every bit of the first 150 drawn reaches the key, the last two do not', () => {
    const zeros = generateLicenseKey(() => new Uint8Array(19));
    expect(zeros).toBe('00000-00000-00000-00000-00000-00000');
    const ones = generateLicenseKey(() => new Uint8Array(19).fill(0xff));
    expect(ones).toBe('ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ');
    const seen = new Set<string>();
    for (let bit = 0; bit < 152; bit += 1) {
      const bytes = new Uint8Array(19);
      bytes[bit >> 3] = 0x80 >> (bit & 7);
      seen.add(generateLicenseKey(() => bytes.slice()));
    }
    // Bits 0–149 each give a distinct key; bits 150 and 151 are dropped (both give the all-zero key).
    expect(seen.size).toBe(151);
    expect(seen.has(zeros)).toBe(true);
  });

  it('wipes the random bytes it drew', () => {
    const bytes = new Uint8Array(19).fill(0xa5);
    generateLicenseKey(() => bytes);
    expect([...bytes].every((byte) => byte === 0)).toBe(true);
  });

  it('refuses a random source that breaks its contract', () => {
    expect(() => generateLicenseKey(() => new Uint8Array(18))).toThrow(TypeError);
  });

  it('normalise what people type: case, hyphens, spaces and look-alike letters', () => {
    const key = generateLicenseKey();
    const canonical = key.replace(/-/g, '');
    expect(normalizeLicenseKey(key)).toBe(canonical);
    expect(normalizeLicenseKey(` ${key.toLowerCase()} `)).toBe(canonical);
    expect(normalizeLicenseKey(key.replace(/-/g, ' '))).toBe(canonical);
    expect(normalizeLicenseKey('O0OIL-11111-00000-00000-00000-00000')).toBe('000111111100000000000000000000');
    expect(normalizeLicenseKey('U0000-00000-00000-00000-00000-00000')).toBeUndefined();
    expect(normalizeLicenseKey('00000-00000-00000-00000-00000')).toBeUndefined();
    expect(normalizeLicenseKey('0'.repeat(65))).toBeUndefined();
  });

  it('hash in canonical form under the license-key label, so any typed form finds the stored hash', () => {
    const key = generateLicenseKey();
    const stored = hashLicenseKey(hashKey, key);
    expect(stored).toBe(keyedHash(hashKey, key.replace(/-/g, ''), keyedHashLabels.licenseKey));
    expect(hashLicenseKey(hashKey, key.toLowerCase().replace(/-/g, ''))).toBe(stored);
    expect(hashLicenseKey(new Uint8Array(32).fill(8), key)).not.toBe(stored);
    expect(hashLicenseKey(hashKey, 'not a key')).toBeUndefined();
  });

  it('hint with the last four characters', () => {
    expect(licenseKeyHint('ABCDE-FGHJK-MNPQR-STVWX-YZ012-34567')).toBe('4567');
    expect(() => licenseKeyHint('nope')).toThrow(TypeError);
  });
});
