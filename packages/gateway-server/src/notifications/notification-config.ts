import { ConfigError } from '@tollgate/core';
import { envBoolean, envInteger, parseEnv, type EnvRecord } from '@tollgate/core/config';
import { defaultNotificationDeliverySettings } from '@tollgate/core/gateway';

/** How the gateway delivers merchant notifications (read by {@link notificationConfigFromEnv}). */
export interface NotificationConfig {
  /** Whether this instance runs the delivery worker. Every instance may: jobs are claimed once. */
  enabled: boolean;
  /** Deadline of one delivery attempt (DNS, connect, send, answer), in ms. */
  timeoutMs: number;
  /** Deadline for resolving the receiver and connecting (TCP and TLS), in ms. */
  connectTimeoutMs: number;
  /** Deliveries in flight at once on this instance. */
  concurrency: number;
  /** Pause after finding no due notification, in ms. */
  pollIntervalMs: number;
  /** Retry delays: full jitter under `min(maxMs, baseMs × 2^(attempt − 1))`. */
  backoff: { baseMs: number; maxMs: number };
}

/**
 * Defaults of {@link notificationConfigFromEnv}: 10 s per attempt, 5 s to connect, 4 in flight, retries
 * under a 30 s × 2^(n−1) ceiling capped at 6 h (12 attempts span up to about 14.5 h).
 *
 * @example
 * ```ts
 * import { defaultNotificationConfig } from '@tollgate/gateway-server';
 * defaultNotificationConfig.backoff; // { baseMs: 30000, maxMs: 21600000 }
 * ```
 */
export const defaultNotificationConfig: Readonly<NotificationConfig> = Object.freeze({
  enabled: true,
  connectTimeoutMs: 5_000,
  ...defaultNotificationDeliverySettings,
});

/**
 * Reads the notification delivery settings. Every invalid variable is reported at once (`ConfigError`).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `GATEWAY_NOTIFY_ENABLED` | true | run the delivery worker on this instance |
 * | `GATEWAY_NOTIFY_TIMEOUT_MS` | 10000 | deadline of one attempt (1000–60000) |
 * | `GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS` | 5000 | DNS + TCP + TLS deadline (100–30000) |
 * | `GATEWAY_NOTIFY_CONCURRENCY` | 4 | deliveries in flight per instance (1–64) |
 * | `GATEWAY_NOTIFY_POLL_INTERVAL_MS` | 1000 | idle poll interval (50–60000) |
 * | `GATEWAY_NOTIFY_BACKOFF_BASE_MS` | 30000 | ceiling of the first retry delay (100–3600000) |
 * | `GATEWAY_NOTIFY_BACKOFF_MAX_MS` | 21600000 | ceiling of any retry delay (1000–86400000, ≥ base) |
 *
 * @param env - Environment variables (`process.env`).
 * @returns The settings.
 * @throws ConfigError naming every invalid variable.
 * @example
 * ```ts
 * import { notificationConfigFromEnv, startNotificationWorker } from '@tollgate/gateway-server';
 * const notify = notificationConfigFromEnv(process.env);
 * const worker = notify.enabled ? startNotificationWorker({ sql, stores, keys, clock, logger, ...notify }) : undefined;
 * ```
 */
export function notificationConfigFromEnv(env: EnvRecord): NotificationConfig {
  const defaults = defaultNotificationConfig;
  const parsed = parseEnv(env, {
    GATEWAY_NOTIFY_ENABLED: envBoolean({ default: defaults.enabled }),
    GATEWAY_NOTIFY_TIMEOUT_MS: envInteger({ min: 1_000, max: 60_000, default: defaults.timeoutMs }),
    GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS: envInteger({ min: 100, max: 30_000, default: defaults.connectTimeoutMs }),
    GATEWAY_NOTIFY_CONCURRENCY: envInteger({ min: 1, max: 64, default: defaults.concurrency }),
    GATEWAY_NOTIFY_POLL_INTERVAL_MS: envInteger({ min: 50, max: 60_000, default: defaults.pollIntervalMs }),
    GATEWAY_NOTIFY_BACKOFF_BASE_MS: envInteger({ min: 100, max: 3_600_000, default: defaults.backoff.baseMs }),
    GATEWAY_NOTIFY_BACKOFF_MAX_MS: envInteger({ min: 1_000, max: 86_400_000, default: defaults.backoff.maxMs }),
  });
  if (parsed.GATEWAY_NOTIFY_BACKOFF_MAX_MS < parsed.GATEWAY_NOTIFY_BACKOFF_BASE_MS) {
    throw new ConfigError([
      {
        variable: 'GATEWAY_NOTIFY_BACKOFF_MAX_MS',
        expected: `at least GATEWAY_NOTIFY_BACKOFF_BASE_MS (${parsed.GATEWAY_NOTIFY_BACKOFF_BASE_MS})`,
        received: String(parsed.GATEWAY_NOTIFY_BACKOFF_MAX_MS),
      },
    ]);
  }
  return {
    enabled: parsed.GATEWAY_NOTIFY_ENABLED,
    timeoutMs: parsed.GATEWAY_NOTIFY_TIMEOUT_MS,
    connectTimeoutMs: parsed.GATEWAY_NOTIFY_CONNECT_TIMEOUT_MS,
    concurrency: parsed.GATEWAY_NOTIFY_CONCURRENCY,
    pollIntervalMs: parsed.GATEWAY_NOTIFY_POLL_INTERVAL_MS,
    backoff: { baseMs: parsed.GATEWAY_NOTIFY_BACKOFF_BASE_MS, maxMs: parsed.GATEWAY_NOTIFY_BACKOFF_MAX_MS },
  };
}
