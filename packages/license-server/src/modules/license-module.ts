import type { AdminOperation, AuditLog, Clock, Route, RouteTable, SqlClient } from '@tollgate/core';
import type { Logger } from 'pino';
import type { LicenseConfig } from '../config';
import type { StartLicenseOptions } from '../server';
import type { LicenseTrust } from '../trust/license-trust';

/** What every feature module of the license server is built from (one per server start). */
export interface LicenseModuleContext {
  readonly config: LicenseConfig;
  readonly sql: SqlClient;
  readonly audit: AuditLog;
  readonly trust: LicenseTrust;
  readonly clock: Clock;
  /** `LICENSE_MASTER_KEY` (or the dev key): derive purpose-specific subkeys from it, never use it directly. */
  readonly masterKey: Uint8Array;
  /** The roots certificates are checked against (the configured pins, or the dev root). */
  readonly pinnedRoots: readonly Uint8Array[];
  readonly logger: Logger;
  /** The start options (tests pass delivery overrides and clocks through them). */
  readonly options: StartLicenseOptions;
}

/** A route table served outside `/v1/` (webhooks, metrics), with the paths it owns. */
export interface MountedTable {
  /** Path prefix the table answers (`/webhooks`): requests under it never reach the client protocol. */
  readonly prefix: string;
  readonly table: RouteTable;
}

/**
 * One feature of the license server (epoch administration, asset keys, integrity signing, billing,
 * telemetry, analytics, data-subject requests): the Admin operations it adds, the client-protocol routes,
 * the tables it serves under its own prefix, and how it stops (jobs, listeners).
 */
export interface LicenseModule {
  readonly adminOperations?: readonly AdminOperation[];
  readonly clientRoutes?: readonly Route[];
  readonly tables?: readonly MountedTable[];
  close?(): Promise<void>;
}
