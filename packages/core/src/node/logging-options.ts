import { redactedLogPaths } from './logging';

/** Options of {@link serverLoggerOptions}. */
export interface ServerLoggerSettings {
  /** Service name written on every line (`tollgate-gateway`, `tollgate-license`). */
  service: string;
  /** pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
  level: string;
}

/**
 * pino options every Tollgate server uses: the service name on each line, ISO timestamps, and the
 * secret-bearing headers redacted wherever a request object is logged.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * import { serverLoggerOptions } from '@tollgate/core/node';
 * const logger = pino(serverLoggerOptions({ service: 'tollgate-gateway', level: 'info' }));
 * ```
 */
export function serverLoggerOptions(settings: ServerLoggerSettings) {
  return {
    level: settings.level,
    base: { service: settings.service },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: { paths: [...redactedLogPaths], censor: '[redacted]' },
  };
}
