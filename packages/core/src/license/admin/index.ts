export { adminScopes, isAdminScope, scopeSatisfied, type AdminScope } from './scopes';
export { deriveLicenseAdminKeys, deriveLicenseSubkey, licenseAdminKeyLabels, licenseSubkeyLabels, licenseSubkeySalt, type LicenseAdminKeys } from './admin-keys';
export {
  adminTokenHash,
  adminTokenLength,
  adminTokenSecretLength,
  assertAdminTokenPrefix,
  defaultAdminTokenPrefix,
  isWellFormedAdminToken,
  mintAdminToken,
} from './admin-token';
export { createSqlAdminTokenStore, type AdminTokenLookup, type AdminTokenRecord, type AdminTokenStore, type NewAdminToken } from './admin-token-store';
export { createSqlVendorStore, type AlertWebhookConfig, type ProductRecord, type VendorRecord, type VendorStore } from './vendor-store';
export {
  createSqlIdempotencyJournal,
  defaultIdempotencyRetentionMs,
  type IdempotencyJournal,
  type JournaledAnswer,
  type JournaledRequest,
  type JournalLookup,
  type JournalOutcome,
} from './idempotency-journal';
export {
  adminBodyLimit,
  adminOperation,
  adminRevokeBodyLimit,
  type AdminActor,
  type AdminCall,
  type AdminOperation,
  type AdminOperationKind,
  type AdminResult,
  type RouteParams,
  type AdminAlternativeAuth,
  type AdminJsonResult,
  type AdminBytesResult,
  type AdminStreamResult,
} from './admin-operation';
export { adminJsonMaxDepth, adminPageSize, adminPathId, assertAdminJson, requireVendorProduct, encodeAdminCursor, pageOf, parseAdminInput, parseAdminPage, type AdminCursorPosition, type AdminPage } from './admin-input';
export { adminPathPrefix, createAdminRouteTable, type AdminRouteTableDeps } from './admin-route-table';
export { productOperations } from './product-operations';
export { createLicenseAdminApi, type LicenseAdminApi, type LicenseAdminApiOptions } from './admin-api';
export type { AuditEvent, AuditEventInput, AuditLog, AuditVerification } from './audit/audit-log';
export {
  bootstrapVendor,
  createAdminToken,
  createProduct,
  listAdminTokens,
  revokeAdminToken,
  type AdminProvisioningContext,
  type BootstrappedVendor,
  type CreateAdminTokenOptions,
  type MintedAdminToken,
  type RevokedAdminToken,
} from './admin-provisioning';
export * from './accounts';
export { auditOperations, maxAuditVerifyEvents } from './audit/audit-operations';
export * from './catalog';
export * from './policies';
export * from './licenses';
export * from './machines';
export * from './openapi';
