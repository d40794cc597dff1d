export { ArtifactError, artifactErrorReasons, isArtifactError, type ArtifactErrorReason } from './artifact-error';
export { TrustChainError, type TrustChainErrorCode } from './trust-chain-error';
export {
  licenseProtocolVersion,
  licenseProtocolHeader,
  licenseWireLengths,
  productIdPattern,
  artifactDecodeLimits,
  maxRevocationBatchIds,
  revocationPageSize,
  maxKeysetCertificates,
  licenseClockSkewSeconds,
} from './protocol';
export type { CborRecordSpec } from './cbor-record';
export {
  artifactKinds,
  deviceRequestSpecs,
  licenseMessageSpecs,
  licenseContentType,
  isArtifactKind,
  type ArtifactKind,
  type ArtifactPayloads,
  type ArtifactKindInfo,
  type ArtifactScope,
  type ArtifactSigner,
  type DeviceRequestKind,
  type DeviceRequests,
  type LicenseMessageKind,
  type LicenseMessages,
} from './kinds';
export { licenseDomainLabel, licenseExternalAad } from './domain';
export {
  encodeProtectedHeader,
  decodeProtectedHeader,
  encodeSign1,
  decodeSign1,
  sigStructure,
  coseAlgLabel,
  coseContentTypeLabel,
  coseKidLabel,
  coseProductLabel,
  coseEdDsa,
  type ProtectedHeader,
  type Sign1Parts,
} from './cose-sign1';
export { signArtifact, prepareArtifact, signVerified, type SignArtifactOptions, type SelfCheckingSigner } from './sign-artifact';
export {
  verifyArtifact,
  inspectArtifact,
  checkEpochWindow,
  type EpochKey,
  type EpochKeySource,
  type SignatureVerifier,
  type VerifyArtifactOptions,
  type VerifiedArtifact,
  type InspectedArtifact,
} from './verify-artifact';
export {
  rootKeyDigest,
  rootKeyIdHex,
  createRootSigner,
  encodeEpochCertificateRequest,
  decodeEpochCertificateRequest,
  signEpochCertificate,
  verifyEpochCertificate,
  type VerifiedEpoch,
  type VerifyEpochCertificateOptions,
} from './epoch-certificate';
export { encodeKeyset, decodeKeyset, verifyKeyset, assertPinnedRoots, type VerifiedKeyset } from './keyset';
export { deviceProofMessage, signDeviceRequest, decodeDeviceRequest, verifyDeviceProof, type UnsignedDeviceRequest } from './device-proof';
export { encodeLicenseMessage, decodeLicenseMessage, encodeArtifactPayload, decodeArtifactPayload } from './messages';
export { sealEpochPrivateKey, openEpochPrivateKey, epochKeySealLabel, sealedEpochKeyLength, epochKeySealVersion, isLegacySealedEpochKey } from './epoch-key-seal';
export {
  parseRevocationSince,
  revocationPageRange,
  encodeCborSequence,
  splitCborSequence,
  type RevocationPageRange,
} from './revocation-feed-format';
export { pickSigningEpoch, type SigningEpoch } from './signing-epochs';
export type { EpochCertificate, EpochCertificateRequest } from './payloads/epoch-certificate';
export { entitlementNamePattern, type Entitlements } from './payloads/entitlements';
export type { MachineCredential, CredentialMode } from './payloads/machine-credential';
export type { ValidationTicket, ValidationVerdict, ReleaseStatus } from './payloads/validation-ticket';
export { killReasons, type KillOrder, type KillReason } from './payloads/kill-order';
export type { RevocationBatch } from './payloads/revocation-batch';
export type { OfflineResponse } from './payloads/offline-response';
export { offlineKeySpec, maxOfflineKeyFeatures, type OfflineKey } from './payloads/offline-key';
export { requestProofKey, type ActivationRequest, type OfflineRequest } from './requests/activation-request';
export type { ValidateRequest, SessionRequest } from './requests/validate-request';
export type { ClientInfo, ActivationCredential } from './requests/client-info';
export { maxTelemetryBlockBytes, telemetryBlockSpec, type TelemetryBlock } from './requests/telemetry';
export type { HeartbeatResponse, DeactivateResponse, LoginRequest, RefreshTokenRequest, AccountSession } from './messages/session-messages';
export type { Keyset, ErrorBody } from './messages/keyset-message';
export { licenseMigrations } from './storage/license-migrations';
export {
  createPendingEpoch,
  activateEpochCertificate,
  listEpochs,
  loadEpochSigningKeys,
  wipeRetiredEpochKeys,
  type EpochStatus,
  type StoredEpoch,
  type CreatePendingEpochOptions,
  type ActivateEpochCertificateOptions,
  type EpochSigningKey,
  type UnopenableEpoch,
  type LoadedEpochSigningKeys,
} from './storage/epoch-store';
export {
  publishRevocationBatch,
  readRevocationHead,
  readRevocationPage,
  type RevocationBatchInput,
  type PublishRevocationBatchOptions,
  type PublishedRevocationBatch,
  type RevocationPage,
} from './storage/revocation-store';
export { buildKeyset, type PublishedKeyset, type BuildKeysetOptions, type SkippedCertificate } from './storage/keyset-store';
export * from './model';
export * from './admin';
export * from './releases';
export * from './client-protocol';
export * from './account-sessions';
export * from './suspicion';
export type { AuditAnchor } from './payloads/audit-anchor';
export {
  auditEventHash,
  auditChainLink,
  auditSummaryJson,
  redactAuditSummary,
  isSecretSummaryKey,
  verifyAuditChain,
  auditGenesisHash,
  auditEventHashDomain,
  auditRedactedValue,
  type AuditChainLink,
  type AuditChainRange,
} from './admin/audit/audit-chain';
export { createSqlAuditLog } from './admin/audit/sql-audit-log';
export { anchorAuditHeads, listAuditAnchors, maxAuditAnchorPage, type AnchoredAuditHead, type StoredAuditAnchor, type AnchorAuditHeadsOptions } from './admin/audit/audit-anchors';
export { verifyAuditAnchor, type AuditAnchorTrust, type AuditAnchorVerification, type VerifyAuditAnchorOptions } from './admin/audit/audit-anchor-verify';
export * from './epochs-admin';
export * from './asset-keys';
export * from './integrity';
export * from './billing';
export * from './telemetry';
export * from './analytics';
export * from './analytics/subscriptions';
export * from './dsr';
export * from './service';
