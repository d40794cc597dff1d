import { assertBytes, CryptoError } from './crypto-error';

const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const PAD = 0x3d; // '='

/** Which alphabet a character belongs to: one of the 62 both share, or one of the two that differ. */
const SHARED = 0;
const STANDARD_ONLY = 1;
const URL_ONLY = 2;
type Family = typeof SHARED | typeof STANDARD_ONLY | typeof URL_ONLY;

/** Sextet value of each ASCII code (-1 when the character is not base64 in either alphabet). */
const SEXTET_OF_CHAR = new Int8Array(128).fill(-1);
for (let value = 0; value < 64; value++) {
  SEXTET_OF_CHAR[STANDARD_ALPHABET.charCodeAt(value)] = value;
  SEXTET_OF_CHAR[URL_ALPHABET.charCodeAt(value)] = value;
}

function familyOf(charCode: number): Family {
  if (charCode === 0x2b || charCode === 0x2f) return STANDARD_ONLY; // '+' '/'
  if (charCode === 0x2d || charCode === 0x5f) return URL_ONLY; // '-' '_'
  return SHARED;
}

function encodeWith(bytes: Uint8Array, alphabet: string, padded: boolean): string {
  assertBytes(bytes, 'bytes');
  const char = (sextet: number): string => alphabet.charAt(sextet);
  let text = '';
  let index = 0;
  for (; index + 2 < bytes.length; index += 3) {
    const triple = ((bytes[index] as number) << 16) | ((bytes[index + 1] as number) << 8) | (bytes[index + 2] as number);
    text += char(triple >> 18) + char((triple >> 12) & 63) + char((triple >> 6) & 63) + char(triple & 63);
  }
  const remaining = bytes.length - index;
  if (remaining === 1) {
    const first = bytes[index] as number;
    text += char(first >> 2) + char((first & 3) << 4) + (padded ? '==' : '');
  } else if (remaining === 2) {
    const pair = ((bytes[index] as number) << 8) | (bytes[index + 1] as number);
    text += char(pair >> 10) + char((pair >> 4) & 63) + char((pair & 15) << 2) + (padded ? '=' : '');
  }
  return text;
}

/**
 * Encodes bytes as standard base64 (RFC 4648 §4: `+` and `/`, padded with `=`). This is what the
 * x402 `PAYMENT-*` headers carry, because official x402 v2 clients reject the URL alphabet.
 *
 * @param bytes - Any bytes.
 * @returns Padded standard base64.
 *
 * @example
 * ```ts
 * import { base64Encode } from '@tollgate/core/crypto';
 * base64Encode(new Uint8Array([0xfb, 0xff])); // '+/8='
 * ```
 */
export function base64Encode(bytes: Uint8Array): string {
  return encodeWith(bytes, STANDARD_ALPHABET, true);
}

/**
 * Encodes bytes as unpadded base64url (RFC 4648 §5: `-` and `_`, no `=`), safe in URLs, cookies and tokens.
 *
 * @param bytes - Any bytes.
 * @returns Unpadded base64url.
 *
 * @example
 * ```ts
 * import { base64UrlEncode } from '@tollgate/core/crypto';
 * base64UrlEncode(new Uint8Array([0xfb, 0xff])); // '-_8'
 * ```
 */
export function base64UrlEncode(bytes: Uint8Array): string {
  return encodeWith(bytes, URL_ALPHABET, false);
}

/**
 * Decodes base64 in either alphabet (standard `+/` or URL `-_`), padded or not, and refuses everything
 * else so that each accepted form maps to exactly one byte string:
 * - characters outside both alphabets, including whitespace and line breaks (`bad_character`);
 * - a string that uses both `+`/`/` and `-`/`_` (`mixed_alphabet`): no conforming encoder emits one;
 * - padding that is not exactly what the length needs: a stray `=`, `a===`, padding on a length that is
 *   not a multiple of 4, `=` in the middle (`bad_padding`);
 * - a length whose remainder modulo 4 is 1, which no byte count produces (`bad_length`);
 * - non-zero bits in the unused low bits of the last character (`non_canonical`), so `QR==` (the same
 *   byte as `QQ==`) is refused.
 *
 * @param text - Base64 or base64url text.
 * @returns The decoded bytes (empty for `''`).
 * @throws {@link CryptoError} `invalid_encoding` with `details.reason` as listed above.
 *
 * @example
 * ```ts
 * import { base64Decode } from '@tollgate/core/crypto';
 * base64Decode('+/8='); // Uint8Array [0xfb, 0xff]
 * base64Decode('-_8');  // the same bytes
 * ```
 */
export function base64Decode(text: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new CryptoError('invalid_argument', 'Base64 input must be a string.', { details: { argument: 'text' } });
  }
  let padding = 0;
  if (text.charCodeAt(text.length - 1) === PAD) padding = text.charCodeAt(text.length - 2) === PAD ? 2 : 1;
  if (padding > 0 && text.length % 4 !== 0) {
    throw base64Error('bad_padding', 'Padded base64 must have a length that is a multiple of 4.');
  }
  const dataLength = text.length - padding;
  if (dataLength % 4 === 1) {
    throw base64Error('bad_length', 'Base64 text has an impossible length.');
  }

  const sextets = new Uint8Array(dataLength);
  let family: Family = SHARED;
  for (let index = 0; index < dataLength; index++) {
    const charCode = text.charCodeAt(index);
    const sextet = charCode < 128 ? (SEXTET_OF_CHAR[charCode] as number) : -1;
    if (sextet < 0) {
      if (charCode === PAD) throw base64Error('bad_padding', 'Base64 padding may only end the text.', index);
      throw base64Error('bad_character', 'Base64 text contains a character outside both alphabets.', index);
    }
    const charFamily = familyOf(charCode);
    if (charFamily !== SHARED) {
      if (family !== SHARED && family !== charFamily) {
        throw base64Error('mixed_alphabet', 'Base64 text mixes the standard and URL alphabets.', index);
      }
      family = charFamily;
    }
    sextets[index] = sextet;
  }
  return packSextets(sextets);
}

/** Packs validated sextets into bytes, refusing non-zero bits left over in the final character. */
function packSextets(sextets: Uint8Array): Uint8Array {
  const tail = sextets.length % 4;
  const bytes = new Uint8Array(Math.floor(sextets.length / 4) * 3 + (tail === 0 ? 0 : tail - 1));
  const at = (index: number): number => sextets[index] as number;
  let out = 0;
  let index = 0;
  for (; index + 3 < sextets.length; index += 4) {
    const quad = (at(index) << 18) | (at(index + 1) << 12) | (at(index + 2) << 6) | at(index + 3);
    bytes[out++] = quad >> 16;
    bytes[out++] = (quad >> 8) & 0xff;
    bytes[out++] = quad & 0xff;
  }
  if (tail === 2) {
    if ((at(index + 1) & 0x0f) !== 0) throw base64Error('non_canonical', 'Base64 text has non-zero trailing bits.', index + 1);
    bytes[out] = (at(index) << 2) | (at(index + 1) >> 4);
  } else if (tail === 3) {
    if ((at(index + 2) & 0x03) !== 0) throw base64Error('non_canonical', 'Base64 text has non-zero trailing bits.', index + 2);
    bytes[out++] = (at(index) << 2) | (at(index + 1) >> 4);
    bytes[out] = ((at(index + 1) & 0x0f) << 4) | (at(index + 2) >> 2);
  }
  return bytes;
}

function base64Error(reason: string, message: string, position?: number): CryptoError {
  const details: Record<string, unknown> = { encoding: 'base64', reason };
  if (position !== undefined) details['position'] = position;
  return new CryptoError('invalid_encoding', message, { details });
}
