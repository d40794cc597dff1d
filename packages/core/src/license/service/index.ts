export { createLicenseService, type LicenseService, type LicenseServiceDeps, type LicenseServiceRoutes } from './license-service';
export { defaultLicenseServiceOptions, type LicenseServiceOptions, type LicenseServiceOverrides } from './service-options';
export type { LicenseAnalyticsConfig, LicenseBillingConfig, LicenseEpochsConfig, LicenseIntegrityConfig, LicenseTelemetryConfig } from './feature-configs';
export type { LicenseLogger, LicenseLogSink } from './logger';
export { nobleLicenseCrypto, type LicenseCrypto } from './license-crypto';
export type { LicenseNetwork, LicenseHostResolver } from './license-network';
export type { LicenseChangeFeed, LicenseChangeFeedOptions } from './license-change-feed';
export type { LicenseWorkers } from './license-workers';
export { licenseFetchHandler, type LicenseServiceTables } from './license-fetch';
export type { MountedTable } from './modules/license-module';
export type { AnalyticsSubscriptionOverrides } from './modules/analytics-subscriptions-module';
export type { DsrStartOptions } from './modules/dsr-module';
export { createLicenseTrust, type LicenseTrust, type LicenseTrustOptions } from './trust/license-trust';
export { createEpochSigner, type EpochSigner, type EpochRetirementCheck } from './trust/epoch-signer';
export { licenseClientTable } from './routes/client-table';
export { healthRoutes, sqlHealthProbe, type LicenseHealthProbe } from './routes/health';
export { keysRoutes } from './routes/keys';
export { revocationRoutes } from './routes/revocations';
export { requireLicenseProtocol, noStoreByDefault } from './routes/client-protocol';
export { auditAnchorRoutes, defaultAuditAnchorLimit, maxAuditAnchorLimit } from './routes/audit-anchors';
export { withAdminOpenApi, adminOpenApiMaxAgeSeconds } from './routes/admin-openapi';
export { logServerErrors } from './routes/server-error-log';
export { licenseAdminOperations, type LicenseAdminServices } from './admin-operations';
export { clientNoticeHandler } from './client-notices';
export { startPeriodicJob, type PeriodicJob } from './jobs/periodic-job';
export { startAuditAnchorJob, type AuditAnchorJob, type AuditAnchorJobOptions, type AuditAnchorRun } from './jobs/audit-anchor-job';
export { startIdempotencyPurgeJob, idempotencyPurgeIntervalMs } from './jobs/idempotency-purge-job';
export { startClientProtocolPurgeJob, clientProtocolPurgeIntervalMs, type ClientProtocolPurgeJobOptions } from './jobs/client-protocol-purge-job';
export { startSeatReclaimJob, type SeatReclaimJob, type SeatReclaimJobOptions } from './jobs/seat-reclaim-job';
export { startSuspicionAlertJob, suspicionAlertBackoff, type SuspicionAlertJobOptions } from './jobs/suspicion-alert-job';
export { startBillingEventJob, type BillingEventJob, type BillingEventJobOptions } from './jobs/billing-event-job';
export {
  startAnalyticsRollupJob,
  runAnalyticsRollup,
  analyticsDueThrough,
  analyticsRollupCron,
  type AnalyticsRollupJobOptions,
  type AnalyticsRollupRound,
} from './jobs/analytics-rollup-job';
export {
  startAnalyticsDeliveryJob,
  analyticsDeliveryBackoff,
  analyticsDeliveryMaxAttempts,
  type AnalyticsDeliveryJob,
  type AnalyticsDeliveryJobOptions,
  type AnalyticsDeliveryRound,
} from './jobs/analytics-delivery-job';
