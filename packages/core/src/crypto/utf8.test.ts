import { describe, expect, it } from 'vitest';
import { CryptoError, utf8Decode, utf8Encode } from './index';
import { thrownBy } from '../../test/support/thrown';

const refusal = (run: () => unknown): CryptoError => thrownBy(CryptoError, run);

describe('utf8Encode / utf8Decode', () => {
  it('round-trips ASCII, multi-byte characters and astral code points', () => {
    for (const text of ['', 'hello', 'é', '€', '日本語', '😀 emoji', '\u0000nul', '\uFEFFbom']) {
      expect(utf8Decode(utf8Encode(text))).toBe(text);
    }
    expect(utf8Encode('é€😀')).toEqual(Uint8Array.of(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80));
  });

  it('keeps a leading byte-order mark when decoding', () => {
    expect(utf8Decode(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61))).toBe('\uFEFFa');
  });

  it('refuses text with a lone surrogate instead of writing U+FFFD', () => {
    for (const text of ['\uD800', 'a\uDC00', '\uDE00\uD83D', 'x\uD83D']) {
      const error = refusal(() => utf8Encode(text));
      expect(error.code).toBe('invalid_encoding');
      expect(error.details).toEqual({ encoding: 'utf8', reason: 'lone_surrogate' });
    }
  });

  it('decodes fatally: malformed sequences are refused, never replaced', () => {
    const malformed = [
      [0xc0, 0xaf], // overlong '/'
      [0xe0, 0x80, 0xaf], // overlong, three bytes
      [0xed, 0xa0, 0x80], // UTF-8-encoded surrogate U+D800
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xff], // never valid
      [0x80], // lone continuation byte
      [0xe2, 0x82], // truncated sequence
      [0x61, 0xc3], // truncated at the end
    ];
    for (const bytes of malformed) {
      const error = refusal(() => utf8Decode(Uint8Array.from(bytes)));
      expect(error.code).toBe('invalid_encoding');
      expect(error.details).toEqual({ encoding: 'utf8', reason: 'malformed_utf8' });
    }
  });

  it('refuses arguments of the wrong type', () => {
    expect(refusal(() => utf8Encode(7 as unknown as string)).code).toBe('invalid_argument');
    expect(refusal(() => utf8Decode('abc' as unknown as Uint8Array)).code).toBe('invalid_argument');
  });
});
