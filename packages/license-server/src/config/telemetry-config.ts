import { ConfigError } from '@tollgate/core';
import { envInteger, parseEnv, type EnvRecord } from '@tollgate/core/config';
import type { LicenseTelemetryConfig } from '@tollgate/core/license';

/** Settings of the telemetry feature (the type lives in core: `LicenseTelemetryConfig`). */
export type TelemetryConfig = LicenseTelemetryConfig;

/**
 * Reads the telemetry settings; throws `ConfigError` with every problem found.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `TELEMETRY_RAW_RETENTION_DAYS` | 30 | days raw T1 telemetry is kept (spec "Limits") |
 * | `TELEMETRY_PURGE_INTERVAL_SECONDS` | 3600 | how often every instance deletes rows past retention |
 * | `LICENSE_METRICS_TOKEN` | unset | bearer token of `GET /metrics` (Prometheus); unset = no route |
 *
 * @param env - The process environment.
 * @returns The settings.
 * @example
 * ```ts
 * import { parseTelemetryConfig } from './config/telemetry-config';
 * const { rawRetentionDays } = parseTelemetryConfig(process.env); // 30
 * ```
 */
export function parseTelemetryConfig(env: EnvRecord): TelemetryConfig {
  const problems: ConfigError['problems'] = [];
  let parsed: { TELEMETRY_RAW_RETENTION_DAYS: number; TELEMETRY_PURGE_INTERVAL_SECONDS: number } | undefined;
  try {
    parsed = parseEnv(env, {
      TELEMETRY_RAW_RETENTION_DAYS: envInteger({ min: 1, max: 3650, default: 30 }),
      TELEMETRY_PURGE_INTERVAL_SECONDS: envInteger({ min: 60, max: 86_400, default: 3600 }),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  // Read by hand so a malformed token is never echoed in the error. A guessable token would expose the
  // operator's numbers: at least 32 characters (e.g. `openssl rand -hex 32`).
  const token = env['LICENSE_METRICS_TOKEN'] === '' ? undefined : env['LICENSE_METRICS_TOKEN'];
  if (token !== undefined && !/^[\x21-\x7e]{32,256}$/.test(token)) {
    problems.push({ variable: 'LICENSE_METRICS_TOKEN', expected: '32 to 256 printable ASCII characters without spaces', received: '<redacted>' });
  }
  if (parsed === undefined || problems.length > 0) throw new ConfigError(problems);
  return { rawRetentionDays: parsed.TELEMETRY_RAW_RETENTION_DAYS, purgeIntervalSeconds: parsed.TELEMETRY_PURGE_INTERVAL_SECONDS, metricsToken: token };
}
