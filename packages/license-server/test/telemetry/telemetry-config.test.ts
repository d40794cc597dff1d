/** `parseTelemetryConfig`: defaults, bounds, and a malformed metrics token reported without echoing it. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { parseTelemetryConfig } from '../../src/config/telemetry-config';

describe('parseTelemetryConfig', () => {
  it('defaults to 30 days of raw retention, an hourly purge and no metrics route', () => {
    expect(parseTelemetryConfig({})).toEqual({ rawRetentionDays: 30, purgeIntervalSeconds: 3600, metricsToken: undefined });
    expect(parseTelemetryConfig({ TELEMETRY_RAW_RETENTION_DAYS: '7', TELEMETRY_PURGE_INTERVAL_SECONDS: '60', LICENSE_METRICS_TOKEN: 'x'.repeat(32) })).toEqual({
      rawRetentionDays: 7,
      purgeIntervalSeconds: 60,
      metricsToken: 'x'.repeat(32),
    });
  });

  it('reports every bad variable at once, never printing the token', () => {
    const secret = 'short token with spaces';
    let error: unknown;
    try {
      parseTelemetryConfig({ TELEMETRY_RAW_RETENTION_DAYS: '0', TELEMETRY_PURGE_INTERVAL_SECONDS: '59', LICENSE_METRICS_TOKEN: secret });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => problem.variable)).toEqual(['TELEMETRY_RAW_RETENTION_DAYS', 'TELEMETRY_PURGE_INTERVAL_SECONDS', 'LICENSE_METRICS_TOKEN']);
    expect((error as ConfigError).message).not.toContain(secret);
  });
});
