export { adminArtifactSigner, announceRevocationAfterCommit, publishAdminRevocation, type AdminRevocationDeps } from './admin-revocation';
export { alreadyRevoked, refuseRevokedLicense, requireLicense } from './license-access';
export { licensePreviewFallbackOperation } from './license-fallback-operation';
export { licenseRevokeOperation } from './license-revoke-operation';
export { offlineKeyKind, offlineKeyOperation, signOfflineKey } from './offline-key-operation';
export { licenseOperations, maxLicenseMachinesListed, type LicenseOperationsDeps } from './license-operations';
