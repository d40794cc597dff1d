import { accountSessionRoutes } from '../account-sessions/account-session-routes';
import { clientProtocolRoutes } from '../client-protocol/client-protocol-routes';
import { createAccountSessions } from '../account-sessions/account-sessions';
import { createLicenseAdminApi, type LicenseAdminApi } from '../admin/admin-api';
import { createSqlAuditLog } from '../admin/audit/sql-audit-log';
import { createSqlRateLimiter } from '../../storage/rate-limit/sql-rate-limiter';
import { createSqlReleaseGate } from '../releases/sql-release-gate';
import { createSqlSuspicionLedger } from '../suspicion/sql-suspicion-ledger';
import type { AdminProvisioningContext } from '../admin/admin-provisioning';
import type { AuditLog } from '../admin/audit/audit-log';
import type { Clock } from '../../time/clock';
import type { Route } from '../../http/types';
import type { SqlClient } from '../../storage/sql-client';
import { licenseAdminOperations } from './admin-operations';
import { clientNoticeHandler } from './client-notices';
import { licenseFetchHandler, type LicenseServiceTables } from './license-fetch';
import type { LicenseChangeFeed } from './license-change-feed';
import { nobleLicenseCrypto, type LicenseCrypto } from './license-crypto';
import type { LicenseNetwork } from './license-network';
import { createLicenseWorkers, type LicenseWorkers, type LicenseWorkersHandle } from './license-workers';
import type { LicenseLogger } from './logger';
import { licenseModules } from './modules/license-modules';
import { withAdminOpenApi } from './routes/admin-openapi';
import { auditAnchorRoutes } from './routes/audit-anchors';
import { healthRoutes, sqlHealthProbe, type LicenseHealthProbe } from './routes/health';
import { keysRoutes } from './routes/keys';
import { revocationRoutes } from './routes/revocations';
import { defaultLicenseServiceOptions, type LicenseServiceOptions, type LicenseServiceOverrides } from './service-options';
import { createLicenseTrust, type LicenseTrust } from './trust/license-trust';
import type { MountedTable } from './modules/license-module';

/**
 * Everything {@link createLicenseService} is built from.
 *
 * @example
 * ```ts
 * import { createLicenseService, systemClock } from '@tollgate/core';
 * const deps: LicenseServiceDeps = { sql, clock: systemClock, masterKey, pinnedRoots, logger, options: { seatReclaimSeconds: 30 } };
 * const service = createLicenseService(deps);
 * ```
 */
export interface LicenseServiceDeps {
  /**
   * The database, opened by the caller (PGlite or pg) with `coreMigrations` and `licenseMigrations`
   * already applied (`runMigrations(sql, [coreMigrations, licenseMigrations])`, or `openDatabase` from
   * `@tollgate/core/node`): the service never migrates, and the caller closes it after `close()`.
   */
  readonly sql: SqlClient;
  readonly clock: Clock;
  /** `LICENSE_MASTER_KEY`: 32 bytes sealing the epoch keys and deriving every subkey. */
  readonly masterKey: Uint8Array;
  /** The root public keys certificates must verify against (the clients' pins). */
  readonly pinnedRoots: readonly Uint8Array[];
  /** `{ debug, info, warn, error }(object, message)`; pino fits. */
  readonly logger: LicenseLogger;
  /** Feature settings; each one left out is {@link defaultLicenseServiceOptions}'s. */
  readonly options?: Partial<LicenseServiceOptions>;
  /** Ed25519 (default {@link nobleLicenseCrypto}; on Node `nodeLicenseCrypto` from `@tollgate/core/node`). */
  readonly crypto?: LicenseCrypto;
  /** Outbound webhooks (on Node `nodeLicenseNetwork`); without it alerts and metric subscriptions are not delivered. */
  readonly network?: LicenseNetwork;
  /** Other instances' changes (on PostgreSQL `pgLicenseChangeFeed(url)`); without it they arrive with the periodic keyset refresh. */
  readonly listenForChanges?: LicenseChangeFeed;
  /** What `GET /health` asks (default `sqlHealthProbe(sql)`). */
  readonly health?: LicenseHealthProbe;
  /** The client address of a `fetch` request (rate limits per address); default none. */
  readonly remoteAddress?: (request: Request) => string | undefined;
  /** Test overrides (delivery receivers, held keyset, small bounds). */
  readonly overrides?: LicenseServiceOverrides;
}

/**
 * The route lists of the service, in the shape `createLicenseListener` of `@tollgate/license-server` takes.
 *
 * @example
 * ```ts
 * import { createLicenseListener } from '@tollgate/license-server';
 * const listener = createLicenseListener(service.routes, logger);
 * ```
 */
export interface LicenseServiceRoutes {
  /** `/health` and the CBOR client protocol (serve them in `licenseClientTable(client, logger)`). */
  readonly client: Route[];
  /** The JSON Admin API under `/v1/admin` (with `GET /v1/admin/openapi.json`). */
  readonly admin: LicenseServiceTables['admin'];
  /** Tables under their own prefix (`/webhooks`, `/metrics`). */
  readonly mounted: readonly MountedTable[];
}

/**
 * A license service: its request handler, routes, background jobs and state.
 *
 * @example
 * ```ts
 * import { createLicenseService, systemClock } from '@tollgate/core';
 * const service: LicenseService = createLicenseService({ sql, clock: systemClock, masterKey, pinnedRoots, logger });
 * export default { fetch: service.fetch };
 * ```
 */
export interface LicenseService {
  /** Serves every route (client protocol, Admin API, webhooks, metrics) with each table's own error envelope. */
  fetch(request: Request): Promise<Response>;
  /** The route lists (`createLicenseListener(service.routes, logger)`). */
  readonly routes: LicenseServiceRoutes;
  /** The three tables with their middleware and error renderers (`toExpress(service.tables.client)`). */
  readonly tables: LicenseServiceTables;
  /** The background jobs. */
  readonly workers: LicenseWorkers;
  /** Stops the workers, waits for `fetch` calls in flight, stops the keyset refresh. Idempotent. */
  close(): Promise<void>;
  /** Keyset cache, epoch signers, revocation publishing. */
  readonly trust: LicenseTrust;
  readonly pinnedRoots: readonly Uint8Array[];
  readonly sql: SqlClient;
  readonly audit: AuditLog;
  /** What `bootstrapVendor` and `createAdminToken` need to provision against this database. */
  readonly adminProvisioning: AdminProvisioningContext;
  /** The Admin API: its route table and the operations it was built from. */
  readonly admin: LicenseAdminApi;
  /** One seat-reclaim round now (the running job's when the workers run). */
  readonly seatReclaim: LicenseWorkersHandle['seatReclaim'];
}

/**
 * The license service's composition root: trust state (keyset and epoch signers, first build started at
 * once), client protocol, Admin API, feature modules (epochs, asset keys, integrity, billing, telemetry,
 * analytics, subscriptions, DSR) and their background jobs, over one database the caller opened and
 * migrated. Serve `fetch` (or `routes`/`tables` on Express); await `trust.firstBuild()` before taking
 * traffic if a cold `/v1/keys` (503) is not acceptable.
 *
 * **`workers.start()`**: until it is called, the service answers every request but nothing runs in the
 * background except the keyset's own periodic refresh. Concretely: seats of silent machines are never
 * reclaimed; audit heads are never anchored; suspicion alerts and metric-subscription webhooks are never
 * delivered (they stay queued); billing webhook events are accepted and queued but never applied to
 * licenses; raw telemetry and analytics events are never purged past retention and no analytics day is
 * rolled up (metrics stay empty); expired nonces, idempotency keys, rate-limit buckets, account sessions
 * and suspicion signals are never purged; and on PostgreSQL other instances' epoch revocations and release
 * changes arrive only with the next keyset refresh (`keysetRefreshSeconds`) instead of at once.
 *
 * @param deps - Database, clock, keys, logger, feature options and platform ports.
 * @returns The service.
 * @example
 * ```ts
 * import { createLicenseService, systemClock } from '@tollgate/core';
 * import { nodeLicenseCrypto, nodeLicenseNetwork } from '@tollgate/core/node';
 * const service = createLicenseService({ sql, clock: systemClock, masterKey, pinnedRoots, logger, crypto: nodeLicenseCrypto, network: nodeLicenseNetwork });
 * await service.trust.firstBuild();
 * await service.workers.start();
 * const response = await service.fetch(new Request('http://localhost/health'));
 * await service.close();
 * ```
 */
export function createLicenseService(deps: LicenseServiceDeps): LicenseService {
  const { sql, clock, masterKey, pinnedRoots, logger } = deps;
  const options: LicenseServiceOptions = { ...defaultLicenseServiceOptions, ...deps.options };
  const crypto = deps.crypto ?? nobleLicenseCrypto;
  const overrides = deps.overrides ?? {};
  const trust = createLicenseTrust({
    sql,
    masterKey,
    pinnedRoots,
    clock,
    logger,
    crypto,
    refreshIntervalMs: options.keysetRefreshSeconds * 1000,
    ...(overrides.keysetGate === undefined ? {} : { firstBuildGate: overrides.keysetGate }),
  });
  const audit = createSqlAuditLog(sql);
  const releaseGate = createSqlReleaseGate(sql, { clock });
  const accountSessions = createAccountSessions({ sql, masterKey, clock });
  const rateLimiter = createSqlRateLimiter(sql, { clock });
  const suspicion = createSqlSuspicionLedger(sql, { clock });
  const modules = licenseModules({ options, sql, audit, trust, clock, masterKey, pinnedRoots, logger, crypto, network: deps.network, overrides });
  const client = [
    ...healthRoutes(deps.health ?? sqlHealthProbe(sql), options.version === undefined ? {} : { version: options.version }),
    ...keysRoutes(trust, { logger }),
    ...revocationRoutes(sql, { logger }),
    ...auditAnchorRoutes(sql, { logger }),
    ...accountSessionRoutes(accountSessions),
    ...clientProtocolRoutes({
      sql,
      clock,
      masterKey,
      audit,
      signingEpochs: () => trust.signingEpochs(),
      releaseGate,
      accountTokens: accountSessions,
      rateLimiter,
      rateLimits: options.clientRateLimits,
      verify: crypto.verify,
      notify: clientNoticeHandler({ logger, suspicion }),
    }),
    ...modules.flatMap((module) => module.clientRoutes ?? []),
  ];
  const admin = createLicenseAdminApi({
    sql,
    masterKey,
    clock,
    audit,
    tokenPrefix: options.adminTokenPrefix,
    realm: options.adminRealm,
    operations: [...licenseAdminOperations({ sql, audit, trust, clock, masterKey }), ...modules.flatMap((module) => module.adminOperations ?? [])],
    onUnexpectedError: (error, context) => logger.error({ err: error, requestId: context?.requestId }, 'unhandled admin error'),
  });
  const routes: LicenseServiceRoutes = { client, admin: withAdminOpenApi(admin.table, admin.operations), mounted: modules.flatMap((module) => module.tables ?? []) };
  const served = licenseFetchHandler(routes, logger, deps.remoteAddress);
  const workers = createLicenseWorkers({
    sql,
    clock,
    masterKey,
    logger,
    crypto,
    network: deps.network,
    listenForChanges: deps.listenForChanges,
    options,
    overrides,
    trust,
    audit,
    journal: admin.journal,
    rateLimiter,
    purges: [() => accountSessions.purge(), () => suspicion.purge()],
    modules,
  });
  let closing: Promise<void> | undefined;
  return {
    fetch: served.fetch,
    routes,
    tables: served.tables,
    workers: {
      start: () => (closing === undefined ? workers.start() : Promise.reject(new Error('the license service is closed'))),
      stop: () => workers.stop(),
      get running() {
        return workers.running;
      },
    },
    close: () =>
      (closing ??= (async () => {
        await workers.stop();
        await served.drain();
        releaseGate.close();
        await trust.close();
      })()),
    trust,
    pinnedRoots,
    sql,
    audit,
    adminProvisioning: { sql, masterKey, tokenPrefix: options.adminTokenPrefix, audit, clock },
    admin,
    seatReclaim: workers.seatReclaim,
  };
}
