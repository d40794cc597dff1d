import { describe, expect, it } from 'vitest';
import { encodeCanonical, type CborValue } from '../../cbor';
import { hexEncode } from '../../crypto/hex';
import { encodeIntegrityManifest, integrityManifestSigningMessage, integritySignerFingerprint, IntegrityManifestError, parseIntegrityManifest, type IntegrityManifest } from './manifest';

const productId = 'ab'.repeat(16);
const file = (path: string) => ({ path, sha256: new Uint8Array(32).fill(path.length), size: path.length });
const base: IntegrityManifest = { v: 1, productId, signerKey: new Uint8Array(32).fill(9), appVersion: '1.0.0', files: [file('b.js'), file('a/b.js')] };

/** The manifest map with one entry replaced (or removed with `undefined`). */
function withEntry(name: string, value: CborValue | undefined): Uint8Array {
  const map = new Map<string, CborValue>([
    ['v', 1],
    ['product_id', productId],
    ['signer_key', base.signerKey],
    ['app_version', '1.0.0'],
    ['files', [new Map<string, CborValue>([['path', 'a.js'], ['sha256', new Uint8Array(32)], ['size', 1]])]],
  ]);
  if (value === undefined) map.delete(name);
  else map.set(name, value);
  return encodeCanonical(map);
}

const refusal = (bytes: Uint8Array) => {
  try {
    parseIntegrityManifest(bytes);
    return 'accepted';
  } catch (error) {
    return error instanceof IntegrityManifestError ? error.reason : 'threw something else';
  }
};

describe('integrity manifests', () => {
  it('round-trips through the canonical encoding, files sorted by path bytes', () => {
    const bytes = encodeIntegrityManifest({ ...base, build: 'ci-7' });
    const parsed = parseIntegrityManifest(bytes);
    expect(parsed.files.map((f) => f.path)).toEqual(['a/b.js', 'b.js']);
    expect(parsed).toMatchObject({ v: 1, productId, appVersion: '1.0.0', build: 'ci-7' });
    expect(hexEncode(parsed.signerKey)).toBe('09'.repeat(32));
  });

  it('refuses bytes that are not canonical CBOR', () => {
    expect(refusal(new Uint8Array([0xbf, 0xff]))).toBe('not_canonical_cbor');
    expect(refusal(new Uint8Array([...encodeIntegrityManifest(base), 0]))).toBe('not_canonical_cbor');
    // A map whose keys are out of canonical order: a0+ header with keys "v" after "files".
    const unsorted = new Uint8Array([0xa2, 0x65, ...new TextEncoder().encode('files'), 0x80, 0x61, 0x76, 0x01]);
    expect(refusal(unsorted)).toBe('not_canonical_cbor');
  });

  it('refuses every shape problem', () => {
    expect(refusal(withEntry('v', 2))).toBe('invalid_shape');
    expect(refusal(withEntry('extra', 1))).toBe('invalid_shape');
    expect(refusal(withEntry('product_id', 'AB'.repeat(16)))).toBe('invalid_shape');
    expect(refusal(withEntry('signer_key', new Uint8Array(31)))).toBe('invalid_shape');
    expect(refusal(withEntry('app_version', ''))).toBe('invalid_shape');
    expect(refusal(withEntry('files', []))).toBe('invalid_shape');
    expect(refusal(withEntry('build', 'x'.repeat(257)))).toBe('invalid_shape');
    expect(refusal(withEntry('signer_key', undefined))).toBe('invalid_shape');
    for (const path of ['', '/abs', 'a/../b', './a', 'a//b', 'a\\b', 'a\u0000', 'x'.repeat(1025)]) {
      expect(refusal(withEntry('files', [new Map<string, CborValue>([['path', path], ['sha256', new Uint8Array(32)], ['size', 1]])])), path).toBe('invalid_shape');
    }
    const entry = (path: string) => new Map<string, CborValue>([['path', path], ['sha256', new Uint8Array(32)], ['size', 1]]);
    expect(refusal(withEntry('files', [entry('b'), entry('a')]))).toBe('invalid_shape');
    expect(refusal(withEntry('files', [entry('a'), entry('a')]))).toBe('invalid_shape');
    expect(refusal(withEntry('files', [new Map<string, CborValue>([['path', 'a'], ['sha256', new Uint8Array(32)], ['size', -1]])]))).toBe('invalid_shape');
    expect(refusal(withEntry('files', [new Map<string, CborValue>([['path', 'a'], ['sha256', new Uint8Array(32)]])]))).toBe('invalid_shape');
  });

  it('separates signing messages and fingerprints by domain', () => {
    const bytes = encodeIntegrityManifest(base);
    const message = integrityManifestSigningMessage(bytes);
    expect(new TextDecoder().decode(message.subarray(0, 30))).toBe('tollgate/integrity-manifest/v1');
    expect(message[30]).toBe(0);
    expect(message.subarray(31)).toEqual(bytes);
    expect(integritySignerFingerprint(new Uint8Array(32))).not.toEqual(integritySignerFingerprint(new Uint8Array(32).fill(1)));
  });
});
