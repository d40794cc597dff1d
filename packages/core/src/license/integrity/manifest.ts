import { decodeCanonical, encodeCanonical, type CborValue } from '../../cbor';
import { sha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';

/**
 * An integrity manifest: what a build signs so the installed app can check its own files. It travels as
 * canonical CBOR (RFC 8949 §4.2.1 deterministic encoding), a map with exactly these text keys:
 *
 * | Key | CBOR type | Meaning |
 * |---|---|---|
 * | `v` | uint | format version, `1` |
 * | `product_id` | text | the product (32 lower-case hex digits, as in the Admin API) |
 * | `signer_key` | bytes (32) | fingerprint of the registered signer key the build trusts ({@link integritySignerFingerprint}) |
 * | `app_version` | text | 1 to 64 characters |
 * | `files` | array | 1 to 10,000 entries `{ path, sha256, size }`, paths strictly ascending (byte order) |
 * | `build` | text, optional | 1 to 256 characters: CI run, commit, anything that names the build |
 *
 * A file entry: `path` (text, 1 to 1024 bytes, `/`-separated, no `..`, `.` or empty segment, no leading `/`,
 * no NUL or backslash), `sha256` (bytes, 32) and `size` (uint). Canonical encoding makes the bytes unique
 * for a given content, so a signature covers one meaning only.
 *
 * @example
 * ```ts
 * import type { IntegrityManifest } from '@tollgate/core/license';
 * const manifest: IntegrityManifest = { v: 1, productId: 'ab'.repeat(16), signerKey: new Uint8Array(32), appVersion: '1.2.0', files: [] };
 * ```
 */
export interface IntegrityManifest {
  readonly v: 1;
  readonly productId: string;
  readonly signerKey: Uint8Array;
  readonly appVersion: string;
  readonly files: readonly IntegrityManifestFile[];
  readonly build?: string;
}

/** One file of an {@link IntegrityManifest}. */
export interface IntegrityManifestFile {
  readonly path: string;
  readonly sha256: Uint8Array;
  readonly size: number;
}

/** Limits of an integrity manifest (the request body cap is the spec's 256 KiB). */
export const integrityManifestLimits = { maxBytes: 256 * 1024, maxFiles: 10_000, maxPathBytes: 1024 } as const;

/** Domain separation of manifest signatures: Ed25519 over `label ‖ 0x00 ‖ manifest bytes`. */
export const integrityManifestSignatureLabel = 'tollgate/integrity-manifest/v1';

/** Domain separation of signer key fingerprints: SHA-256 over `label ‖ 0x00 ‖ public key`. */
export const integritySignerFingerprintLabel = 'tollgate/integrity-signer-key/v1';

/** Why a byte string is not a manifest; `reason` is stable, `message` says what to fix. */
export class IntegrityManifestError extends Error {
  override readonly name = 'IntegrityManifestError';
  constructor(
    readonly reason: 'not_canonical_cbor' | 'invalid_shape',
    message: string,
  ) {
    super(message);
  }
}

const manifestKeys = new Set(['v', 'product_id', 'signer_key', 'app_version', 'files', 'build']);
const fileKeys = ['path', 'sha256', 'size'];
const productIdPattern = /^[0-9a-f]{32}$/;

/**
 * Parses and checks a manifest: canonical CBOR, the exact shape above, nothing else. Work is linear in
 * the input; nothing is trusted before it is checked.
 *
 * @param bytes - The manifest as sent (at most 256 KiB).
 * @returns The manifest.
 * @throws IntegrityManifestError naming the first problem.
 * @example
 * ```ts
 * import { parseIntegrityManifest } from '@tollgate/core/license';
 * const manifest = parseIntegrityManifest(requestBytes);
 * ```
 */
export function parseIntegrityManifest(bytes: Uint8Array): IntegrityManifest {
  let decoded: unknown;
  try {
    decoded = decodeCanonical(bytes, {
      limits: { maxInputBytes: integrityManifestLimits.maxBytes, maxDepth: 4, maxStringBytes: 4096, maxContainerLength: integrityManifestLimits.maxFiles, maxTotalItems: 8 * integrityManifestLimits.maxFiles + 16 },
    });
  } catch (error) {
    throw new IntegrityManifestError('not_canonical_cbor', `The manifest is not well-formed canonical CBOR (${error instanceof Error ? error.message : 'undecodable'}).`);
  }
  const shape = (message: string) => new IntegrityManifestError('invalid_shape', `The manifest ${message}.`);
  if (!(decoded instanceof Map)) throw shape('must be a CBOR map');
  for (const key of decoded.keys()) if (typeof key !== 'string' || !manifestKeys.has(key)) throw shape(`has an unknown key ${JSON.stringify(String(key)).slice(0, 40)}`);
  if (decoded.get('v') !== 1) throw shape('must have v = 1');
  const productId = decoded.get('product_id');
  if (typeof productId !== 'string' || !productIdPattern.test(productId)) throw shape('needs product_id: 32 lower-case hex digits');
  const signerKey = decoded.get('signer_key');
  if (!(signerKey instanceof Uint8Array) || signerKey.length !== 32) throw shape('needs signer_key: the 32-byte fingerprint of a registered signer key');
  const appVersion = decoded.get('app_version');
  if (typeof appVersion !== 'string' || appVersion.length < 1 || appVersion.length > 64) throw shape('needs app_version: 1 to 64 characters');
  const build = decoded.get('build');
  if (build !== undefined && (typeof build !== 'string' || build.length < 1 || build.length > 256)) throw shape('has a build that is not 1 to 256 characters');
  const files = decoded.get('files');
  if (!Array.isArray(files) || files.length < 1 || files.length > integrityManifestLimits.maxFiles) throw shape(`needs files: 1 to ${integrityManifestLimits.maxFiles} entries`);
  const parsedFiles: IntegrityManifestFile[] = [];
  let previous: Uint8Array | undefined;
  for (const [index, entry] of files.entries()) {
    const file = parseFile(entry, index, shape);
    const pathBytes = utf8Encode(file.path);
    if (previous !== undefined && compareBytes(previous, pathBytes) >= 0) throw shape(`files[${index}]: paths must be unique and in ascending byte order`);
    previous = pathBytes;
    parsedFiles.push(file);
  }
  return { v: 1, productId, signerKey, appVersion, files: parsedFiles, ...(build === undefined ? {} : { build }) };
}

function parseFile(entry: unknown, index: number, shape: (message: string) => IntegrityManifestError): IntegrityManifestFile {
  if (!(entry instanceof Map) || entry.size !== 3 || !fileKeys.every((key) => entry.has(key))) throw shape(`files[${index}] must be a map of exactly path, sha256 and size`);
  const path = entry.get('path');
  if (typeof path !== 'string' || !isSafeRelativePath(path)) throw shape(`files[${index}].path must be a relative path of 1 to ${integrityManifestLimits.maxPathBytes} bytes without empty, "." or ".." segments`);
  const digest = entry.get('sha256');
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw shape(`files[${index}].sha256 must be 32 bytes`);
  const size = entry.get('size');
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw shape(`files[${index}].size must be a byte count`);
  return { path, sha256: digest, size };
}

function isSafeRelativePath(path: string): boolean {
  if (path.length === 0 || utf8Encode(path).length > integrityManifestLimits.maxPathBytes) return false;
  if (path.includes('\u0000') || path.includes('\\')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index += 1) if (a[index] !== b[index]) return (a[index] as number) - (b[index] as number);
  return a.length - b.length;
}

/**
 * Encodes a manifest as canonical CBOR (files sorted by path), for build tooling and tests.
 *
 * @param manifest - The manifest.
 * @returns The bytes to send to `POST /v1/admin/integrity/sign`.
 * @throws IntegrityManifestError when the result would not parse (the same checks as the server).
 * @example
 * ```ts
 * import { encodeIntegrityManifest } from '@tollgate/core';
 * const bytes = encodeIntegrityManifest({ v: 1, productId, signerKey, appVersion: '1.2.0', files: [{ path: 'app.js', sha256: digest, size: 1234 }] });
 * ```
 */
export function encodeIntegrityManifest(manifest: IntegrityManifest): Uint8Array {
  const files = [...manifest.files].sort((a, b) => compareBytes(utf8Encode(a.path), utf8Encode(b.path)));
  const map = new Map<string, CborValue>([
    ['v', 1],
    ['product_id', manifest.productId],
    ['signer_key', manifest.signerKey],
    ['app_version', manifest.appVersion],
    ['files', files.map((file) => new Map<string, CborValue>([['path', file.path], ['sha256', file.sha256], ['size', file.size]]))],
  ]);
  if (manifest.build !== undefined) map.set('build', manifest.build);
  const bytes = encodeCanonical(map, { maxDepth: 4 });
  parseIntegrityManifest(bytes);
  return bytes;
}

/**
 * The bytes an Ed25519 manifest signature covers: the label, a zero byte, then the manifest exactly as
 * signed, so a manifest signature can never be replayed as any other signature of the same key.
 *
 * @param manifestBytes - The canonical manifest.
 * @returns The message to sign or verify.
 * @example
 * ```ts
 * import { integrityManifestSigningMessage } from '@tollgate/core/license';
 * const message = integrityManifestSigningMessage(manifestBytes);
 * ```
 */
export function integrityManifestSigningMessage(manifestBytes: Uint8Array): Uint8Array {
  const label = utf8Encode(integrityManifestSignatureLabel);
  const message = new Uint8Array(label.length + 1 + manifestBytes.length);
  message.set(label, 0);
  message.set(manifestBytes, label.length + 1);
  return message;
}

/**
 * The fingerprint of a signer public key: SHA-256 over the label, a zero byte and the 32-byte Ed25519
 * public key. The Admin API and `X-LS-Signer-Key` spell it as 64 lower-case hex digits.
 *
 * @param publicKey - The Ed25519 public key.
 * @returns 32 bytes.
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * import { integritySignerFingerprint } from '@tollgate/core/license';
 * const fingerprint = hexEncode(integritySignerFingerprint(publicKey));
 * ```
 */
export function integritySignerFingerprint(publicKey: Uint8Array): Uint8Array {
  const label = utf8Encode(integritySignerFingerprintLabel);
  const input = new Uint8Array(label.length + 1 + publicKey.length);
  input.set(label, 0);
  input.set(publicKey, label.length + 1);
  return sha256(input);
}
