import { describe, expect, it } from 'vitest';
import { base64Decode, base64Encode, base64UrlEncode, CryptoError, randomBytes } from './index';
import { thrownBy } from '../../test/support/thrown';

const refusal = (run: () => unknown): CryptoError => thrownBy(CryptoError, run);

const reasonOf = (text: string): unknown => refusal(() => base64Decode(text)).details['reason'];

describe('base64Encode / base64UrlEncode', () => {
  it('matches the RFC 4648 §10 test vectors', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of vectors) {
      const bytes = new TextEncoder().encode(plain);
      expect(base64Encode(bytes)).toBe(encoded);
      expect(base64UrlEncode(bytes)).toBe(encoded.replace(/=+$/, ''));
    }
  });

  it('uses + and / for standard base64 and - and _ for base64url', () => {
    const bytes = Uint8Array.of(0xfb, 0xff, 0xbf);
    expect(base64Encode(bytes)).toBe('+/+/');
    expect(base64UrlEncode(bytes)).toBe('-_-_');
  });

  it('agrees with Node for every length from 0 to 64', () => {
    for (let length = 0; length <= 64; length++) {
      const bytes = randomBytes(length);
      expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(base64UrlEncode(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });

  it('refuses values that are not bytes', () => {
    expect(refusal(() => base64Encode([1, 2] as unknown as Uint8Array)).code).toBe('invalid_argument');
  });
});

describe('base64Decode', () => {
  it('round-trips random bytes of every length 0..64 in all four forms', () => {
    for (let length = 0; length <= 64; length++) {
      for (let draw = 0; draw < 4; draw++) {
        const bytes = randomBytes(length);
        const standard = base64Encode(bytes);
        const url = base64UrlEncode(bytes);
        expect(base64Decode(standard)).toEqual(bytes); // standard, padded
        expect(base64Decode(standard.replace(/=+$/, ''))).toEqual(bytes); // standard, unpadded
        expect(base64Decode(url)).toEqual(bytes); // url, unpadded
        expect(base64Decode(url.padEnd(standard.length, '='))).toEqual(bytes); // url, padded
      }
    }
  });

  it('decodes both alphabets to the same bytes', () => {
    expect(base64Decode('+/+/')).toEqual(Uint8Array.of(0xfb, 0xff, 0xbf));
    expect(base64Decode('-_-_')).toEqual(Uint8Array.of(0xfb, 0xff, 0xbf));
    expect(base64Decode('-_8')).toEqual(base64Decode('+/8='));
  });

  it('refuses characters outside both alphabets, including whitespace', () => {
    const cases: Array<[string, number]> = [
      ['Zm9!', 3],
      ['Zm 9', 2],
      [' Zm9', 0],
      ['Zm\t9', 2],
      ['Zm9v\r\nZm9v', 4],
      ['Zm.v', 2],
      ['Zm9é', 3],
      ['Zm9\u0000', 3],
      ['\uFF21AAA', 0], // fullwidth 'A'
    ];
    for (const [text, position] of cases) {
      expect(refusal(() => base64Decode(text)).details).toEqual({ encoding: 'base64', reason: 'bad_character', position });
    }
  });

  it('refuses strings that mix the standard and URL alphabets', () => {
    for (const text of ['+_AA', '-/AA', 'ab+-', 'a_b/']) expect(reasonOf(text)).toBe('mixed_alphabet');
  });

  it('refuses bad padding', () => {
    for (const text of ['a===', '====', '=', '==', 'Zg=', 'Zg===', 'Zm8==', 'Z=g=', '=Zg=', 'Zg==Zg==', 'Zm9v=', 'Zm9v====']) {
      expect(reasonOf(text)).toBe('bad_padding');
    }
  });

  it('refuses lengths that no byte count produces (len % 4 == 1)', () => {
    for (const text of ['Z', 'Zm9vY', 'Zm9vYmFyZ']) expect(reasonOf(text)).toBe('bad_length');
  });

  it('refuses non-zero trailing bits so that decoding is canonical', () => {
    // 'Zg' is the canonical form of 'f'; 'Zh'..'Zv' carry bits in the unused low nibble.
    for (const text of ['Zh', 'Zh==', 'Zv', 'QR==', 'Zm9=', 'Zm-', 'Zm_']) expect(reasonOf(text)).toBe('non_canonical');
    expect(base64Decode('Zg')).toEqual(Uint8Array.of(0x66));
    expect(base64Decode('Zm8')).toEqual(Uint8Array.of(0x66, 0x6f));
  });

  it('refuses non-string input', () => {
    expect(refusal(() => base64Decode(null as unknown as string)).code).toBe('invalid_argument');
  });
});
