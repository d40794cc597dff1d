import { assertBytes, CryptoError } from './crypto-error';

const HEX_DIGITS = '0123456789abcdef';

/** Two lowercase hex digits for every byte value, built once so encoding is a table lookup. */
const HEX_OF_BYTE: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => `${HEX_DIGITS.charAt(byte >> 4)}${HEX_DIGITS.charAt(byte & 0x0f)}`,
);

/** The value of an ASCII hex digit (either case), or -1 for anything else. */
function hexDigitValue(charCode: number): number {
  if (charCode >= 0x30 && charCode <= 0x39) return charCode - 0x30; // 0-9
  if (charCode >= 0x61 && charCode <= 0x66) return charCode - 0x57; // a-f
  if (charCode >= 0x41 && charCode <= 0x46) return charCode - 0x37; // A-F
  return -1;
}

/**
 * Encodes bytes as lowercase hex without a prefix (`Uint8Array.of(1, 171)` → `'01ab'`).
 *
 * @param bytes - Any bytes, including none.
 * @returns Two lowercase hex digits per byte.
 *
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * hexEncode(new Uint8Array([0xde, 0xad])); // 'dead'
 * ```
 */
export function hexEncode(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  let text = '';
  for (const byte of bytes) text += HEX_OF_BYTE[byte];
  return text;
}

/**
 * Decodes hex strictly: an even number of `0-9a-fA-F` digits and nothing else. A `0x` prefix is refused,
 * not stripped, because Tollgate's hex values (ids, digests, keys) are bare; Ethereum values with `0x`
 * belong to viem's helpers. Upper and lower case are both accepted, since they name the same bytes;
 * compare identifiers with {@link isHexId}, which insists on the lowercase form we emit.
 *
 * @param text - The hex text.
 * @returns The decoded bytes (empty for `''`).
 * @throws {@link CryptoError} `invalid_encoding` with `details.reason` of `odd_length`, `prefixed` or
 *   `bad_character` (and the offending `position`).
 *
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * hexDecode('00ff'); // Uint8Array [0, 255]
 * hexDecode('0x00'); // throws CryptoError invalid_encoding (prefixed)
 * ```
 */
export function hexDecode(text: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new CryptoError('invalid_argument', 'Hex input must be a string.', { details: { argument: 'text' } });
  }
  if (text.length % 2 !== 0) {
    throw hexError('odd_length', 'Hex text must have an even number of digits.');
  }
  if (text.startsWith('0x') || text.startsWith('0X')) {
    throw hexError('prefixed', 'Hex text must not carry a 0x prefix.');
  }
  const bytes = new Uint8Array(text.length / 2);
  for (let index = 0; index < bytes.length; index++) {
    const high = hexDigitValue(text.charCodeAt(2 * index));
    const low = hexDigitValue(text.charCodeAt(2 * index + 1));
    if (high < 0 || low < 0) {
      throw hexError('bad_character', 'Hex text may only contain 0-9, a-f and A-F.', high < 0 ? 2 * index : 2 * index + 1);
    }
    bytes[index] = (high << 4) | low;
  }
  return bytes;
}

function hexError(reason: string, message: string, position?: number): CryptoError {
  const details: Record<string, unknown> = { encoding: 'hex', reason };
  if (position !== undefined) details['position'] = position;
  return new CryptoError('invalid_encoding', message, { details });
}
