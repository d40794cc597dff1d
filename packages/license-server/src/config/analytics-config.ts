import { envInteger, parseEnv, type EnvRecord } from '@tollgate/core/config';
import type { LicenseAnalyticsConfig } from '@tollgate/core/license';

/** Settings of the analytics feature (the type lives in core: `LicenseAnalyticsConfig`). */
export type AnalyticsConfig = LicenseAnalyticsConfig;

/**
 * Reads the analytics settings; throws `ConfigError` with every problem found.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `ANALYTICS_K_ANONYMITY` | 5 | smallest number of distinct devices a shown bucket stands for |
 * | `ANALYTICS_RAW_RETENTION_DAYS` | 90 | days raw detail events are kept |
 * | `ANALYTICS_EXPORT_MAX_ROWS` | 100000 | rows per export response |
 * | `ANALYTICS_EXPORT_MAX_DAYS` | 92 | widest export range |
 * | `ANALYTICS_QUERY_MAX_DAYS` | 400 | widest metric query range |
 * | `ANALYTICS_QUERY_MAX_SERIES` | 500 | series per metric in one answer |
 * | `ANALYTICS_JOB_INTERVAL_MS` | 10000 | outbox drain and rollup check interval |
 * | `ANALYTICS_CATCH_UP_DAYS` | 90 | how many missed days the job rolls up at most |
 *
 * @param env - The process environment.
 * @returns The settings.
 * @example
 * ```ts
 * import { parseAnalyticsConfig } from './config/analytics-config';
 * const { kAnonymityThreshold } = parseAnalyticsConfig(process.env); // 5
 * ```
 */
export function parseAnalyticsConfig(env: EnvRecord): AnalyticsConfig {
  const parsed = parseEnv(env, {
    ANALYTICS_K_ANONYMITY: envInteger({ min: 2, max: 1000, default: 5 }),
    ANALYTICS_RAW_RETENTION_DAYS: envInteger({ min: 1, max: 3650, default: 90 }),
    ANALYTICS_EXPORT_MAX_ROWS: envInteger({ min: 1, max: 1_000_000, default: 100_000 }),
    ANALYTICS_EXPORT_MAX_DAYS: envInteger({ min: 1, max: 3650, default: 92 }),
    ANALYTICS_QUERY_MAX_DAYS: envInteger({ min: 1, max: 3650, default: 400 }),
    ANALYTICS_QUERY_MAX_SERIES: envInteger({ min: 1, max: 10_000, default: 500 }),
    ANALYTICS_JOB_INTERVAL_MS: envInteger({ min: 50, max: 3_600_000, default: 10_000 }),
    ANALYTICS_CATCH_UP_DAYS: envInteger({ min: 1, max: 3650, default: 90 }),
  });
  return {
    kAnonymityThreshold: parsed.ANALYTICS_K_ANONYMITY,
    rawRetentionDays: parsed.ANALYTICS_RAW_RETENTION_DAYS,
    exportMaxRows: parsed.ANALYTICS_EXPORT_MAX_ROWS,
    exportMaxDays: parsed.ANALYTICS_EXPORT_MAX_DAYS,
    queryMaxDays: parsed.ANALYTICS_QUERY_MAX_DAYS,
    queryMaxSeries: parsed.ANALYTICS_QUERY_MAX_SERIES,
    jobIntervalMs: parsed.ANALYTICS_JOB_INTERVAL_MS,
    catchUpDays: parsed.ANALYTICS_CATCH_UP_DAYS,
  };
}
