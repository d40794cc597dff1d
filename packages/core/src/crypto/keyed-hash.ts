import { assertBytes, CryptoError } from './crypto-error';
import { hmacSha256 } from './hash';
import { hexEncode } from './hex';
import { utf8Encode } from './utf8';

/**
 * The domain-separation labels of every kind of secret Tollgate stores as a keyed hash. One label per kind,
 * so that an API key, a license key, an admin token and an analytics pseudonym that happen to share the
 * same text never share a hash, even under one server key. Add a label here rather than inventing one at
 * a call site, so the registry stays the single list of kinds.
 *
 * @example
 * ```ts
 * import { keyedHash, keyedHashLabels } from '@tollgate/core/crypto';
 * const licenseKeyHash = keyedHash(serverKey, typedLicenseKey, keyedHashLabels.licenseKey);
 * ```
 */
export const keyedHashLabels = {
  /** Gateway API keys. */
  apiKey: 'api-key',
  /** License keys typed by end users. */
  licenseKey: 'license-key',
  /** Admin API bearer tokens. */
  adminToken: 'admin-token',
  /** Pseudonyms of analytics subjects (license spec: separate from license-key hashes). */
  analyticsPseudonym: 'analytics-pseudonym',
  /** The label used when a caller passes none. */
  generic: 'generic',
} as const;

/** Labels are short lowercase ASCII and never contain the NUL byte that ends them in the hashed message. */
const LABEL_PATTERN = /^[a-z0-9][a-z0-9._:/-]{0,63}$/;

/**
 * The shortest server key {@link keyedHash} accepts: 256 bits, the HMAC-SHA-256 output size.
 *
 * @example
 * ```ts
 * import { randomBytes, KEYED_HASH_MIN_KEY_BYTES } from '@tollgate/core/crypto';
 * const serverKey = randomBytes(KEYED_HASH_MIN_KEY_BYTES);
 * ```
 */
export const KEYED_HASH_MIN_KEY_BYTES = 32;

/**
 * The keyed hash under which Tollgate stores secrets it must recognise but never reveal (API keys,
 * license keys, admin tokens) and derives pseudonyms.
 *
 * Construction (v1, stable: stored hashes depend on it):
 * ```
 * keyedHash(key, secret, label) = lowercase-hex( HMAC-SHA-256( key, ASCII(label) || 0x00 || secretBytes ) )
 * ```
 * where `secretBytes` is the UTF-8 encoding of a string secret (refusing lone surrogates) or the bytes
 * themselves. The label matches `^[a-z0-9][a-z0-9._:/-]{0,63}$`, so it never contains `0x00`, and the first
 * `0x00` of the message marks where it ends: the message encodes `(label, secret)` injectively, hence two
 * kinds can only collide through an HMAC-SHA-256 collision. A string secret and its UTF-8 bytes hash the
 * same (they are the same secret). HMAC with a server key (not a bare SHA-256) means a stolen database
 * alone does not allow offline guessing of low-entropy license keys.
 *
 * @param key - The server secret, at least {@link KEYED_HASH_MIN_KEY_BYTES} bytes (e.g. `randomBytes(32)`).
 * @param secret - The secret to hash: text or bytes.
 * @param label - The kind of secret, normally from {@link keyedHashLabels}; defaults to `generic`.
 * @returns 64 lowercase hex digits. Compare with `constantTimeEqualString`.
 * @throws {@link CryptoError} `invalid_key` for a short key; `invalid_argument` for a malformed label;
 *   `invalid_encoding` for a string secret with a lone surrogate.
 *
 * @example
 * ```ts
 * import { keyedHash, keyedHashLabels, constantTimeEqualString } from '@tollgate/core/crypto';
 * const stored = keyedHash(serverKey, presentedToken, keyedHashLabels.adminToken);
 * const ok = constantTimeEqualString(stored, row.tokenHash);
 * ```
 */
export function keyedHash(key: Uint8Array, secret: string | Uint8Array, label: string = keyedHashLabels.generic): string {
  assertBytes(key, 'key');
  if (key.length < KEYED_HASH_MIN_KEY_BYTES) {
    throw new CryptoError('invalid_key', `The keyed-hash key must be at least ${KEYED_HASH_MIN_KEY_BYTES} bytes.`, {
      details: { minBytes: KEYED_HASH_MIN_KEY_BYTES, actualBytes: key.length },
    });
  }
  if (typeof label !== 'string' || !LABEL_PATTERN.test(label)) {
    throw new CryptoError('invalid_argument', 'A keyed-hash label is 1-64 characters of a-z, 0-9 and . _ : / -, starting alphanumeric.', {
      details: { argument: 'label' },
    });
  }
  const secretBytes = typeof secret === 'string' ? utf8Encode(secret) : secret;
  assertBytes(secretBytes, 'secret');

  const labelBytes = utf8Encode(label); // ASCII by the pattern above
  const message = new Uint8Array(labelBytes.length + 1 + secretBytes.length);
  message.set(labelBytes, 0);
  message[labelBytes.length] = 0x00;
  message.set(secretBytes, labelBytes.length + 1);
  const digest = hexEncode(hmacSha256(key, message));
  // Our copies hold the secret in clear: wipe them rather than leave them to the garbage collector.
  message.fill(0);
  if (secretBytes !== secret) secretBytes.fill(0);
  return digest;
}
