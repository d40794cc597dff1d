import {
  accountSessionRoutes,
  clientProtocolRoutes,
  coreMigrations,
  createAccountSessions,
  createLicenseAdminApi,
  createSqlAuditLog,
  createSqlRateLimiter,
  createSqlReleaseGate,
  createSqlSuspicionLedger,
  applyReleaseChangeNotice,
  releaseChangeChannel,
  releaseChangesOf,
  deriveLicenseSubkey,
  licenseSubkeyLabels,
  licenseMigrations,
  systemClock,
  type AdminProvisioningContext,
  type LicenseAdminApi,
  type Clock,
  type SqlClient,
} from '@tollgate/core';
import { closeOnSignal, serverLoggerOptions, startService, verifyEd25519Node, type RunningService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { licenseAdminOperations } from './admin-operations';
import type { AnalyticsSubscriptionOverrides } from './modules/analytics-subscriptions-module';
import type { DsrStartOptions } from './modules/dsr-module';
import { licenseModules } from './modules/license-modules';
import { createLicenseListener } from './app';
import { clientNoticeHandler } from './client-notices';
import { devKeyPaths, resolveMasterKey } from './ceremony/ceremony';
import { describeDevTrust, ensureDevTrust, type DevTrust } from './ceremony/dev-trust';
import { acquireEmbeddedDatabaseLock } from './ceremony/embedded-lock';
import { licenseDatabaseDir, loadLicenseConfig, type LicenseConfig } from './config';
import { startAuditAnchorJob } from './jobs/audit-anchor-job';
import { startClientProtocolPurgeJob } from './jobs/client-protocol-purge-job';
import { startIdempotencyPurgeJob } from './jobs/idempotency-purge-job';
import { startSeatReclaimJob, type SeatReclaimJob } from './jobs/seat-reclaim-job';
import { startSuspicionAlertJob, type SuspicionAlertJobOptions } from './jobs/suspicion-alert-job';
import { startTrustChangeListener } from './trust/trust-change-listener';
import { withAdminOpenApi } from './routes/admin-openapi';
import { auditAnchorRoutes } from './routes/audit-anchors';
import { healthRoutes } from './routes/health';
import { keysRoutes } from './routes/keys';
import { revocationRoutes } from './routes/revocations';
import { createLicenseTrust, type LicenseTrust } from './trust/license-trust';

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
  seatReclaim: SeatReclaimJob;
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
  alerts?: Pick<SuspicionAlertJobOptions, 'transport' | 'insecureAllowLoopbackForTests' | 'pollIntervalMs' | 'random' | 'backoff'>;
  /** Test overrides of metric subscriptions: the DNS resolver (creation check and delivery transport) and the attempt budget. */
  analyticsSubscriptions?: AnalyticsSubscriptionOverrides;
  /** Test overrides of data-subject requests: smaller bounds, reachable with a handful of rows. */
  dsr?: DsrStartOptions['dsr'];
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies migrations, loads the trust
 * chain (in dev mode creating a dev root and epoch on first start), builds the keyset once, and serves
 * the license service. It refuses to start when that first keyset build fails (see `createLicenseTrust`).
 * `close()` stops it gracefully.
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
        const trust = createLicenseTrust({
          sql: database.sql,
          masterKey,
          pinnedRoots,
          clock,
          logger,
          refreshIntervalMs: config.keysetRefreshSeconds * 1000,
          ...(options.keysetGate === undefined ? {} : { firstBuildGate: options.keysetGate }),
        });
        // A server that cannot build its keyset would answer 503 on /v1/keys forever while /health says
        // 200: refuse to start instead. (Tests holding the gate observe the cold cache, so they skip this.)
        if (options.keysetGate === undefined) {
          try {
            await trust.firstBuild();
          } catch (error) {
            await trust.close();
            throw error;
          }
        }
        const audit = createSqlAuditLog(database.sql);
        const releaseGate = createSqlReleaseGate(database.sql, { clock });
        const accountSessions = createAccountSessions({ sql: database.sql, masterKey, clock });
        const rateLimiter = createSqlRateLimiter(database.sql, { clock });
        const suspicion = createSqlSuspicionLedger(database.sql, { clock });
        const notify = clientNoticeHandler({ logger, suspicion });
        const modules = licenseModules({ config, sql: database.sql, audit, trust, clock, masterKey, pinnedRoots, logger, options });
        const client = [
          ...healthRoutes(database),
          ...keysRoutes(trust, { logger }),
          ...revocationRoutes(database.sql, { logger }),
          ...auditAnchorRoutes(database.sql, { logger }),
          ...accountSessionRoutes(accountSessions),
          ...clientProtocolRoutes({
            sql: database.sql,
            clock,
            masterKey,
            audit,
            signingEpochs: () => trust.signingEpochs(),
            releaseGate,
            accountTokens: accountSessions,
            rateLimiter,
            rateLimits: config.clientRateLimits,
            verify: verifyEd25519Node,
            notify,
          }),
          ...modules.flatMap((module) => module.clientRoutes ?? []),
        ];
        const admin = createLicenseAdminApi({
          sql: database.sql,
          masterKey,
          clock,
          audit,
          tokenPrefix: config.adminTokenPrefix,
          realm: config.adminRealm,
          operations: [...licenseAdminOperations({ sql: database.sql, audit, trust, clock, masterKey }), ...modules.flatMap((module) => module.adminOperations ?? [])],
          onUnexpectedError: (error, context) => logger.error({ err: error, requestId: context?.requestId }, 'unhandled admin error'),
        });
        const purgeJob = startIdempotencyPurgeJob({ journal: admin.journal, clock, logger });
        const anchorJob = startAuditAnchorJob({ sql: database.sql, trust, clock, logger, intervalMs: config.auditAnchorSeconds * 1000 });
        const seatReclaim = startSeatReclaimJob({ sql: database.sql, audit, clock, logger, intervalMs: config.seatReclaimSeconds * 1000 });
        const clientPurge = startClientProtocolPurgeJob({ sql: database.sql, clock, logger, rateLimiter, extra: [() => accountSessions.purge(), () => suspicion.purge()] });
        // Every instance on a shared PostgreSQL hears another's epoch changes at once (LISTEN/NOTIFY), not at its next refresh.
        const trustListener = config.databaseUrl === undefined ? undefined : startTrustChangeListener({
                connectionString: config.databaseUrl,
                trust,
                logger,
                alsoListen: [{ channel: releaseChangeChannel, apply: (payload) => applyReleaseChangeNotice(releaseChangesOf(database.sql), payload) }],
              });
        // An instance that answers requests must already hear its peers: a change committed between our
        // start and a late LISTEN would otherwise wait for the periodic refresh. A failed first connection
        // does not stop the start (the listener keeps retrying and the refresh covers the gap).
        await trustListener?.ready.catch(() => undefined);
        const alerts = startSuspicionAlertJob({ sql: database.sql, signingRoot: deriveLicenseSubkey(masterKey, licenseSubkeyLabels.alertSigning), clock, logger, ...options.alerts });
        const adminProvisioning: AdminProvisioningContext = { sql: database.sql, masterKey, tokenPrefix: config.adminTokenPrefix, audit, clock };
        return {
          listener: createLicenseListener({ client, admin: withAdminOpenApi(admin.table, admin.operations), mounted: modules.flatMap((module) => module.tables ?? []) }, logger, { trustProxy: config.trustProxy }),
          context: { logger, trust, pinnedRoots, devTrust, sql: database.sql, adminProvisioning, admin, seatReclaim },
          stop: async () => {
            await Promise.all([anchorJob.close(), purgeJob.close(), seatReclaim.close(), clientPurge.close(), alerts.close(), ...modules.map((module) => module.close?.())]);
            releaseGate.close();
            await trustListener?.close();
            await trust.close();
          },
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
