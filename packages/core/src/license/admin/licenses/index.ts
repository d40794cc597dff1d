export { generateLicenseKey, hashLicenseKey, licenseKeyFormat, licenseKeyHint, normalizeLicenseKey } from './license-key';
export { policyTerms, readLicensePolicy, type LicensePolicy, type PolicyTerms } from './license-policy';
export {
  effectiveLicenseStatus,
  licenseView,
  type EffectiveLicenseStatus,
  type EntitlementOverrides,
  type LicenseRecord,
  type LicenseStatus,
  type NewLicense,
  type VersionScope,
} from './license-record';
export {
  createSqlLicenseStore,
  type LicenseChanges,
  type LicenseListQuery,
  type LicenseLockOutcome,
  type LicenseStore,
  type LicenseUpdateOutcome,
} from './license-store';
export { createSqlSubscriptionStore, type BillingProvider, type SubscriptionRecord, type SubscriptionStatus, type SubscriptionStore } from './subscription-store';
export {
  entitlementOverridesSchema,
  issueLicensesSchema,
  licenseLimits,
  licenseMetadataSchema,
  patchLicenseSchema,
  revokeBodySchema,
  versionScopeSchema,
} from './license-schemas';
export { adminArtifactSigner, announceRevocationAfterCommit, publishAdminRevocation, type AdminRevocationDeps } from './admin-revocation';
export { alreadyRevoked, refuseRevokedLicense, requireLicense } from './license-access';
export { licensePreviewFallbackOperation } from './license-fallback-operation';
export { licenseRevokeOperation } from './license-revoke-operation';
export { offlineKeyKind, offlineKeyOperation, signOfflineKey } from './offline-key-operation';
export { licenseOperations, maxLicenseMachinesListed, type LicenseOperationsDeps } from './license-operations';
