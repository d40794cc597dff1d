import { constantTimeEqual, createNobleEd25519Signer, ed25519PublicKey, hexEncode, sha256, verifyEd25519, type Ed25519SignerOptions, type Signer } from '../crypto';
import { ArtifactError } from './artifact-error';
import { decodeSign1, encodeProtectedHeader, encodeSign1, sigStructure } from './cose-sign1';
import { licenseExternalAad } from './domain';
import { artifactKinds } from './kinds';
import type { EpochCertificate, EpochCertificateRequest } from './payloads/epoch-certificate';
import { epochCertificateRequestSpec } from './payloads/epoch-certificate';
import { licenseWireLengths } from './protocol';
import { decodeRecord, encodeRecord } from './record-codec';
import { signVerified } from './sign-artifact';
import { signerKeyId } from './signing-key-id';
import { expectKindAndProduct, verifySignatureAndPayload, type EpochKey, type SignatureVerifier } from './verify-artifact';

/**
 * The SHA-256 of a root public key: field 6 of every epoch certificate it issues.
 *
 * @param rootPublicKey - The 32-byte root public key.
 * @returns 32 bytes.
 *
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * import { rootKeyDigest } from '@tollgate/core/license';
 * console.log(hexEncode(rootKeyDigest(rootPublicKey)));
 * ```
 */
export function rootKeyDigest(rootPublicKey: Uint8Array): Uint8Array {
  assertPublicKey(rootPublicKey);
  return sha256(rootPublicKey);
}

/**
 * The 8-byte key id of a root public key (the first 8 bytes of its SHA-256), as hex: the `kid` of the
 * epoch certificates it signs, so a verifier picks the right pin without trying each.
 *
 * @param rootPublicKey - The 32-byte root public key.
 * @returns 16 lower-case hex digits.
 *
 * @example
 * ```ts
 * import { rootKeyIdHex } from '@tollgate/core/license';
 * rootKeyIdHex(rootPublicKey); // e.g. '3f1c…' (16 hex digits)
 * ```
 */
export function rootKeyIdHex(rootPublicKey: Uint8Array): string {
  return hexEncode(rootKeyDigest(rootPublicKey).subarray(0, licenseWireLengths.epochId));
}

function assertPublicKey(key: unknown): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== licenseWireLengths.publicKey) throw new TypeError('a root public key is 32 bytes');
}

/**
 * A {@link Signer} for a root private key with the root key id as `kid`. Defaults to the noble signer;
 * pass `createNodeEd25519Signer` on Node (same bytes, faster).
 *
 * @param privateKey - The 32-byte root seed.
 * @param createSigner - Signer factory.
 * @returns The root signer.
 *
 * @example
 * ```ts
 * import { createRootSigner } from '@tollgate/core/license';
 * import { createNodeEd25519Signer } from '@tollgate/core/node';
 * const root = createRootSigner(rootSeed, createNodeEd25519Signer);
 * ```
 */
export function createRootSigner(privateKey: Uint8Array, createSigner: (options: Ed25519SignerOptions) => Signer = createNobleEd25519Signer): Signer {
  return createSigner({ privateKey, kid: rootKeyIdHex(ed25519PublicKey(privateKey)) });
}

/**
 * Encodes the certificate request an operator carries to the offline root.
 *
 * @param request - Epoch id, public key, window and optional product scope.
 * @returns Canonical CBOR (keys 0–5 of the certificate).
 * @throws {@link ArtifactError} `invalid_payload`.
 *
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * import { encodeEpochCertificateRequest } from '@tollgate/core/license';
 * console.log(hexEncode(encodeEpochCertificateRequest(request)));
 * ```
 */
export function encodeEpochCertificateRequest(request: EpochCertificateRequest): Uint8Array {
  return encodeRecord(epochCertificateRequestSpec, request);
}

/**
 * Decodes a certificate request strictly.
 *
 * @param bytes - The request bytes.
 * @returns The typed request.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 *
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { decodeEpochCertificateRequest } from '@tollgate/core/license';
 * const request = decodeEpochCertificateRequest(hexDecode(requestHex));
 * ```
 */
export function decodeEpochCertificateRequest(bytes: Uint8Array): EpochCertificateRequest {
  return decodeRecord(epochCertificateRequestSpec, bytes);
}

/**
 * The root's side of the ceremony: signs a certificate request, adding the root key digest.
 *
 * @param request - The request (typed, or its bytes from `epoch create`).
 * @param rootSigner - The root signer (`createRootSigner`).
 * @returns The epoch certificate envelope.
 * @throws {@link ArtifactError} `bad_encoding`/`invalid_payload` for a bad request; `TrustChainError`
 *   `invalid_signer` when the root's signature does not verify with its public key.
 *
 * @example
 * ```ts
 * import { createRootSigner, signEpochCertificate } from '@tollgate/core/license';
 * const certificate = await signEpochCertificate(requestBytes, createRootSigner(rootSeed));
 * ```
 */
export async function signEpochCertificate(request: EpochCertificateRequest | Uint8Array, rootSigner: Signer): Promise<Uint8Array> {
  const typed = request instanceof Uint8Array ? decodeEpochCertificateRequest(request) : request;
  const kid = signerKeyId(rootSigner);
  if (hexEncode(kid) !== rootKeyIdHex(rootSigner.publicKey)) throw new TypeError('the root signer kid must be rootKeyIdHex(publicKey)');
  const certificate: EpochCertificate = { ...typed, rootKeyDigest: rootKeyDigest(rootSigner.publicKey) };
  const info = artifactKinds['epoch-certificate'];
  const payload = encodeRecord(info.spec, certificate);
  const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: info.contentType, kid });
  // Verified before it leaves: the root often lives on a token or HSM, whose faults must not reach a ceremony.
  const signature = await signVerified(rootSigner, sigStructure(protectedBytes, licenseExternalAad('epoch-certificate', undefined), payload));
  return encodeSign1(protectedBytes, payload, signature);
}

/** An epoch key whose certificate verified against a pinned root. */
export interface VerifiedEpoch extends EpochKey {
  /** The certificate envelope it came from. */
  readonly certificate: Uint8Array;
  /** The SHA-256 of the root that issued it. */
  readonly rootKeyDigest: Uint8Array;
}

/** Options of {@link verifyEpochCertificate}. */
export interface VerifyEpochCertificateOptions {
  /** The pinned root public keys (current and next), 32 bytes each. */
  pinnedRoots: readonly Uint8Array[];
  /**
   * When given, a certificate that has expired at this unix time is refused (`expired_epoch`). A
   * successor whose window has not opened yet is accepted, as in keysets: artifact verification checks
   * the full window when the key is used.
   */
  at?: number;
  /** Signature check; `verifyEd25519` by default. */
  verify?: SignatureVerifier;
}

/**
 * Verifies an epoch certificate against the pinned roots: strict encoding, kind `epoch-certificate`
 * (global), a `kid` naming one of the pins (`unpinned_root` otherwise), the root's signature, the
 * payload layout, and a root key digest equal to that pin's (`unpinned_root` otherwise). With `at`, an
 * expired certificate is refused.
 *
 * @param bytes - The certificate envelope.
 * @param options - Pins, optional time, verifier.
 * @returns The verified epoch key.
 * @throws {@link ArtifactError}.
 *
 * @example
 * ```ts
 * import { verifyEpochCertificate } from '@tollgate/core/license';
 * const epoch = verifyEpochCertificate(certificate, { pinnedRoots: [currentRoot, nextRoot], at: now });
 * ```
 */
export function verifyEpochCertificate(bytes: Uint8Array, options: VerifyEpochCertificateOptions): VerifiedEpoch {
  const parts = decodeSign1(bytes);
  expectKindAndProduct(parts, 'epoch-certificate', undefined);
  if (parts.header.kid === undefined) throw new ArtifactError('bad_encoding', 'A certificate names its root (kid).', { details: { part: 'protected', field: 'kid' } });
  const kidHex = hexEncode(parts.header.kid);
  const root = options.pinnedRoots.find((pin) => pin instanceof Uint8Array && pin.length === licenseWireLengths.publicKey && rootKeyIdHex(pin) === kidHex);
  if (root === undefined) throw new ArtifactError('unpinned_root', `Root ${kidHex} is not pinned.`, { details: { rootKeyId: kidHex } });
  const certificate = verifySignatureAndPayload(parts, 'epoch-certificate', undefined, root, options.verify ?? verifyEd25519);
  if (!constantTimeEqual(certificate.rootKeyDigest, rootKeyDigest(root))) {
    throw new ArtifactError('unpinned_root', 'The certificate names another root than the one that signed it.', { details: { rootKeyId: kidHex } });
  }
  const epoch: VerifiedEpoch = Object.freeze({
    epochId: certificate.epochId,
    epochIdHex: hexEncode(certificate.epochId),
    publicKey: certificate.publicKey,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    ...(certificate.productScope === undefined ? {} : { productScope: certificate.productScope }),
    certificate: bytes.slice(),
    rootKeyDigest: certificate.rootKeyDigest,
  });
  if (options.at !== undefined && options.at >= epoch.notAfter) {
    throw new ArtifactError('expired_epoch', `Epoch ${epoch.epochIdHex} expired at ${epoch.notAfter}.`, {
      details: { epochId: epoch.epochIdHex, notAfter: epoch.notAfter, now: options.at },
    });
  }
  return epoch;
}
