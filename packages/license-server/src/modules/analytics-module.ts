import { analyticsOperations, deriveAnalyticsKeys } from '@tollgate/core';
import { startAnalyticsRollupJob } from '../jobs/analytics-rollup-job';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * The analytics feature of the license server: the Admin operations `GET /analytics/definitions`,
 * `/analytics/metrics` and `/analytics/export` (scope `analytics:r`), and the analytics job (outbox
 * drain, the daily rollup due at 00:15 UTC with catch-up of missed days, raw-event retention).
 *
 * @param context - Database, audit, trust, clock, master key, logger, config.
 * @returns The module's operations and its job (stopped by `close()`).
 * @example
 * ```ts
 * const analytics = analyticsModule(context);
 * await analytics.close?.();
 * ```
 */
export function analyticsModule(context: LicenseModuleContext): LicenseModule {
  const config = context.config.analytics;
  const job = startAnalyticsRollupJob({ sql: context.sql, keys: deriveAnalyticsKeys(context.masterKey), clock: context.clock, logger: context.logger, config });
  return {
    adminOperations: analyticsOperations({
      kAnonymityThreshold: config.kAnonymityThreshold,
      metricLimits: { maxDays: config.queryMaxDays, maxSeries: config.queryMaxSeries },
      exportLimits: { maxRows: config.exportMaxRows, maxDays: config.exportMaxDays },
    }),
    close: () => job.close(),
  };
}
