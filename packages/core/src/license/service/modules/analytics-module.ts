import { analyticsOperations } from '../../analytics/analytics-operations';
import { deriveAnalyticsKeys } from '../../analytics/analytics-keys';
import { startAnalyticsRollupJob } from '../jobs/analytics-rollup-job';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * The analytics feature of the license server: the Admin operations `GET /analytics/definitions`,
 * `/analytics/metrics` and `/analytics/export` (scope `analytics:r`), and the analytics job (outbox
 * drain, the daily rollup due at 00:15 UTC with catch-up of missed days, raw-event retention).
 *
 * @param context - Database, audit, trust, clock, master key, logger, config.
 * @returns The module's operations and its job (started by `workers.start()`).
 * @example
 * ```ts
 * const analytics = analyticsModule(context);
 * const job = analytics.workers?.[0]?.start();
 * ```
 */
export function analyticsModule(context: LicenseModuleContext): LicenseModule {
  const config = context.options.analytics;
  return {
    adminOperations: analyticsOperations({
      kAnonymityThreshold: config.kAnonymityThreshold,
      metricLimits: { maxDays: config.queryMaxDays, maxSeries: config.queryMaxSeries },
      exportLimits: { maxRows: config.exportMaxRows, maxDays: config.exportMaxDays },
    }),
    workers: [{ start: () => startAnalyticsRollupJob({ sql: context.sql, keys: deriveAnalyticsKeys(context.masterKey), clock: context.clock, logger: context.logger, config }) }],
  };
}
