import type { WebhookProvider } from '../billing/webhook-signature';
import type { CiOidcSettings } from '../integrity/ci-oidc';

/**
 * Settings of the analytics feature read from the environment.
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const analytics = defaultLicenseServiceOptions.analytics;
 * ```
 */
export interface LicenseAnalyticsConfig {
  /** `ANALYTICS_K_ANONYMITY` (2 to 1000, default 5): buckets behind fewer distinct devices are suppressed. */
  readonly kAnonymityThreshold: number;
  /** `ANALYTICS_RAW_RETENTION_DAYS` (1 to 3650, default 90): raw detail events older than this are purged (spec "Limits"). */
  readonly rawRetentionDays: number;
  /** `ANALYTICS_EXPORT_MAX_ROWS` (1 to 1,000,000, default 100,000): rows one export response carries at most. */
  readonly exportMaxRows: number;
  /** `ANALYTICS_EXPORT_MAX_DAYS` (1 to 3650, default 92): widest export range in days. */
  readonly exportMaxDays: number;
  /** `ANALYTICS_QUERY_MAX_DAYS` (1 to 3650, default 400): widest metric query range in days. */
  readonly queryMaxDays: number;
  /** `ANALYTICS_QUERY_MAX_SERIES` (1 to 10,000, default 500): most series one metric answers. */
  readonly queryMaxSeries: number;
  /**
   * `ANALYTICS_JOB_INTERVAL_MS` (50 to 3,600,000, default 10,000): how often an instance moves new events
   * out of the outbox and checks whether a day is due for its rollup (due at 00:15 UTC for the day before).
   */
  readonly jobIntervalMs: number;
  /** `ANALYTICS_CATCH_UP_DAYS` (1 to 3650, default 90): how far back a first start (or a long outage) rolls up missed days. */
  readonly catchUpDays: number;
}

/**
 * Settings of the billing webhooks read from the environment.
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const billing = defaultLicenseServiceOptions.billing;
 * ```
 */
export interface LicenseBillingConfig {
  /**
   * Signing secrets per provider (`BILLING_STRIPE_SECRETS`, `BILLING_PADDLE_SECRETS`,
   * `BILLING_LEMONSQUEEZY_SECRETS`, comma-separated): any of them verifies, so a secret is rolled by
   * adding the new one, switching the provider over, then removing the old. A provider with none
   * answers 503 `service_unavailable`.
   */
  readonly secrets: Readonly<Record<WebhookProvider, readonly string[]>>;
  /** `BILLING_DUNNING_GRACE_DAYS` (default 7): access after a failed renewal, and past the paid period while renewals arrive. */
  readonly dunningGraceSeconds: number;
  /** `BILLING_WORKER` (default true): false makes this instance only accept events (another instance applies them). */
  readonly worker: boolean;
  /** `BILLING_POLL_SECONDS` (default 5): how often the worker looks for due events when nothing woke it. */
  readonly pollIntervalMs: number;
  /**
   * `BILLING_EVENT_RETENTION_DAYS` (default 30, at least 7 so the dedupe outlives the providers' ~3-day
   * retries): processed events older than this are deleted.
   */
  readonly eventRetentionMs: number;
}

/**
 * Settings of epoch administration (`/v1/admin/epochs`).
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const epochs = defaultLicenseServiceOptions.epochs;
 * ```
 */
export interface LicenseEpochsConfig {
  /**
   * `LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS` (default 3600, 60 to 604,800): how long the first confirmation
   * of an epoch revocation waits for a second Admin token to confirm it. Past it the approval has expired
   * and the next confirmation opens a new one.
   */
  readonly revokeApprovalSeconds: number;
  /**
   * `LICENSE_EPOCH_ADMIN_VENDORS`: vendor ids (comma-separated) whose Admin tokens administer **global**
   * epochs (the ones that sign every product and the revocation feed). Unset: every vendor while the
   * server hosts exactly one, none once it hosts several. Product-scoped epochs always belong to the
   * vendor of their product.
   */
  readonly globalEpochVendors: readonly string[] | undefined;
}

/**
 * Settings of integrity signing (`/v1/admin/integrity`).
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const integrity = defaultLicenseServiceOptions.integrity;
 * ```
 */
export interface LicenseIntegrityConfig {
  /**
   * CI OIDC on `POST /v1/admin/integrity/sign`, or `undefined` when `INTEGRITY_OIDC_ISSUER` is unset (then
   * only Admin tokens with `sign:manifest` sign).
   */
  readonly oidc: CiOidcSettings | undefined;
}

/**
 * Settings of the telemetry feature read from the environment.
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const telemetry = defaultLicenseServiceOptions.telemetry;
 * ```
 */
export interface LicenseTelemetryConfig {
  /** `TELEMETRY_RAW_RETENTION_DAYS` (1 to 3650, default 30): raw T1 rows older than this are purged. */
  readonly rawRetentionDays: number;
  /** `TELEMETRY_PURGE_INTERVAL_SECONDS` (60 to 86,400, default 3600): how often retention is enforced. */
  readonly purgeIntervalSeconds: number;
  /**
   * `LICENSE_METRICS_TOKEN` (32 to 256 printable ASCII characters, no spaces): the bearer token of
   * `GET /metrics`. Unset: the route does not exist (404).
   */
  readonly metricsToken: string | undefined;
}
