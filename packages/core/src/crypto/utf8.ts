import { assertBytes, CryptoError } from './crypto-error';

const encoder = new TextEncoder();
// `ignoreBOM: true` keeps a leading U+FEFF in the output: decoding must not drop bytes silently.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A lone (unpaired) UTF-16 surrogate: in `u` mode a valid pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Encodes text as UTF-8. Text holding a lone UTF-16 surrogate is refused rather than silently turned into
 * U+FFFD (as `TextEncoder` would): otherwise two different secrets could encode, and hash, to the same bytes.
 *
 * @param text - Well-formed Unicode text.
 * @returns The UTF-8 bytes.
 * @throws {@link CryptoError} `invalid_encoding` (`reason: 'lone_surrogate'`).
 *
 * @example
 * ```ts
 * import { utf8Encode } from '@tollgate/core/crypto';
 * utf8Encode('é'); // Uint8Array [0xc3, 0xa9]
 * ```
 */
export function utf8Encode(text: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new CryptoError('invalid_argument', 'UTF-8 input must be a string.', { details: { argument: 'text' } });
  }
  if (LONE_SURROGATE.test(text)) {
    throw new CryptoError('invalid_encoding', 'Text contains an unpaired UTF-16 surrogate.', {
      details: { encoding: 'utf8', reason: 'lone_surrogate' },
    });
  }
  return encoder.encode(text);
}

/**
 * Decodes UTF-8 fatally: overlong forms, surrogates encoded in UTF-8, truncated sequences and bytes that
 * can never occur in UTF-8 are refused instead of becoming U+FFFD. A leading byte-order mark is kept.
 *
 * @param bytes - The UTF-8 bytes.
 * @returns The decoded text.
 * @throws {@link CryptoError} `invalid_encoding` (`reason: 'malformed_utf8'`).
 *
 * @example
 * ```ts
 * import { utf8Decode } from '@tollgate/core/crypto';
 * utf8Decode(new Uint8Array([0x68, 0x69])); // 'hi'
 * utf8Decode(new Uint8Array([0xc0, 0xaf])); // throws CryptoError invalid_encoding
 * ```
 */
export function utf8Decode(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  try {
    return decoder.decode(bytes);
  } catch (cause) {
    throw new CryptoError('invalid_encoding', 'Bytes are not valid UTF-8.', {
      details: { encoding: 'utf8', reason: 'malformed_utf8' },
      cause,
    });
  }
}
