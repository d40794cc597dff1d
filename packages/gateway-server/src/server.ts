import {
  coreMigrations,
  createChainHealthProbe,
  createGateway,
  createNetworkRegistry,
  createRpcClients,
  createSqlGatewayStore,
  createSqlRateLimiter,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  gatewayMigrations,
  systemClock,
  type Clock,
  type NetworkRegistry,
  type RandomSource,
} from '@tollgate/core';
import { closeOnSignal, serverLoggerOptions, startService, type RunningService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createGatewayApp } from './app';
import { gatewayDatabaseDir, loadGatewayConfig, type GatewayConfig } from './config';
import { startHousekeeping } from './housekeeping';
import { healthRoutes } from './routes/health';
import { resolveGatewaySecret } from './secret-file';

/** What a running gateway exposes besides its URL. */
export interface GatewayContext {
  logger: Logger;
  /** The public origin bound into challenges and ref URLs. */
  publicUrl: string;
  /** The networks the API accepts. */
  networks: NetworkRegistry;
}

/** A running gateway. */
export type RunningGateway = RunningService<GatewayContext>;

/** Options of {@link startGatewayServer}. */
export interface StartGatewayOptions {
  /** Where log lines go (stdout by default); tests capture them here. */
  logDestination?: DestinationStream;
  /** Source of time (the system clock by default); tests pass a `ManualClock` to expire challenges. */
  clock?: Clock;
  /** Randomness for ids and keys (the platform CSPRNG by default). */
  random?: RandomSource;
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies the core and gateway
 * migrations, and serves the gateway: health, merchant registration and credentials, refs and payTo
 * retirement. `close()` stops it gracefully.
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
  const clock = options.clock ?? systemClock;
  // Resolved before the database opens, so a missing production secret fails fast.
  const keys = deriveGatewayKeys(resolveGatewaySecret({ ...config, logger }));
  const networks = createNetworkRegistry({ extra: config.extraNetworks, ...(config.localUsdc === undefined ? {} : { localUsdc: config.localUsdc }) });
  const rpc = createRpcClients(networks, config.rpcUrls, { timeoutMs: config.rpcTimeoutMs });
  // With port 0 the default origin is known only once the server listens.
  const listening: { port?: number } = {};
  const publicUrl = () => config.publicUrl ?? `http://localhost:${listening.port ?? config.port}`;

  const running = await startService<GatewayContext>({
    name: 'tollgate-gateway',
    port: config.port,
    host: config.host,
    databaseUrl: config.databaseUrl,
    databaseDir: gatewayDatabaseDir(config),
    migrations: [coreMigrations, gatewayMigrations],
    logger,
    build: async ({ database }) => {
      const store = createSqlGatewayStore(database.sql);
      const rateLimiter = createSqlRateLimiter(database.sql, { clock });
      const gateway = createGateway({
        store,
        keys,
        networks,
        publicUrl,
        clock,
        ...(options.random === undefined ? {} : { random: options.random }),
        signatureVerifier: createViemWalletSignatureVerifier({ rpc, timeoutMs: config.rpcTimeoutMs }),
        rateLimiter,
        rateLimits: config.rateLimits,
      });
      const chains = createChainHealthProbe({ rpc, clock, timeoutMs: Math.min(config.rpcTimeoutMs, 2_000) });
      const housekeeping = startHousekeeping({ store, rateLimiter, clock, logger });
      return {
        listener: createGatewayApp([...healthRoutes({ database, chains }), ...gateway.routes], logger, { trustProxy: config.trustProxy }),
        context: {
          logger,
          networks,
          get publicUrl() {
            return publicUrl();
          },
        },
        stop: () => housekeeping.stop(),
      };
    },
  });
  listening.port = running.port;
  return running;
}

/** The CLI: starts the gateway from environment variables and stops it gracefully on SIGTERM/SIGINT. */
export async function runGatewayFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunningGateway> {
  const gateway = await startGatewayServer(loadGatewayConfig(env));
  closeOnSignal(gateway, gateway.context.logger);
  return gateway;
}
