import { coreMigrations } from '@tollgate/core';
import { closeOnSignal, serverLoggerOptions, startService, type RunningService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createLicenseApp } from './app';
import { licenseDatabaseDir, loadLicenseConfig, type LicenseConfig } from './config';
import { healthRoutes } from './routes/health';

/** What a running license server exposes besides its URL. */
export interface LicenseContext {
  logger: Logger;
}

/** A running license server. */
export type RunningLicenseServer = RunningService<LicenseContext>;

/** Options of {@link startLicenseServer}. */
export interface StartLicenseOptions {
  /** Where log lines go (stdout by default); tests capture them here. */
  logDestination?: DestinationStream;
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies migrations, and serves the
 * license service. `close()` stops it gracefully.
 *
 * @example
 * ```ts
 * import { loadLicenseConfig, startLicenseServer } from '@tollgate/license-server';
 * const server = await startLicenseServer(loadLicenseConfig(process.env));
 * ```
 */
export async function startLicenseServer(config: LicenseConfig, options: StartLicenseOptions = {}): Promise<RunningLicenseServer> {
  const loggerOptions = serverLoggerOptions({ service: 'tollgate-license', level: config.logLevel });
  const logger = options.logDestination ? pino(loggerOptions, options.logDestination) : pino(loggerOptions);
  return startService<LicenseContext>({
    name: 'tollgate-license',
    port: config.port,
    host: config.host,
    databaseUrl: config.databaseUrl,
    databaseDir: licenseDatabaseDir(config),
    migrations: [coreMigrations],
    logger,
    build: async ({ database }) => ({
      listener: createLicenseApp({ client: healthRoutes(database) }, logger),
      context: { logger },
    }),
  });
}

/** The CLI: starts the license server from environment variables; SIGTERM/SIGINT stop it gracefully. */
export async function runLicenseFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunningLicenseServer> {
  const server = await startLicenseServer(loadLicenseConfig(env));
  closeOnSignal(server, server.context.logger);
  return server;
}
