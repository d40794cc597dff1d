import type { MigrationSet } from '../storage/migrations/define-migrations';
import { openDatabase, type OpenDatabase } from './database';
import { onShutdownSignal, startHttpServer, type RequestListener } from './http-server';
import type { LogSink } from './logging';

/** A structured logger as services use it (pino satisfies it). */
export interface ServiceLogger extends LogSink {
  debug(object: object, message?: string): void;
}

/** Options of {@link startService}. */
export interface StartServiceOptions<Context> {
  /** Service name for logs (`tollgate-gateway`). */
  name: string;
  port: number;
  host: string;
  /** PostgreSQL server URL, or undefined for embedded PGlite in `databaseDir`. */
  databaseUrl: string | undefined;
  databaseDir: string;
  migrations: readonly MigrationSet[];
  logger: ServiceLogger;
  /**
   * Builds the request listener once the database is open. What it returns as `context` is handed back
   * on the running service; `stop` (optional) runs after the HTTP server drained and before the database
   * closes (stop background workers there).
   */
  build(deps: { database: OpenDatabase; logger: ServiceLogger }): Promise<{ listener: RequestListener; context: Context; stop?: () => Promise<void> }>;
}

/** A running service. */
export interface RunningService<Context> {
  url: string;
  port: number;
  database: OpenDatabase;
  context: Context;
  /** Graceful stop: stop accepting, drain in-flight requests, stop workers, close the database. Idempotent. */
  close(): Promise<void>;
}

/**
 * The common life cycle of Tollgate's servers: open and migrate the database, build the app, listen, and
 * stop gracefully in the reverse order. A failure while starting closes what was opened.
 *
 * @example
 * ```ts
 * import { startService } from '@tollgate/core/node';
 * const running = await startService({ name: 'demo', port: 0, host: '127.0.0.1', databaseUrl: undefined,
 *   databaseDir: '.tollgate/demo', migrations: [], logger, build: async () => ({ listener: app, context: {} }) });
 * ```
 */
export async function startService<Context>(options: StartServiceOptions<Context>): Promise<RunningService<Context>> {
  const { logger } = options;
  const database = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.databaseDir, migrations: options.migrations });
  let built: Awaited<ReturnType<StartServiceOptions<Context>['build']>> | undefined;
  try {
    built = await options.build({ database, logger });
    const http = await startHttpServer(built.listener, { port: options.port, host: options.host });
    logger.info({ url: http.url, database: database.engine }, `${options.name} listening`);
    const stopWorkers = built.stop;
    let closing: Promise<void> | undefined;
    return {
      url: http.url,
      port: http.port,
      database,
      context: built.context,
      close: () =>
        (closing ??= (async () => {
          await http.close();
          await stopWorkers?.();
          await database.close();
          logger.info({}, `${options.name} stopped`);
        })()),
    };
  } catch (error) {
    await built?.stop?.();
    await database.close();
    throw error;
  }
}

/**
 * Closes `service` on the first SIGTERM/SIGINT (a second signal exits at once), logging the signal.
 *
 * @example
 * ```ts
 * import { closeOnSignal } from '@tollgate/core/node';
 * closeOnSignal(running, logger);
 * ```
 */
export function closeOnSignal(service: { close(): Promise<void> }, logger: LogSink): () => void {
  return onShutdownSignal(async (signal) => {
    logger.info({ signal }, 'shutting down');
    await service.close();
  });
}
