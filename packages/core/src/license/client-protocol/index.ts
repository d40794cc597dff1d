export {
  clientArtifactSigner,
  clientProtocolContext,
  defaultClientProtocolRetention,
  defaultClientRateLimits,
  deriveClientProtocolKeys,
  deviceFingerprintLabel,
  hashDeviceFingerprint,
  signClientArtifact,
  type ClientProtocolContext,
  type ClientProtocolDeps,
  type ClientProtocolKeys,
  type ClientProtocolNotice,
  type ClientProtocolRetention,
  type ClientRateLimits,
} from './client-protocol-deps';
export { clientProtocolBody, clientProtocolRoutes } from './client-protocol-routes';
export {
  checkRequestProof,
  decodeClientRequest,
  readClientIdempotencyKey,
  refusedCredential,
  requestDigest,
  requestProofMessage,
  type ClientRequest,
  type IdempotencyKeyDigest,
} from './client-request';
export { budgetRefusal, clientBudget, spendClientBudget, type RateLimitedClientRoute } from './client-rate-limits';
export { createEntitlementCache, type EntitlementCache, type EntitlementCacheOptions } from './entitlement-cache';
export {
  lockClientIdempotencySlot,
  lookupClientIdempotency,
  purgeClientProtocolRecords,
  spendClientNonce,
  storeClientIdempotency,
  type ClientIdempotencyLookup,
  type ClientIdempotencySlot,
  type IdempotentClientRoute,
} from './client-replay-store';
export { licenseEntitlements, licenseStanding, noTierName, refreshSchedule, versionInScope, wireEntitlements, type LicenseFacts, type LicenseStanding } from './license-standing';
export {
  accountLicenseOfDevice,
  findLicenseIdByKey,
  lockActivationAccount,
  lockActivationLicenses,
  takeSeat,
  type ActivatingDevice,
  type ActivationAccount,
  type ActivationLicense,
  type SeatOutcome,
} from './activation-store';
export { judgeBuild, offlineCredentialRefreshSeconds, signMachineCredential, type BuildVerdict } from './activation-credential';
export { activateDevice, type ActivationInput, type ClientAnswer } from './activation';
export { offlineAnswerValiditySeconds, readOfflineArchive, signOfflineAnswer } from './offline-answer';
export { readSessionMachine, sessionNonceSpent, spendBudgetedSessionNonce, spendSessionNonce, type SessionContact, type SessionMachine, type SessionNonceInput } from './session-store';
export { validateMachine } from './validation';
export { deactivateMachine, heartbeatMachine, minHeartbeatSpacingSeconds, nextHeartbeatAfter } from './session-services';
export { storeTelemetryBlock } from './telemetry-intake';
export { reclaimSilentSeats, seatReclaimActor, type ReclaimedSeat } from './seat-reclaim';
export { reportSuspicion, suspicionOfRefusal, suspiciousRefusal } from './suspicion-notices';
export { createDeviceKeyCache, spendValidationInOneTrip, type DeviceKeyCache } from './validation-one-trip';
