import { describe, expect, it } from 'vitest';
import { CryptoError, hexDecode, hexEncode } from './index';
import { thrownBy } from '../../test/support/thrown';

const refusal = (run: () => unknown): CryptoError => thrownBy(CryptoError, run);

describe('hexEncode', () => {
  it('writes two lowercase digits per byte', () => {
    expect(hexEncode(Uint8Array.of(0x00, 0x01, 0x7f, 0x80, 0xab, 0xff))).toBe('00017f80abff');
    expect(hexEncode(new Uint8Array(0))).toBe('');
  });

  it('round-trips every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, value) => value);
    const text = hexEncode(all);
    expect(text).toMatch(/^[0-9a-f]{512}$/);
    expect(hexDecode(text)).toEqual(all);
  });

  it('refuses values that are not bytes', () => {
    expect(refusal(() => hexEncode('00' as unknown as Uint8Array)).code).toBe('invalid_argument');
  });
});

describe('hexDecode', () => {
  it('accepts both cases and the empty string', () => {
    expect(hexDecode('00ffAb')).toEqual(Uint8Array.of(0x00, 0xff, 0xab));
    expect(hexDecode('')).toEqual(new Uint8Array(0));
  });

  it('refuses an odd number of digits', () => {
    const error = refusal(() => hexDecode('abc'));
    expect(error.code).toBe('invalid_encoding');
    expect(error.details).toEqual({ encoding: 'hex', reason: 'odd_length' });
  });

  it('refuses a 0x prefix instead of stripping it', () => {
    for (const text of ['0x00', '0X00', '0x']) {
      expect(refusal(() => hexDecode(text)).details['reason']).toBe('prefixed');
    }
  });

  it('refuses every non-hex character and reports where it is', () => {
    for (const [text, position] of [['0g', 1], ['g0', 0], ['00 1', 2], ['ab\n', 2], ['١٢', 0], ['+1', 0], ['0-', 1]] as const) {
      const error = refusal(() => hexDecode(text.length % 2 === 0 ? text : `${text}0`));
      expect(error.details).toEqual({ encoding: 'hex', reason: 'bad_character', position });
    }
  });

  it('never quotes the refused input in the error', () => {
    const secretish = 'zz5ecret';
    const error = refusal(() => hexDecode(secretish));
    expect(error.message).not.toContain(secretish);
    expect(JSON.stringify(error.details)).not.toContain(secretish);
  });

  it('refuses non-string input', () => {
    expect(refusal(() => hexDecode(42 as unknown as string)).code).toBe('invalid_argument');
  });
});
