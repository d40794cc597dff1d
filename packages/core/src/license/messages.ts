import type { CborValue } from '../cbor';
import { artifactKinds, isArtifactKind, licenseMessageSpecs, type ArtifactKind, type ArtifactPayloads, type LicenseMessageKind, type LicenseMessages } from './kinds';
import { artifactDecodeLimits } from './protocol';
import { decodeRecord, decodeStrict, encodeRecord, parseRecord } from './record-codec';

function messageSpec<Kind extends LicenseMessageKind>(kind: Kind) {
  if (typeof kind !== 'string' || !Object.hasOwn(licenseMessageSpecs, kind)) throw new TypeError(`unknown license message kind ${String(kind)}`);
  return licenseMessageSpecs[kind];
}

/**
 * Encodes an unsigned client-protocol message (responses, account requests, keyset, error body).
 *
 * @param kind - The message kind.
 * @param message - The typed message.
 * @returns Canonical CBOR.
 * @throws {@link ArtifactError} `invalid_payload`.
 *
 * @example
 * ```ts
 * import { encodeLicenseMessage } from '@tollgate/core/license';
 * const body = encodeLicenseMessage('heartbeat-response', { protoVersion: 1, ok: true, nextAfter, nonceEcho });
 * ```
 */
export function encodeLicenseMessage<Kind extends LicenseMessageKind>(kind: Kind, message: LicenseMessages[Kind]): Uint8Array {
  return encodeRecord(messageSpec(kind), message);
}

/**
 * Decodes an unsigned message strictly, from bytes or from a value the HTTP layer already decoded.
 *
 * @param kind - The expected kind.
 * @param body - Bytes or decoded CBOR.
 * @returns The typed message.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 *
 * @example
 * ```ts
 * import { decodeLicenseMessage } from '@tollgate/core/license';
 * const error = decodeLicenseMessage('error-body', bytes); // { code: 1004, message: '…' }
 * ```
 */
export function decodeLicenseMessage<Kind extends LicenseMessageKind>(kind: Kind, body: Uint8Array | CborValue): LicenseMessages[Kind] {
  const spec = messageSpec(kind);
  return parseRecord(spec, body instanceof Uint8Array ? decodeStrict(body, spec.name, artifactDecodeLimits) : body);
}

/**
 * Encodes the payload of an artifact kind alone (the bytes inside the envelope), after validating it.
 *
 * @param kind - The artifact kind.
 * @param payload - The typed payload.
 * @returns Canonical CBOR.
 * @throws {@link ArtifactError} `invalid_payload`.
 *
 * @example
 * ```ts
 * import { encodeArtifactPayload } from '@tollgate/core/license';
 * const bytes = encodeArtifactPayload('kill-order', order);
 * ```
 */
export function encodeArtifactPayload<Kind extends ArtifactKind>(kind: Kind, payload: ArtifactPayloads[Kind]): Uint8Array {
  if (!isArtifactKind(kind)) throw new TypeError(`unknown artifact kind ${String(kind)}`);
  return encodeRecord(artifactKinds[kind].spec, payload);
}

/**
 * Decodes the payload bytes of an artifact kind strictly, **without** any signature check (for
 * diagnostics and vectors; use `verifyArtifact` for anything you act on).
 *
 * @param kind - The artifact kind.
 * @param bytes - Payload bytes.
 * @returns The typed payload.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 *
 * @example
 * ```ts
 * import { decodeArtifactPayload, inspectArtifact } from '@tollgate/core/license';
 * const unverified = decodeArtifactPayload('kill-order', inspectArtifact(bytes).parts.payload);
 * ```
 */
export function decodeArtifactPayload<Kind extends ArtifactKind>(kind: Kind, bytes: Uint8Array): ArtifactPayloads[Kind] {
  if (!isArtifactKind(kind)) throw new TypeError(`unknown artifact kind ${String(kind)}`);
  return decodeRecord(artifactKinds[kind].spec, bytes, artifactDecodeLimits);
}
