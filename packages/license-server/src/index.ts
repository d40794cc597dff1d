/**
 * `@tollgate/license-server`: the software-licensing service as a ready Express server, and the
 * `tollgate-license` CLI with its key ceremony.
 *
 * @packageDocumentation
 */
export { loadLicenseConfig, licenseDatabaseDir, licenseStateDir, decodeMasterKey, type LicenseConfig } from './config';
export { createLicenseApp, createLicenseListener, type LicenseRouteTables, type LicenseAppOptions } from './app';
export { startLicenseServer, runLicenseFromEnv, type RunningLicenseServer, type LicenseContext, type StartLicenseOptions } from './server';
export { healthRoutes } from './routes/health';
export { keysRoutes } from './routes/keys';
export { revocationRoutes } from './routes/revocations';
export { requireLicenseProtocol, noStoreByDefault } from './routes/client-protocol';
export { createLicenseTrust, type LicenseTrust, type LicenseTrustOptions } from './trust/license-trust';
export { CeremonyError, type CeremonyErrorCode } from './ceremony/ceremony-error';
export { createRootKeyFile, readRootKeyFile, writeOwnerOnlyFile, type RootKey } from './ceremony/key-files';
export {
  createEpochRequest,
  signEpochRequestWithRootFile,
  loadEpochCertificate,
  openLicenseDatabase,
  resolveMasterKey,
  resolvePinnedRoots,
  devKeyPaths,
  type CreateEpochRequestOptions,
} from './ceremony/ceremony';
export { ensureDevTrust, describeDevTrust, type DevTrust } from './ceremony/dev-trust';
export { acquireEmbeddedDatabaseLock, type EmbeddedDatabaseLock } from './ceremony/embedded-lock';
export { runLicenseCli, type CliIo } from './cli/run-cli';
export { auditAnchorRoutes, defaultAuditAnchorLimit, maxAuditAnchorLimit } from './routes/audit-anchors';
export { startAuditAnchorJob, type AuditAnchorJob, type AuditAnchorJobOptions, type AuditAnchorRun } from './jobs/audit-anchor-job';
export { licenseAdminOperations, type LicenseAdminServices } from './admin-operations';
export { startIdempotencyPurgeJob, idempotencyPurgeIntervalMs } from './jobs/idempotency-purge-job';
export { startTrustChangeListener, trustChangeChannel, type TrustChangeListener, type TrustChangeListenerOptions } from './trust/trust-change-listener';
export { createEpochSigner, type EpochSigner, type EpochRetirementCheck } from './trust/epoch-signer';
export { logServerErrors } from './routes/server-error-log';
export { startSuspicionAlertJob, suspicionAlertBackoff, type SuspicionAlertJobOptions } from './jobs/suspicion-alert-job';
export { startAnalyticsRollupJob, runAnalyticsRollup, analyticsDueThrough, analyticsRollupCron, type AnalyticsRollupJobOptions, type AnalyticsRollupRound } from './jobs/analytics-rollup-job';
export { startAnalyticsDeliveryJob, analyticsDeliveryBackoff, analyticsDeliveryMaxAttempts, type AnalyticsDeliveryJobOptions, type AnalyticsDeliveryRound } from './jobs/analytics-delivery-job';
export { parseEpochsConfig, type EpochsConfig } from './config/epochs-config';
export { parseIntegrityConfig, type IntegrityConfig } from './config/integrity-config';
export { parseBillingConfig, type BillingConfig } from './config/billing-config';
export { parseTelemetryConfig, type TelemetryConfig } from './config/telemetry-config';
export { parseAnalyticsConfig, type AnalyticsConfig } from './config/analytics-config';
export { clientNoticeHandler } from './client-notices';
