import { defaultAdminTokenPrefix } from '../admin/admin-token';
import { defaultClientRateLimits, type ClientRateLimits } from '../client-protocol/client-protocol-deps';
import type { DsrBounds } from '../dsr/dsr-bounds';
import type { LicenseHostResolver } from './license-network';
import type { SuspicionAlertJobOptions } from './jobs/suspicion-alert-job';
import type { LicenseAnalyticsConfig, LicenseBillingConfig, LicenseEpochsConfig, LicenseIntegrityConfig, LicenseTelemetryConfig } from './feature-configs';


/**
 * Test overrides of metric subscriptions beyond the shared `alerts` ones (transport, loopback, poll
 * interval, jitter, backoff): the name resolution used at creation and by the default transport.
 */
export interface AnalyticsSubscriptionOverrides {
  readonly resolve?: LicenseHostResolver;
  readonly maxAttempts?: number;
}
/**
 * The feature settings of the license service (`tollgate-license` reads them from its environment with
 * `loadLicenseConfig`; a `LicenseConfig` is accepted as it is). Each one left out takes its value from
 * {@link defaultLicenseServiceOptions}.
 *
 * @example
 * ```ts
 * import { createLicenseService, defaultLicenseServiceOptions, type LicenseServiceOptions } from '@tollgate/core';
 * const options: LicenseServiceOptions = { ...defaultLicenseServiceOptions, trustProxy: 1 };
 * const service = createLicenseService({ sql, clock, masterKey, pinnedRoots, logger, options });
 * ```
 */
export interface LicenseServiceOptions {
  /** How often the keyset is rebuilt from the database, in seconds (30). */
  readonly keysetRefreshSeconds: number;
  /** Prefix of Admin tokens (`tgla_`). */
  readonly adminTokenPrefix: string;
  /** Realm of `WWW-Authenticate: Bearer realm="…"` on Admin 401s (`tollgate-license`). */
  readonly adminRealm: string;
  /** How often the audit heads are signed as anchors, in seconds (300). */
  readonly auditAnchorSeconds: number;
  /** Budgets of activate, validate and offline per client address and per license. */
  readonly clientRateLimits: ClientRateLimits;
  /** How often machines silent past their heartbeat window lose their seat, in seconds (60). */
  readonly seatReclaimSeconds: number;
  /** Proxy hops whose `X-Forwarded-For` is trusted for the client address (0: the socket address). */
  readonly trustProxy: number;
  readonly epochs: LicenseEpochsConfig;
  readonly integrity: LicenseIntegrityConfig;
  readonly billing: LicenseBillingConfig;
  readonly telemetry: LicenseTelemetryConfig;
  readonly analytics: LicenseAnalyticsConfig;
  /** The `version` that `GET /health` reports (default: `@tollgate/core`'s). */
  readonly version?: string;
}

/**
 * The defaults of {@link LicenseServiceOptions}: the values `tollgate-license` runs with when no variable
 * is set.
 *
 * @example
 * ```ts
 * import { defaultLicenseServiceOptions } from '@tollgate/core';
 * const options = { ...defaultLicenseServiceOptions, seatReclaimSeconds: 30 };
 * ```
 */
export const defaultLicenseServiceOptions: LicenseServiceOptions = Object.freeze({
  keysetRefreshSeconds: 30,
  adminTokenPrefix: defaultAdminTokenPrefix,
  adminRealm: 'tollgate-license',
  auditAnchorSeconds: 300,
  clientRateLimits: defaultClientRateLimits,
  seatReclaimSeconds: 60,
  trustProxy: 0,
  epochs: { revokeApprovalSeconds: 3600, globalEpochVendors: undefined },
  integrity: { oidc: undefined },
  billing: { secrets: { stripe: [], paddle: [], lemonsqueezy: [] }, dunningGraceSeconds: 7 * 86_400, worker: true, pollIntervalMs: 5_000, eventRetentionMs: 30 * 86_400_000 },
  telemetry: { rawRetentionDays: 30, purgeIntervalSeconds: 3600, metricsToken: undefined },
  analytics: {
    kAnonymityThreshold: 5,
    rawRetentionDays: 90,
    exportMaxRows: 100_000,
    exportMaxDays: 92,
    queryMaxDays: 400,
    queryMaxSeries: 500,
    jobIntervalMs: 10_000,
    catchUpDays: 90,
  },
});

/**
 * Test overrides of `createLicenseService` (delivery receivers on loopback, fast polls, small bounds, a
 * held keyset). Never set them from configuration.
 *
 * @example
 * ```ts
 * import { createLicenseService } from '@tollgate/core';
 * import type { LicenseServiceOverrides } from '@tollgate/core/license';
 * const overrides: LicenseServiceOverrides = { dsr: { bounds: { maxScanRecords: 10 } } };
 * const service = createLicenseService({ sql, clock, masterKey, pinnedRoots, logger, overrides });
 * ```
 */
export interface LicenseServiceOverrides {
  /** The keyset cache waits for it before its first build (tests observe the cold 503 with it). */
  readonly keysetGate?: Promise<void>;
  /** Suspicion-alert delivery (and, shared, metric-subscription delivery): transport, loopback, poll, jitter, backoff. */
  readonly alerts?: Partial<Pick<SuspicionAlertJobOptions, 'transport' | 'insecureAllowLoopbackForTests' | 'pollIntervalMs' | 'random' | 'backoff'>>;
  /** Metric subscriptions: the name resolution and the attempt budget. */
  readonly analyticsSubscriptions?: AnalyticsSubscriptionOverrides;
  /** Data-subject requests: smaller bounds, reachable with a handful of rows. */
  readonly dsr?: { readonly bounds?: Partial<DsrBounds> };
}
