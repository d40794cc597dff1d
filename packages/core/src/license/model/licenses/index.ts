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
