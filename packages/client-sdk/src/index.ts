/**
 * `@tollgate/client-sdk`: the desktop client of the license protocol. Works in Node and in browsers
 * (no Node-only imports): the typed device calls (activate, validate, heartbeat, deactivate, offline
 * request) and account calls (login, refresh, logout), which verify every signed answer before
 * returning it; verify keysets against pinned roots, verify signed artifacts against the keyset and the
 * revocation feed together, fetch the keyset with HTTP caching, and follow the feed.
 *
 * @packageDocumentation
 */
export { createArtifactVerifier, type ArtifactVerifier, type ArtifactVerifierOptions, type AppArtifactKind, type VerifyCallOptions } from './artifact-verifier';
export { verifyKeyset, verifyArtifact, decodePins, type PinnedRoot, type VerifyArtifactOptions } from './verify';
export { defaultSignatureVerifier, webCryptoEd25519Verifier, verifyWithChecks, type AsyncSignatureVerifier, type SdkSignatureVerifier } from './signature-checks';
export { createKeysetFetcher, defaultRefetchIntervalSeconds, type KeysetFetcher, type KeysetFetcherOptions, type KeysetRefetch } from './keyset-fetcher';
export {
  createRevocationFollower,
  type RevocationFollower,
  type RevocationFollowerOptions,
  type RevocationFollowerState,
  type SignedFeedCheckpoint,
} from './revocation-follower';
export { LicenseRequestError, RevocationFeedError, ResponseMismatchError, type RevocationFeedErrorCode, type ResponseMismatchCode } from './errors';
export { login, refresh, logout, type AccountCallOptions, type LoginCredentials } from './account-calls';
export { type LicenseServerOptions } from './protocol-http';
export { type DeviceCallOptions, type DeviceSeat, type DeviceSession } from './device-calls';
export {
  activate,
  requestOffline,
  buildActivationRequest,
  type ActivateInput,
  type ActivationCredentialInput,
  type Activation,
  type OfflineRequestInput,
  type OfflineActivation,
} from './activation-calls';
export { validate, heartbeat, deactivate, type ValidateInput, type ValidateResult, type DeactivateInput, type HeartbeatResult } from './session-calls';
export { maxAgeSeconds, type FetchFunction } from './http';
export type {
  Signer,
} from '@tollgate/core';
export type {
  VerifiedKeyset,
  VerifiedArtifact,
  VerifiedEpoch,
  ArtifactKind,
  ArtifactPayloads,
  ArtifactError,
  ArtifactErrorReason,
  AccountSession,
  ClientInfo,
  MachineCredential,
  ValidationTicket,
  KillOrder,
  KillReason,
  OfflineResponse,
  TelemetryBlock,
} from '@tollgate/core/license';
export * from './asset-keys';
export * from './manifest-signature';
export { createLicenseClient } from './life-cycle/license-client';
export type { LicenseClient, LicenseClientOptions } from './life-cycle/license-client-types';
export { type LicenseState, usableStates, classifyFailure, standingAt, retryDelayMs, refreshDelayMs, type FailureKind, type Standing } from './life-cycle/license-state';
export { type StateChange, type LicenseClientEventMap, type LicenseClientEvents } from './life-cycle/client-events';
export { createMemoryStorage, type LicenseStorage } from './life-cycle/storage';
export { platformScheduler, type Scheduler } from './life-cycle/scheduler';
export { encodeStoredLicense, decodeStoredLicense, type StoredLicense } from './life-cycle/stored-license';
export { buildOfflineRequest, relayOfflineRequest, verifyOfflineAnswer, type OfflineRequestPackage, type OfflineAnswerCheck, type VerifiedOfflineAnswer } from './offline-relay';
