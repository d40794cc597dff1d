import { envEnum, envInteger, envString, envUrl, parseEnv, type EnvRecord } from '@tollgate/core';
import { join } from 'node:path';

/** Everything the gateway server reads from its environment. */
export interface GatewayConfig {
  port: number;
  host: string;
  /** PostgreSQL server; absent means embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  /** Root of local state (`.tollgate` by default): the embedded database and generated dev keys. */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/**
 * Reads the gateway configuration from environment variables. Every invalid variable is reported at once
 * with what it expected (`ConfigError`).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `GATEWAY_PORT` | 4020 | listening port (0 = any free port) |
 * | `GATEWAY_HOST` | 127.0.0.1 | listening address |
 * | `GATEWAY_DATABASE_URL` or `DATABASE_URL` | – | PostgreSQL server; embedded PGlite when unset |
 * | `TOLLGATE_DATA_DIR` | `.tollgate` | local state directory |
 * | `LOG_LEVEL` | info | pino level |
 *
 * @example
 * ```ts
 * import { loadGatewayConfig } from '@tollgate/gateway-server';
 * const config = loadGatewayConfig(process.env);
 * ```
 */
export function loadGatewayConfig(env: EnvRecord): GatewayConfig {
  const parsed = parseEnv(env, {
    GATEWAY_PORT: envInteger({ min: 0, max: 65535, default: 4020 }),
    GATEWAY_HOST: envString({ default: '127.0.0.1' }),
    GATEWAY_DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    TOLLGATE_DATA_DIR: envString({ default: '.tollgate' }),
    LOG_LEVEL: envEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  });
  return {
    port: parsed.GATEWAY_PORT,
    host: parsed.GATEWAY_HOST,
    databaseUrl: parsed.GATEWAY_DATABASE_URL ?? parsed.DATABASE_URL,
    dataDir: parsed.TOLLGATE_DATA_DIR,
    logLevel: parsed.LOG_LEVEL,
  };
}

/** Directory of the embedded gateway database. */
export function gatewayDatabaseDir(config: Pick<GatewayConfig, 'dataDir'>): string {
  return join(config.dataDir, 'gateway', 'db');
}
