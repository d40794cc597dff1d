import { envEnum, envInteger, envString, envUrl, parseEnv, type EnvRecord } from '@tollgate/core';
import { join } from 'node:path';

/** Everything the license server reads from its environment. */
export interface LicenseConfig {
  port: number;
  host: string;
  /** PostgreSQL server; absent means embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  /** Root of local state (`.tollgate` by default). */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/**
 * Reads the license server configuration from environment variables. Every invalid variable is reported
 * at once with what it expected (`ConfigError`).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `LICENSE_PORT` | 4030 | listening port (0 = any free port) |
 * | `LICENSE_HOST` | 127.0.0.1 | listening address |
 * | `LICENSE_DATABASE_URL` or `DATABASE_URL` | – | PostgreSQL server; embedded PGlite when unset |
 * | `TOLLGATE_DATA_DIR` | `.tollgate` | local state directory |
 * | `LOG_LEVEL` | info | pino level |
 *
 * @example
 * ```ts
 * import { loadLicenseConfig } from '@tollgate/license-server';
 * const config = loadLicenseConfig(process.env);
 * ```
 */
export function loadLicenseConfig(env: EnvRecord): LicenseConfig {
  const parsed = parseEnv(env, {
    LICENSE_PORT: envInteger({ min: 0, max: 65535, default: 4030 }),
    LICENSE_HOST: envString({ default: '127.0.0.1' }),
    LICENSE_DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    TOLLGATE_DATA_DIR: envString({ default: '.tollgate' }),
    LOG_LEVEL: envEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  });
  return {
    port: parsed.LICENSE_PORT,
    host: parsed.LICENSE_HOST,
    databaseUrl: parsed.LICENSE_DATABASE_URL ?? parsed.DATABASE_URL,
    dataDir: parsed.TOLLGATE_DATA_DIR,
    logLevel: parsed.LOG_LEVEL,
  };
}

/** Directory of the embedded license database. */
export function licenseDatabaseDir(config: Pick<LicenseConfig, 'dataDir'>): string {
  return join(config.dataDir, 'license', 'db');
}
