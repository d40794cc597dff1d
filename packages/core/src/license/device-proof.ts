import { encodeCanonical, type CborValue } from '../cbor';
import { verifyEd25519, type Signer } from '../crypto';
import { ArtifactError } from './artifact-error';
import { encodeProtectedHeader, sigStructure } from './cose-sign1';
import { licenseExternalAad } from './domain';
import { deviceRequestSpecs, licenseContentType, type DeviceRequestKind, type DeviceRequests } from './kinds';
import { licenseWireLengths } from './protocol';
import { requestProofKey } from './requests/activation-request';
import { decodeStrict, encodeRecord, parseRecord } from './record-codec';
import { signChecked } from './signing-key-id';
import type { SignatureVerifier } from './verify-artifact';

/** A device request before it is signed: every field but `proof`. */
export type UnsignedDeviceRequest<Kind extends DeviceRequestKind> = Omit<DeviceRequests[Kind], 'proof'>;

const placeholderProof = new Uint8Array(licenseWireLengths.signature);

function isDeviceRequestKind(kind: unknown): kind is DeviceRequestKind {
  return typeof kind === 'string' && Object.hasOwn(deviceRequestSpecs, kind);
}

/**
 * The bytes a device signs to prove possession of its key: a COSE Sig_structure with a *detached*
 * payload, `["Signature1", protected, external_aad, payload]`, where
 * - `protected` = canonical `{1: -8, 3: content type of the kind, -65537: product_id}` (no kid),
 * - `external_aad` = the kind's domain bytes for `product_id`,
 * - `payload` = the canonical request map **without** key 15 (the proof).
 *
 * @param kind - The request kind.
 * @param request - The request (its `proof`, if present, is ignored).
 * @returns The message the device key signs.
 * @throws {@link ArtifactError} `invalid_payload` when the request breaks its layout.
 *
 * @example
 * ```ts
 * import { deviceProofMessage } from '@tollgate/core/license';
 * const message = deviceProofMessage('heartbeat-request', request);
 * ```
 */
export function deviceProofMessage<Kind extends DeviceRequestKind>(kind: Kind, request: UnsignedDeviceRequest<Kind> | DeviceRequests[Kind]): Uint8Array {
  if (!isDeviceRequestKind(kind)) throw new TypeError(`unknown device request kind ${String(kind)}`);
  const spec = deviceRequestSpecs[kind];
  // Validate the whole request with a placeholder proof, then drop key 15 from the signed map.
  const complete = { ...request, proof: placeholderProof } as DeviceRequests[Kind];
  encodeRecord(spec, complete);
  const map = spec.toCbor(complete);
  map.delete(requestProofKey);
  const productId = (request as { productId: string }).productId;
  const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: licenseContentType(kind), productId });
  return sigStructure(protectedBytes, licenseExternalAad(kind, productId), encodeCanonical(map));
}

/**
 * Signs a device request with the device key and encodes it with the proof at key 15.
 *
 * @param kind - The request kind.
 * @param request - Every field but `proof`.
 * @param deviceSigner - The device's Ed25519 signer (its `kid` is not used).
 * @returns The canonical request body.
 * @throws {@link ArtifactError} `invalid_payload`.
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer } from '@tollgate/core';
 * import { signDeviceRequest } from '@tollgate/core/license';
 * const device = createNobleEd25519Signer({ privateKey: deviceSeed, kid: 'device' });
 * const body = await signDeviceRequest('heartbeat-request', request, device);
 * ```
 */
export async function signDeviceRequest<Kind extends DeviceRequestKind>(kind: Kind, request: UnsignedDeviceRequest<Kind>, deviceSigner: Signer): Promise<Uint8Array> {
  const proof = await signChecked(deviceSigner, deviceProofMessage(kind, request));
  return encodeRecord(deviceRequestSpecs[kind], { ...request, proof } as DeviceRequests[Kind]);
}

/**
 * Decodes a device request strictly (bytes, or a value the HTTP layer already decoded canonically).
 * The proof is **not** checked here: see {@link verifyDeviceProof}.
 *
 * @param kind - The expected kind.
 * @param body - Request bytes or the decoded CBOR value.
 * @returns The typed request.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 *
 * @example
 * ```ts
 * import { decodeDeviceRequest } from '@tollgate/core/license';
 * const request = decodeDeviceRequest('validate-request', req.body);
 * ```
 */
export function decodeDeviceRequest<Kind extends DeviceRequestKind>(kind: Kind, body: Uint8Array | CborValue): DeviceRequests[Kind] {
  if (!isDeviceRequestKind(kind)) throw new TypeError(`unknown device request kind ${String(kind)}`);
  const spec = deviceRequestSpecs[kind];
  return parseRecord(spec, body instanceof Uint8Array ? decodeStrict(body, spec.name) : body);
}

/**
 * Checks a device request's proof with the device public key: the one inside an activation or offline
 * request, or the one registered at activation for later requests.
 *
 * @param kind - The request kind (its domain is part of the signed bytes).
 * @param request - The decoded request.
 * @param devicePublicKey - The 32-byte device key.
 * @param verify - Signature check; `verifyEd25519` by default.
 * @throws {@link ArtifactError} `bad_signature`.
 *
 * @example
 * ```ts
 * import { decodeDeviceRequest, verifyDeviceProof } from '@tollgate/core/license';
 * const request = decodeDeviceRequest('activation-request', body);
 * verifyDeviceProof('activation-request', request, request.devicePublicKey);
 * ```
 */
export function verifyDeviceProof<Kind extends DeviceRequestKind>(
  kind: Kind,
  request: DeviceRequests[Kind],
  devicePublicKey: Uint8Array,
  verify: SignatureVerifier = verifyEd25519,
): void {
  const message = deviceProofMessage(kind, request);
  if (!verify(devicePublicKey, message, request.proof)) {
    throw new ArtifactError('bad_signature', `The ${kind} proof does not verify.`, { details: { kind } });
  }
}
