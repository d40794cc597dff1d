import type { CborRecordSpec } from './cbor-record';
import { keysetSpec, errorBodySpec, type ErrorBody, type Keyset } from './messages/keyset-message';
import { auditAnchorSpec, type AuditAnchor } from './payloads/audit-anchor';
import {
  accountSessionSpec,
  deactivateResponseSpec,
  heartbeatResponseSpec,
  loginRequestSpec,
  logoutRequestSpec,
  refreshRequestSpec,
  type AccountSession,
  type DeactivateResponse,
  type HeartbeatResponse,
  type LoginRequest,
  type RefreshTokenRequest,
} from './messages/session-messages';
import { epochCertificateRequestSpec, epochCertificateSpec, type EpochCertificate, type EpochCertificateRequest } from './payloads/epoch-certificate';
import { killOrderSpec, type KillOrder } from './payloads/kill-order';
import { machineCredentialSpec, type MachineCredential } from './payloads/machine-credential';
import { offlineKeySpec, type OfflineKey } from './payloads/offline-key';
import { offlineResponseSpec, type OfflineResponse } from './payloads/offline-response';
import { revocationBatchSpec, type RevocationBatch } from './payloads/revocation-batch';
import { validationTicketSpec, type ValidationTicket } from './payloads/validation-ticket';
import { activationRequestSpec, offlineRequestSpec, type ActivationRequest, type OfflineRequest } from './requests/activation-request';
import { deactivateRequestSpec, heartbeatRequestSpec, validateRequestSpec, type SessionRequest, type ValidateRequest } from './requests/validate-request';

/** The payload type of each signed artifact kind. */
export interface ArtifactPayloads {
  'epoch-certificate': EpochCertificate;
  'machine-credential': MachineCredential;
  'validation-ticket': ValidationTicket;
  'kill-order': KillOrder;
  'revocation-batch': RevocationBatch;
  'offline-response': OfflineResponse;
  'offline-key': OfflineKey;
  'audit-anchor': AuditAnchor;
}

/** A kind of signed artifact (COSE_Sign1 envelope). */
export type ArtifactKind = keyof ArtifactPayloads;

/** The request type of each device-signed request kind (a map whose key 15 is the proof). */
export interface DeviceRequests {
  'activation-request': ActivationRequest;
  'offline-request': OfflineRequest;
  'validate-request': ValidateRequest;
  'heartbeat-request': SessionRequest;
  'deactivate-request': SessionRequest;
}

/** A kind of device-signed request. */
export type DeviceRequestKind = keyof DeviceRequests;

/** The type of each unsigned message. */
export interface LicenseMessages {
  'epoch-certificate-request': EpochCertificateRequest;
  keyset: Keyset;
  'error-body': ErrorBody;
  'heartbeat-response': HeartbeatResponse;
  'deactivate-response': DeactivateResponse;
  'login-request': LoginRequest;
  'refresh-request': RefreshTokenRequest;
  'logout-request': RefreshTokenRequest;
  'account-session': AccountSession;
}

/** A kind of unsigned message. */
export type LicenseMessageKind = keyof LicenseMessages;

/** Who signs an artifact kind: the offline root (epoch certificates) or an epoch key (everything else). */
export type ArtifactSigner = 'root' | 'epoch';

/**
 * Whether a kind is bound to one product (the product id is in the protected header and the domain) or
 * global (the domain carries the empty product).
 */
export type ArtifactScope = 'product' | 'global';

/** What the registry knows about one signed kind. */
export interface ArtifactKindInfo<Kind extends ArtifactKind = ArtifactKind> {
  readonly kind: Kind;
  /** Protected header label 3 (COSE content type). */
  readonly contentType: string;
  readonly scope: ArtifactScope;
  readonly signer: ArtifactSigner;
  readonly spec: CborRecordSpec<ArtifactPayloads[Kind]>;
}

/**
 * The COSE content type (protected header label 3) of a kind: `application/vnd.tollgate.<kind>+cbor`.
 *
 * @param kind - An artifact or device request kind.
 * @returns The media type string.
 *
 * @example
 * ```ts
 * import { licenseContentType } from '@tollgate/core/license';
 * licenseContentType('validation-ticket'); // 'application/vnd.tollgate.validation-ticket+cbor'
 * ```
 */
export function licenseContentType(kind: ArtifactKind | DeviceRequestKind): string {
  return `application/vnd.tollgate.${kind}+cbor`;
}

function artifact<Kind extends ArtifactKind>(
  kind: Kind,
  scope: ArtifactScope,
  signer: ArtifactSigner,
  spec: CborRecordSpec<ArtifactPayloads[Kind]>,
): ArtifactKindInfo<Kind> {
  return Object.freeze({ kind, contentType: licenseContentType(kind), scope, signer, spec });
}

/**
 * Every signed artifact kind with its content type, scope, signer and payload layout.
 *
 * @example
 * ```ts
 * import { artifactKinds } from '@tollgate/core/license';
 * artifactKinds['revocation-batch'].scope; // 'global'
 * ```
 */
export const artifactKinds: { readonly [Kind in ArtifactKind]: ArtifactKindInfo<Kind> } = Object.freeze({
  'epoch-certificate': artifact('epoch-certificate', 'global', 'root', epochCertificateSpec),
  'machine-credential': artifact('machine-credential', 'product', 'epoch', machineCredentialSpec),
  'validation-ticket': artifact('validation-ticket', 'product', 'epoch', validationTicketSpec),
  'kill-order': artifact('kill-order', 'product', 'epoch', killOrderSpec),
  'revocation-batch': artifact('revocation-batch', 'global', 'epoch', revocationBatchSpec),
  'offline-response': artifact('offline-response', 'product', 'epoch', offlineResponseSpec),
  'offline-key': artifact('offline-key', 'product', 'epoch', offlineKeySpec),
  'audit-anchor': artifact('audit-anchor', 'global', 'epoch', auditAnchorSpec),
});

/**
 * Layout of every device-signed request kind.
 *
 * @example
 * ```ts
 * import { deviceRequestSpecs } from '@tollgate/core/license';
 * deviceRequestSpecs['validate-request'].fieldKeys.telemetry; // 11
 * ```
 */
export const deviceRequestSpecs: { readonly [Kind in DeviceRequestKind]: CborRecordSpec<DeviceRequests[Kind]> } = Object.freeze({
  'activation-request': activationRequestSpec,
  'offline-request': offlineRequestSpec,
  'validate-request': validateRequestSpec,
  'heartbeat-request': heartbeatRequestSpec,
  'deactivate-request': deactivateRequestSpec,
});

/**
 * Layout of every unsigned message kind.
 *
 * @example
 * ```ts
 * import { licenseMessageSpecs } from '@tollgate/core/license';
 * licenseMessageSpecs['error-body'].fieldKeys; // { code: 0, message: 1, retryAfter: 2 }
 * ```
 */
export const licenseMessageSpecs: { readonly [Kind in LicenseMessageKind]: CborRecordSpec<LicenseMessages[Kind]> } = Object.freeze({
  'epoch-certificate-request': epochCertificateRequestSpec,
  keyset: keysetSpec,
  'error-body': errorBodySpec,
  'heartbeat-response': heartbeatResponseSpec,
  'deactivate-response': deactivateResponseSpec,
  'login-request': loginRequestSpec,
  'refresh-request': refreshRequestSpec,
  'logout-request': logoutRequestSpec,
  'account-session': accountSessionSpec,
});

const kindByContentType = new Map<string, ArtifactKind | DeviceRequestKind>([
  ...(Object.keys(artifactKinds) as ArtifactKind[]).map((kind) => [licenseContentType(kind), kind] as const),
  ...(Object.keys(deviceRequestSpecs) as DeviceRequestKind[]).map((kind) => [licenseContentType(kind), kind] as const),
]);

/**
 * The kind a protected-header content type names, or `undefined` for an unknown one.
 *
 * @param contentType - Header label 3.
 * @returns The artifact or device request kind.
 */
export function kindOfContentType(contentType: string): ArtifactKind | DeviceRequestKind | undefined {
  return kindByContentType.get(contentType);
}

/**
 * True for a signed artifact kind.
 *
 * @param value - Anything.
 * @returns Whether it names an {@link ArtifactKind}.
 *
 * @example
 * ```ts
 * import { isArtifactKind } from '@tollgate/core/license';
 * if (!isArtifactKind(name)) throw new Error(`unknown kind ${name}`);
 * ```
 */
export function isArtifactKind(value: unknown): value is ArtifactKind {
  return typeof value === 'string' && Object.hasOwn(artifactKinds, value);
}
