import { coreMigrations } from '@tollgate/core';
import { closeOnSignal, serverLoggerOptions, startService, type RunningService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createGatewayApp } from './app';
import { gatewayDatabaseDir, loadGatewayConfig, type GatewayConfig } from './config';
import { healthRoutes } from './routes/health';

/** What a running gateway exposes besides its URL. */
export interface GatewayContext {
  logger: Logger;
}

/** A running gateway. */
export type RunningGateway = RunningService<GatewayContext>;

/** Options of {@link startGatewayServer}. */
export interface StartGatewayOptions {
  /** Where log lines go (stdout by default); tests capture them here. */
  logDestination?: DestinationStream;
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies migrations, and serves the
 * gateway. `close()` stops it gracefully.
 *
 * @example
 * ```ts
 * import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
 * const gateway = await startGatewayServer(loadGatewayConfig(process.env));
 * console.log(`gateway on ${gateway.url}`);
 * ```
 */
export async function startGatewayServer(config: GatewayConfig, options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const loggerOptions = serverLoggerOptions({ service: 'tollgate-gateway', level: config.logLevel });
  const logger = options.logDestination ? pino(loggerOptions, options.logDestination) : pino(loggerOptions);
  return startService<GatewayContext>({
    name: 'tollgate-gateway',
    port: config.port,
    host: config.host,
    databaseUrl: config.databaseUrl,
    databaseDir: gatewayDatabaseDir(config),
    migrations: [coreMigrations],
    logger,
    build: async ({ database }) => ({
      listener: createGatewayApp([...healthRoutes({ database })], logger),
      context: { logger },
    }),
  });
}

/** The CLI: starts the gateway from environment variables and stops it gracefully on SIGTERM/SIGINT. */
export async function runGatewayFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunningGateway> {
  const gateway = await startGatewayServer(loadGatewayConfig(env));
  closeOnSignal(gateway, gateway.context.logger);
  return gateway;
}
