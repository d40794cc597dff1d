/**
 * `@tollgate/license-server`: the software-licensing service as a ready Express server, and the
 * `tollgate-license` CLI with its key ceremony.
 *
 * @packageDocumentation
 */
export { loadLicenseConfig, licenseServiceOptions, licenseDatabaseDir, licenseStateDir, decodeMasterKey, type LicenseConfig } from './config';
export { createLicenseApp, createLicenseListener, type LicenseRouteTables, type LicenseAppOptions } from './app';
export { startLicenseServer, runLicenseFromEnv, type RunningLicenseServer, type LicenseContext, type StartLicenseOptions } from './server';
export {
  keysRoutes,
  revocationRoutes,
  requireLicenseProtocol,
  noStoreByDefault,
  auditAnchorRoutes,
  defaultAuditAnchorLimit,
  maxAuditAnchorLimit,
  licenseAdminOperations,
  startIdempotencyPurgeJob,
  idempotencyPurgeIntervalMs,
  logServerErrors,
  suspicionAlertBackoff,
  startAnalyticsRollupJob,
  runAnalyticsRollup,
  analyticsDueThrough,
  analyticsRollupCron,
  analyticsDeliveryBackoff,
  analyticsDeliveryMaxAttempts,
  clientNoticeHandler,
  type LicenseTrust,
  type LicenseTrustOptions,
  type LicenseAdminServices,
  type AuditAnchorJob,
  type AuditAnchorJobOptions,
  type AuditAnchorRun,
  type EpochSigner,
  type EpochRetirementCheck,
  type SuspicionAlertJobOptions,
  type AnalyticsRollupJobOptions,
  type AnalyticsRollupRound,
  type AnalyticsDeliveryJobOptions,
  type AnalyticsDeliveryRound,
} from '@tollgate/core/license';
export { startTrustChangeListener, trustChangeChannel, type TrustChangeListener, type TrustChangeListenerOptions } from '@tollgate/core/node';
export { healthRoutes, createLicenseTrust, createEpochSigner, startAuditAnchorJob, startSuspicionAlertJob, startAnalyticsDeliveryJob } from './node-defaults';
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
export { parseEpochsConfig, type EpochsConfig } from './config/epochs-config';
export { parseIntegrityConfig, type IntegrityConfig } from './config/integrity-config';
export { parseBillingConfig, type BillingConfig } from './config/billing-config';
export { parseTelemetryConfig, type TelemetryConfig } from './config/telemetry-config';
export { parseAnalyticsConfig, type AnalyticsConfig } from './config/analytics-config';
