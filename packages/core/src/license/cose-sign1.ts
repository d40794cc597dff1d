import { encodeCanonical, type CborKey, type CborValue } from '../cbor';
import { ArtifactError } from './artifact-error';
import { artifactDecodeLimits, productIdPattern } from './protocol';
import { decodeStrict } from './record-codec';

/**
 * COSE header label of the algorithm (RFC 9052 §3.1).
 *
 * @example
 * ```ts
 * import { coseAlgLabel, coseEdDsa } from '@tollgate/core/license';
 * const header = new Map([[coseAlgLabel, coseEdDsa]]);
 * ```
 */
export const coseAlgLabel = 1;
/**
 * COSE header label of the content type.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * import { coseContentTypeLabel } from '@tollgate/core/license';
 * const contentType = (decodeCanonical(protectedBytes) as Map<number, unknown>).get(coseContentTypeLabel);
 * ```
 */
export const coseContentTypeLabel = 3;
/**
 * COSE header label of the key id.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * import { coseKidLabel } from '@tollgate/core/license';
 * const kid = (decodeCanonical(protectedBytes) as Map<number, unknown>).get(coseKidLabel);
 * ```
 */
export const coseKidLabel = 4;
/**
 * Private-use header label (below −65536, RFC 9052 §3.1) carrying the product id of product-bound kinds.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * import { coseProductLabel } from '@tollgate/core/license';
 * const productId = (decodeCanonical(protectedBytes) as Map<number, unknown>).get(coseProductLabel);
 * ```
 */
export const coseProductLabel = -65537;
/**
 * COSE algorithm id of EdDSA (Ed25519), the only algorithm accepted.
 *
 * @example
 * ```ts
 * import { coseEdDsa } from '@tollgate/core/license';
 * coseEdDsa; // -8
 * ```
 */
export const coseEdDsa = -8;

/** The protected header of a Tollgate COSE_Sign1: algorithm, content type, key id and product. */
export interface ProtectedHeader {
  /** Always −8 (EdDSA). */
  alg: -8;
  /** The kind's media type (see `licenseContentType`). */
  contentType: string;
  /** The signing key id: 8-byte epoch id, or root key id for epoch certificates; absent in device proofs. */
  kid?: Uint8Array;
  /** The product of product-bound kinds. */
  productId?: string;
}

/** The four parts of an untagged COSE_Sign1 array. */
export interface Sign1Parts {
  /** The exact protected header bytes (signed). */
  protectedBytes: Uint8Array;
  /** The protected header, decoded. */
  header: ProtectedHeader;
  /** The payload bytes (canonical CBOR of the kind's record). */
  payload: Uint8Array;
  /** The signature bytes (64 for Ed25519; checked when verifying). */
  signature: Uint8Array;
}

/**
 * Encodes a protected header canonically: `{1: -8, 3: content_type, 4?: kid, -65537?: product_id}`.
 *
 * @param header - The header fields.
 * @returns The bytes that go into the envelope and the Sig_structure.
 *
 * @example
 * ```ts
 * import { encodeProtectedHeader, licenseContentType } from '@tollgate/core/license';
 * const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: licenseContentType('kill-order'), kid: epochId, productId: 'acme-editor' });
 * ```
 */
export function encodeProtectedHeader(header: ProtectedHeader): Uint8Array {
  const map = new Map<CborKey, CborValue>([
    [coseAlgLabel, coseEdDsa],
    [coseContentTypeLabel, header.contentType],
  ]);
  if (header.kid !== undefined) map.set(coseKidLabel, header.kid);
  if (header.productId !== undefined) map.set(coseProductLabel, header.productId);
  return encodeCanonical(map);
}

function badHeader(message: string, field: string): ArtifactError {
  return new ArtifactError('bad_encoding', `Protected header: ${message}`, { details: { part: 'protected', field } });
}

/**
 * Decodes protected header bytes strictly: canonical map, only the labels 1, 3, 4 and −65537, `alg` −8,
 * a text content type, an 8-byte `kid`, a well-formed product id.
 *
 * @param bytes - The protected header bstr content.
 * @returns The header.
 * @throws {@link ArtifactError} `bad_encoding`.
 *
 * @example
 * ```ts
 * import { decodeProtectedHeader } from '@tollgate/core/license';
 * const { contentType, kid } = decodeProtectedHeader(protectedBytes);
 * ```
 */
export function decodeProtectedHeader(bytes: Uint8Array): ProtectedHeader {
  const decoded = decodeStrict(bytes, 'protected header');
  if (!(decoded instanceof Map)) throw badHeader('must be a map', 'protected');
  for (const label of decoded.keys()) {
    if (label !== coseAlgLabel && label !== coseContentTypeLabel && label !== coseKidLabel && label !== coseProductLabel) {
      throw badHeader(`unknown label ${String(label)}`, String(label));
    }
  }
  if (decoded.get(coseAlgLabel) !== coseEdDsa) throw badHeader('alg must be -8 (EdDSA)', 'alg');
  const contentType = decoded.get(coseContentTypeLabel);
  if (typeof contentType !== 'string') throw badHeader('content type must be text', 'content_type');
  const header: ProtectedHeader = { alg: -8, contentType };
  if (decoded.has(coseKidLabel)) {
    const kid = decoded.get(coseKidLabel);
    if (!(kid instanceof Uint8Array) || kid.length !== 8) throw badHeader('kid must be 8 bytes', 'kid');
    header.kid = kid;
  }
  if (decoded.has(coseProductLabel)) {
    const productId = decoded.get(coseProductLabel);
    if (typeof productId !== 'string' || !productIdPattern.test(productId)) throw badHeader('product id is malformed', 'product');
    header.productId = productId;
  }
  return header;
}

/**
 * Encodes an untagged COSE_Sign1: `[protected: bstr, unprotected: {}, payload: bstr, signature: bstr]`.
 *
 * @param protectedBytes - Encoded protected header.
 * @param payload - Payload bytes.
 * @param signature - Signature bytes.
 * @returns The envelope bytes.
 *
 * @example
 * ```ts
 * import { encodeSign1 } from '@tollgate/core/license';
 * const envelope = encodeSign1(protectedBytes, payload, signature);
 * ```
 */
export function encodeSign1(protectedBytes: Uint8Array, payload: Uint8Array, signature: Uint8Array): Uint8Array {
  return encodeCanonical([protectedBytes, new Map(), payload, signature]);
}

/**
 * Decodes an untagged COSE_Sign1 strictly: one canonical CBOR array of exactly four items (no tag 18),
 * byte-string protected header and payload, an empty unprotected map, a byte-string signature.
 *
 * @param bytes - The envelope.
 * @returns The parts, with the protected header decoded.
 * @throws {@link ArtifactError} `bad_encoding`.
 *
 * @example
 * ```ts
 * import { decodeSign1 } from '@tollgate/core/license';
 * const { header, payload, signature } = decodeSign1(envelope); // nothing verified yet
 * ```
 */
export function decodeSign1(bytes: Uint8Array): Sign1Parts {
  if (!(bytes instanceof Uint8Array)) throw new ArtifactError('bad_encoding', 'An artifact must be a byte string.', { details: { part: 'envelope' } });
  const decoded = decodeStrict(bytes, 'envelope', artifactDecodeLimits);
  if (!Array.isArray(decoded) || decoded.length !== 4) {
    throw new ArtifactError('bad_encoding', 'An artifact is a COSE_Sign1 array of four items.', { details: { part: 'envelope' } });
  }
  const [protectedBytes, unprotected, payload, signature] = decoded;
  if (!(protectedBytes instanceof Uint8Array)) throw new ArtifactError('bad_encoding', 'The protected header must be a byte string.', { details: { part: 'protected' } });
  if (!(unprotected instanceof Map) || unprotected.size !== 0) {
    throw new ArtifactError('bad_encoding', 'The unprotected header must be an empty map.', { details: { part: 'unprotected' } });
  }
  if (!(payload instanceof Uint8Array)) throw new ArtifactError('bad_encoding', 'The payload must be a byte string.', { details: { part: 'payload' } });
  if (!(signature instanceof Uint8Array)) throw new ArtifactError('bad_encoding', 'The signature must be a byte string.', { details: { part: 'signature' } });
  return { protectedBytes, header: decodeProtectedHeader(protectedBytes), payload, signature };
}

/**
 * The bytes an Ed25519 key signs (RFC 9052 §4.4):
 * `Sig_structure = ["Signature1", protected, external_aad, payload]`, canonically encoded.
 *
 * @param protectedBytes - Encoded protected header.
 * @param externalAad - The domain bytes (`licenseExternalAad`).
 * @param payload - Payload bytes.
 * @returns The message to sign or verify.
 *
 * @example
 * ```ts
 * import { verifyEd25519 } from '@tollgate/core/crypto';
 * import { sigStructure, licenseExternalAad } from '@tollgate/core/license';
 * const ok = verifyEd25519(epochKey, sigStructure(protectedBytes, licenseExternalAad('kill-order', 'acme-editor'), payload), signature);
 * ```
 */
export function sigStructure(protectedBytes: Uint8Array, externalAad: Uint8Array, payload: Uint8Array): Uint8Array {
  return encodeCanonical(['Signature1', protectedBytes, externalAad, payload]);
}
