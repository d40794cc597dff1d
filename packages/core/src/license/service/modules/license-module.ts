import type { AdminOperation } from '../../admin/admin-operation';
import type { AuditLog } from '../../admin/audit/audit-log';
import type { Clock } from '../../../time/clock';
import type { Route, RouteTable } from '../../../http/types';
import type { SqlClient } from '../../../storage/sql-client';
import type { LicenseCrypto } from '../license-crypto';
import type { LicenseNetwork } from '../license-network';
import type { LicenseLogSink } from '../logger';
import type { LicenseServiceOptions, LicenseServiceOverrides } from '../service-options';
import type { LicenseTrust } from '../trust/license-trust';

/**
 * What every feature module of the license service is built from (one per `createLicenseService`).
 *
 * @example
 * ```ts
 * const modules = licenseModules(context);
 * ```
 */
export interface LicenseModuleContext {
  readonly options: LicenseServiceOptions;
  readonly sql: SqlClient;
  readonly audit: AuditLog;
  readonly trust: LicenseTrust;
  readonly clock: Clock;
  /** `LICENSE_MASTER_KEY` (or the dev key): derive purpose-specific subkeys from it, never use it directly. */
  readonly masterKey: Uint8Array;
  /** The roots certificates are checked against (the configured pins, or the dev root). */
  readonly pinnedRoots: readonly Uint8Array[];
  readonly logger: LicenseLogSink;
  readonly crypto: LicenseCrypto;
  /** Outbound webhooks; `undefined`: the delivery jobs do not run. */
  readonly network: LicenseNetwork | undefined;
  /** Test overrides (delivery transports, clocks, DSR bounds). */
  readonly overrides: LicenseServiceOverrides;
}

/**
 * A route table served outside `/v1/` (webhooks, metrics), with the paths it owns.
 *
 * @example
 * ```ts
 * import type { MountedTable } from '@tollgate/core/license';
 * const mounted: MountedTable = { prefix: '/metrics', table };
 * ```
 */
export interface MountedTable {
  /** Path prefix the table answers (`/webhooks`): requests under it never reach the client protocol. */
  readonly prefix: string;
  readonly table: RouteTable;
}

/**
 * A background job of a module, started by the service's `workers.start()`.
 *
 * @example
 * ```ts
 * const worker: LicenseModuleWorker = { start: () => startPeriodicJob(60_000, 0, async () => 0) };
 * ```
 */
export interface LicenseModuleWorker {
  /** Starts the job; the returned `close()` stops it and waits for a round in flight. */
  start(): { close(): Promise<void> };
}

/**
 * One feature of the license service (epoch administration, asset keys, integrity signing, billing,
 * telemetry, analytics, data-subject requests): the Admin operations it adds, the client-protocol routes,
 * the tables it serves under its own prefix, and its background jobs (started by `workers.start()`).
 *
 * @example
 * ```ts
 * const module: LicenseModule = { adminOperations: [], workers: [] };
 * ```
 */
export interface LicenseModule {
  readonly adminOperations?: readonly AdminOperation[];
  readonly clientRoutes?: readonly Route[];
  readonly tables?: readonly MountedTable[];
  readonly workers?: readonly LicenseModuleWorker[];
}
