import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { thrownBy } from '../../../core/test/support/thrown';
import { defaultNotificationConfig, notificationConfigFromEnv } from '../../src/notifications/index';

const configError = (env: Record<string, string>) => thrownBy(ConfigError, () => notificationConfigFromEnv(env));

describe('notificationConfigFromEnv', () => {
  it('uses the defaults when nothing is set', () => {
    expect(notificationConfigFromEnv({})).toEqual({
      enabled: true,
      timeoutMs: 10_000,
      connectTimeoutMs: 5_000,
      concurrency: 4,
      pollIntervalMs: 1_000,
      backoff: { baseMs: 30_000, maxMs: 21_600_000 },
    });
    expect(notificationConfigFromEnv({})).toEqual(defaultNotificationConfig);
  });

  it('reads every variable', () => {
    expect(
      notificationConfigFromEnv({
        GATEWAY_NOTIFY_ENABLED: 'false',
        GATEWAY_NOTIFY_TIMEOUT_MS: '2500',
        GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS: '800',
        GATEWAY_NOTIFY_CONCURRENCY: '16',
        GATEWAY_NOTIFY_POLL_INTERVAL_MS: '250',
        GATEWAY_NOTIFY_BACKOFF_BASE_MS: '1000',
        GATEWAY_NOTIFY_BACKOFF_MAX_MS: '60000',
      }),
    ).toEqual({ enabled: false, timeoutMs: 2_500, connectTimeoutMs: 800, concurrency: 16, pollIntervalMs: 250, backoff: { baseMs: 1_000, maxMs: 60_000 } });
  });

  it('names every invalid variable at once', () => {
    const error = configError({
      GATEWAY_NOTIFY_ENABLED: 'maybe',
      GATEWAY_NOTIFY_TIMEOUT_MS: '999',
      GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS: 'fast',
      GATEWAY_NOTIFY_CONCURRENCY: '0',
      GATEWAY_NOTIFY_POLL_INTERVAL_MS: '10',
      GATEWAY_NOTIFY_BACKOFF_BASE_MS: '-5',
      GATEWAY_NOTIFY_BACKOFF_MAX_MS: '86400001',
    });
    expect(error.problems.map((problem) => problem.variable)).toEqual([
      'GATEWAY_NOTIFY_ENABLED',
      'GATEWAY_NOTIFY_TIMEOUT_MS',
      'GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS',
      'GATEWAY_NOTIFY_CONCURRENCY',
      'GATEWAY_NOTIFY_POLL_INTERVAL_MS',
      'GATEWAY_NOTIFY_BACKOFF_BASE_MS',
      'GATEWAY_NOTIFY_BACKOFF_MAX_MS',
    ]);
  });

  it('refuses a backoff cap below its base', () => {
    const error = configError({ GATEWAY_NOTIFY_BACKOFF_BASE_MS: '60000', GATEWAY_NOTIFY_BACKOFF_MAX_MS: '30000' });
    expect(error.problems).toEqual([{ variable: 'GATEWAY_NOTIFY_BACKOFF_MAX_MS', expected: 'at least GATEWAY_NOTIFY_BACKOFF_BASE_MS (60000)', received: '30000' }]);
  });
});
