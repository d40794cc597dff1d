import { envInteger, parseEnv, type EnvRecord } from '@tollgate/core';

/** Settings of the analytics feature read from the environment. */
export interface AnalyticsConfig {
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
