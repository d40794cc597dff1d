import { suspiciousRefusal } from './suspicion-notices';
import { encodeCanonical, type CborKey, type CborValue } from '../../cbor';
import { sha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';
import { verifyEd25519 } from '../../crypto';
import { LicenseClientError } from '../../errors/license-client';
import { isArtifactError } from '../artifact-error';
import { encodeProtectedHeader, sigStructure } from '../cose-sign1';
import { decodeDeviceRequest } from '../device-proof';
import { licenseExternalAad } from '../domain';
import { licenseContentType, type DeviceRequestKind, type DeviceRequests } from '../kinds';
import { licenseProtocolVersion } from '../protocol';
import { requestProofKey } from '../requests/activation-request';
import type { SignatureVerifier } from '../verify-artifact';

/** A device request as the routes hand it to the services: typed, plus the decoded map it came from. */
export interface ClientRequest<Kind extends DeviceRequestKind> {
  readonly kind: Kind;
  readonly request: DeviceRequests[Kind];
  /** The decoded body: the proof covers its canonical encoding minus key 15. */
  readonly map: ReadonlyMap<CborKey, CborValue>;
}

/**
 * The generic refusal of a credential, a proof or a replay: code 1000 says no more than that on
 * purpose (spec: "deliberately generic"), so a prober learns nothing about which check failed.
 *
 * @param status - 401 (who are you?) or 403 (known, but not allowed).
 * @returns The error to throw.
 * @example
 * ```ts
 * import { refusedCredential } from '@tollgate/core/license';
 * throw refusedCredential(403);
 * ```
 */
export function refusedCredential(status: 401 | 403 = 401): LicenseClientError {
  return new LicenseClientError(1000, status === 401 ? 'The credential is not valid.' : 'The credential may not be used.', { status });
}

/**
 * Checks `proto_ver` and the layout of a device request. A body whose key 0 is another version is
 * 1004 (426), as the spec asks; any other shape problem is 1000 (400) naming the field.
 *
 * @param kind - The request kind the route takes.
 * @param body - The body the CBOR route decoded (strict canonical).
 * @returns The typed request and its map.
 * @throws LicenseClientError 1004 or 1000.
 * @example
 * ```ts
 * import { decodeClientRequest } from '@tollgate/core/license';
 * const { request } = decodeClientRequest('heartbeat-request', httpRequest.body);
 * ```
 */
export function decodeClientRequest<Kind extends DeviceRequestKind>(kind: Kind, body: unknown): ClientRequest<Kind> {
  if (!(body instanceof Map)) throw new LicenseClientError(1000, 'The body must be a CBOR map.');
  const map = body as Map<CborKey, CborValue>;
  if (map.has(0) && map.get(0) !== licenseProtocolVersion) throw new LicenseClientError(1004, `proto_ver must be ${licenseProtocolVersion}.`);
  try {
    return { kind, request: decodeDeviceRequest(kind, map), map };
  } catch (error) {
    if (isArtifactError(error)) throw new LicenseClientError(1000, error.message, { cause: error });
    throw error;
  }
}

/**
 * The message a device proof signs, built from the decoded map itself: the canonical re-encoding of a
 * canonically decoded map is byte-exact, so these are the bytes the device signed (it equals
 * `deviceProofMessage` for a well-formed request, and also works for a request whose telemetry block is
 * dropped as malformed).
 *
 * @param kind - The request kind (its domain is signed).
 * @param productId - Key 1 of the request.
 * @param map - The decoded request.
 * @returns The Sig_structure bytes.
 * @example
 * ```ts
 * import { requestProofMessage } from '@tollgate/core/license';
 * const message = requestProofMessage('validate-request', productId, map);
 * ```
 */
export function requestProofMessage(kind: DeviceRequestKind, productId: string, map: ReadonlyMap<CborKey, CborValue>): Uint8Array {
  const signed = new Map(map);
  signed.delete(requestProofKey);
  const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: licenseContentType(kind), productId });
  return sigStructure(protectedBytes, licenseExternalAad(kind, productId), encodeCanonical(signed));
}

/**
 * Checks a request's proof with a device key; a forged proof is 1000 (401) before any state is touched,
 * so it never consumes a nonce.
 *
 * @param kind - The request kind.
 * @param productId - The request's product.
 * @param map - The decoded request.
 * @param proof - Key 15.
 * @param devicePublicKey - The key in the request (activation) or the machine's registered key.
 * @param verify - Ed25519 verification.
 * @throws LicenseClientError 1000 (401).
 * @example
 * ```ts
 * import { checkRequestProof } from '@tollgate/core/license';
 * checkRequestProof('heartbeat-request', request.productId, map, request.proof, machine.devicePublicKey);
 * ```
 */
export function checkRequestProof(
  kind: DeviceRequestKind,
  productId: string,
  map: ReadonlyMap<CborKey, CborValue>,
  proof: Uint8Array,
  devicePublicKey: Uint8Array,
  verify: SignatureVerifier = verifyEd25519,
): void {
  if (!verify(devicePublicKey, requestProofMessage(kind, productId, map), proof)) throw suspiciousRefusal(refusedCredential(401), { productId, kind: 'proof_failure' });
}

/** An `Idempotency-Key` as stored: its SHA-256, never the key. */
export interface IdempotencyKeyDigest {
  readonly keyHash: Uint8Array;
}

const idempotencyKeyPattern = /^[\x21-\x7e]{1,128}$/;

/**
 * Reads the required `Idempotency-Key` header of activate, deactivate and offline requests: 1 to 128
 * visible ASCII characters (a UUID, a ULID, a counter). Missing or malformed is 1000 (400).
 *
 * @param headers - Lower-cased request headers.
 * @returns The key's digest.
 * @throws LicenseClientError 1000 (400).
 * @example
 * ```ts
 * import { readClientIdempotencyKey } from '@tollgate/core/license';
 * const { keyHash } = readClientIdempotencyKey(request.headers);
 * ```
 */
export function readClientIdempotencyKey(headers: Readonly<Record<string, string>>): IdempotencyKeyDigest {
  const key = headers['idempotency-key'];
  if (key === undefined || !idempotencyKeyPattern.test(key)) {
    throw new LicenseClientError(1000, 'This request needs an Idempotency-Key header of 1 to 128 visible ASCII characters.');
  }
  return { keyHash: sha256(utf8Encode(key)) };
}

/**
 * SHA-256 of the canonical request body: what tells a replay from another request under the same key.
 *
 * @param map - The decoded request.
 * @returns 32 bytes.
 * @example
 * ```ts
 * import { requestDigest } from '@tollgate/core/license';
 * const digest = requestDigest(clientRequest.map);
 * ```
 */
export function requestDigest(map: ReadonlyMap<CborKey, CborValue>): Uint8Array {
  return sha256(encodeCanonical(map as Map<CborKey, CborValue>));
}
