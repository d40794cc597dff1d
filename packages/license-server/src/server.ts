import { coreMigrations, createLicenseService, licenseMigrations, systemClock, type Clock, type SqlClient } from '@tollgate/core';
import type {
  AdminProvisioningContext,
  LicenseAdminApi,
  LicenseServiceOverrides,
  LicenseTrust,
  SeatReclaimJob,
} from '@tollgate/core/license';
import { closeOnSignal, nodeLicenseCrypto, nodeLicenseNetwork, pgLicenseChangeFeed, serverLoggerOptions, startService, type RunningService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { version } from '../package.json';
import { createLicenseListener } from './app';
import { devKeyPaths, resolveMasterKey } from './ceremony/ceremony';
import { describeDevTrust, ensureDevTrust, type DevTrust } from './ceremony/dev-trust';
import { acquireEmbeddedDatabaseLock } from './ceremony/embedded-lock';
import { licenseDatabaseDir, licenseServiceOptions, loadLicenseConfig, type LicenseConfig } from './config';

/** What a running license server exposes besides its URL. */
export interface LicenseContext {
  logger: Logger;
  /** Keyset cache, epoch signers, revocation publishing. */
  trust: LicenseTrust;
  /** The roots certificates are checked against (the configured pins, or the dev root). */
  pinnedRoots: readonly Uint8Array[];
  /** Set in dev mode: the generated dev root and epoch. */
  devTrust: DevTrust | undefined;
  /** The service's database. */
  sql: SqlClient;
  /** What `bootstrapVendor` and `createAdminToken` need to provision against this server's database. */
  adminProvisioning: AdminProvisioningContext;
  /** The Admin API: its route table and the operations it was built from. */
  admin: LicenseAdminApi;
  /** Takes back the seats of machines silent past their heartbeat window (runs every `LICENSE_SEAT_RECLAIM_SECONDS`). */
  seatReclaim: Pick<SeatReclaimJob, 'runOnce'>;
}

/** A running license server. */
export type RunningLicenseServer = RunningService<LicenseContext>;

/** Options of {@link startLicenseServer}. */
export interface StartLicenseOptions {
  /** Where log lines go (stdout by default); tests capture them here. */
  logDestination?: DestinationStream;
  /** The time source of epochs, batches and the keyset (the system clock by default). */
  clock?: Clock;
  /** The keyset cache waits for it before its first build (tests observe the cold 503 with it). */
  keysetGate?: Promise<void>;
  /** Where dev mode prints the dev root to pin (stdout by default). */
  print?: (text: string) => void;
  /** Overrides of the suspicion-alert delivery (tests: a loopback receiver, a fast poll, no jitter). */
  alerts?: LicenseServiceOverrides['alerts'];
  /** Test overrides of metric subscriptions: the DNS resolver (creation check and delivery transport) and the attempt budget. */
  analyticsSubscriptions?: LicenseServiceOverrides['analyticsSubscriptions'];
  /** Test overrides of data-subject requests: smaller bounds, reachable with a handful of rows. */
  dsr?: LicenseServiceOverrides['dsr'];
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies migrations, loads the trust
 * chain (in dev mode creating a dev root and epoch on first start), builds the keyset once, and serves
 * the license service (`createLicenseService` of `@tollgate/core`, with its workers started). It refuses
 * to start when that first keyset build fails (see `createLicenseTrust`). `close()` stops it gracefully.
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
  const clock = options.clock ?? systemClock;
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const lock = config.databaseUrl ? undefined : acquireEmbeddedDatabaseLock(devKeyPaths(config).lock);
  try {
    const service = await startService<LicenseContext>({
      name: 'tollgate-license',
      port: config.port,
      host: config.host,
      databaseUrl: config.databaseUrl,
      databaseDir: licenseDatabaseDir(config),
      migrations: [coreMigrations, licenseMigrations],
      logger,
      build: async ({ database }) => {
        const masterKey = resolveMasterKey(config).key;
        let devTrust: DevTrust | undefined;
        if (!config.production && config.rootPublicKeys.length === 0) {
          devTrust = await ensureDevTrust(config, database.sql, { masterKey, clock });
          print(describeDevTrust(devTrust));
        }
        const pinnedRoots = devTrust ? [devTrust.rootPublicKey] : config.rootPublicKeys;
        const { alerts, analyticsSubscriptions, dsr, keysetGate } = options;
        const license = createLicenseService({
          sql: database.sql,
          clock,
          masterKey,
          pinnedRoots,
          logger,
          options: licenseServiceOptions(config, version),
          crypto: nodeLicenseCrypto,
          network: nodeLicenseNetwork,
          health: database,
          // Every instance on a shared PostgreSQL hears another's epoch changes at once (LISTEN/NOTIFY), not at its next refresh.
          ...(config.databaseUrl === undefined ? {} : { listenForChanges: pgLicenseChangeFeed(config.databaseUrl) }),
          overrides: { ...(alerts && { alerts }), ...(analyticsSubscriptions && { analyticsSubscriptions }), ...(dsr && { dsr }), ...(keysetGate && { keysetGate }) },
        });
        // A server that cannot build its keyset would answer 503 on /v1/keys forever while /health says
        // 200: refuse to start instead. (Tests holding the gate observe the cold cache, so they skip this.)
        try {
          if (keysetGate === undefined) await license.trust.firstBuild();
          await license.workers.start();
        } catch (error) {
          await license.close();
          throw error;
        }
        const { trust, sql, adminProvisioning, admin, seatReclaim } = license;
        return {
          listener: createLicenseListener(license.routes, logger, { trustProxy: config.trustProxy }),
          context: { logger, trust, pinnedRoots, devTrust, sql, adminProvisioning, admin, seatReclaim },
          stop: () => license.close(),
        };
      },
    });
    return {
      ...service,
      close: async () => {
        await service.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * The CLI's `serve`: starts the license server from environment variables; SIGTERM/SIGINT stop it gracefully.
 *
 * @example
 * ```ts
 * import { runLicenseFromEnv } from '@tollgate/license-server';
 * const server = await runLicenseFromEnv(process.env);
 * ```
 */
export async function runLicenseFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunningLicenseServer> {
  const server = await startLicenseServer(loadLicenseConfig(env));
  closeOnSignal(server, server.context.logger);
  return server;
}
