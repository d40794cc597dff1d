import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CryptoError, KEYED_HASH_MIN_KEY_BYTES, keyedHash, keyedHashLabels, randomBytes, utf8Encode } from './index';
import { thrownBy } from '../../test/support/thrown';

const refusal = (run: () => unknown): CryptoError => thrownBy(CryptoError, run);

/** Key 00 01 02 … 1f: fixed so that the known answers below stay pinned. */
const fixedKey = Uint8Array.from({ length: 32 }, (_, index) => index);

describe('keyedHash', () => {
  it('is stable: pinned known answers of construction v1', () => {
    // Computed once from HMAC-SHA-256(key, label || 0x00 || utf8(secret)); they must never change,
    // because stored hashes of API keys, license keys and admin tokens depend on them.
    expect(keyedHash(fixedKey, 'tg_admin_example', keyedHashLabels.adminToken)).toBe(
      'eb374172a49fe0e530132a8d998b5b0b702da1ddb2899f23a476fee70ecd57fc',
    );
    expect(keyedHash(fixedKey, 'ABCD-EFGH-IJKL', keyedHashLabels.licenseKey)).toBe(
      '0c460b233c359e263b2d8cd748d79d82a77ef76de1bf8c75af88efe3ee6123d3',
    );
    expect(keyedHash(fixedKey, '')).toBe('7eed6ce10984afd11cb4f28bac6d66873e9f904ab550f2463b64aa5b28fc6443');
  });

  it('follows the documented construction (checked against node:crypto)', () => {
    for (let draw = 0; draw < 20; draw++) {
      const key = randomBytes(32 + draw);
      const secret = Buffer.from(randomBytes(draw * 3)).toString('base64url');
      const label = Object.values(keyedHashLabels)[draw % 5] as string;
      const expected = createHmac('sha256', key)
        .update(Buffer.concat([Buffer.from(label, 'ascii'), Buffer.of(0), Buffer.from(secret, 'utf8')]))
        .digest('hex');
      expect(keyedHash(key, secret, label)).toBe(expected);
    }
  });

  it('separates domains: the same secret under different labels never shares a hash', () => {
    const key = randomBytes(32);
    const secret = 'same-secret-text';
    const hashes = Object.values(keyedHashLabels).map((label) => keyedHash(key, secret, label));
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('frames the label unambiguously: moving bytes between label and secret changes the hash', () => {
    const key = randomBytes(32);
    expect(keyedHash(key, 'b', 'a')).not.toBe(keyedHash(key, 'ab', 'generic'));
    expect(keyedHash(key, 'key-x', 'api')).not.toBe(keyedHash(key, 'x', 'api-key'));
  });

  it('defaults to the generic label and depends on the key', () => {
    const key = randomBytes(32);
    expect(keyedHash(key, 'secret')).toBe(keyedHash(key, 'secret', keyedHashLabels.generic));
    expect(keyedHash(randomBytes(32), 'secret')).not.toBe(keyedHash(key, 'secret'));
  });

  it('hashes a string secret and its UTF-8 bytes alike, and does not modify caller bytes', () => {
    const key = randomBytes(32);
    const bytes = utf8Encode('pässwörd-€');
    const copy = bytes.slice();
    expect(keyedHash(key, bytes, 'api-key')).toBe(keyedHash(key, 'pässwörd-€', 'api-key'));
    expect(bytes).toEqual(copy);
    expect(keyedHash(key, 'x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses keys shorter than 32 bytes', () => {
    const error = refusal(() => keyedHash(new Uint8Array(KEYED_HASH_MIN_KEY_BYTES - 1), 'secret'));
    expect(error.code).toBe('invalid_key');
    expect(error.details).toEqual({ minBytes: 32, actualBytes: 31 });
    expect(refusal(() => keyedHash('k'.repeat(40) as unknown as Uint8Array, 'secret')).code).toBe('invalid_argument');
  });

  it('refuses malformed labels', () => {
    for (const label of ['', 'Admin-Token', 'has space', 'nul\u0000byte', '-leading', 'x'.repeat(65), 'ünï', 7 as unknown as string]) {
      expect(refusal(() => keyedHash(fixedKey, 'secret', label)).code).toBe('invalid_argument');
    }
    expect(keyedHash(fixedKey, 'secret', 'x'.repeat(64))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses secrets that are neither text nor bytes, or text with a lone surrogate', () => {
    expect(refusal(() => keyedHash(fixedKey, 42 as unknown as string)).code).toBe('invalid_argument');
    expect(refusal(() => keyedHash(fixedKey, 'bad\uD800')).code).toBe('invalid_encoding');
  });

  it('never quotes the secret in an error', () => {
    const error = refusal(() => keyedHash(new Uint8Array(8), 'hunter2-secret', 'api-key'));
    expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('hunter2');
  });
});
