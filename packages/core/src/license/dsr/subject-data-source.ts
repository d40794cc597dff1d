import type { SqlClient } from '../../storage/sql-client';
import type { ErasureScanBudget, MachineErasureStep } from '../model/machines/machine-erasure';
import type { MachineRecord } from '../model/machines/machine-store';
import type { LicenseRecord } from '../model/licenses/license-record';

/** Whom a data-subject request is about: one machine, or one license with every machine on it. */
export type DsrSubject = { readonly kind: 'machine'; readonly id: string } | { readonly kind: 'license'; readonly id: string };

/** A resolved subject: its license and the machines the request covers. */
export interface DsrScope {
  readonly vendorId: string;
  readonly subject: DsrSubject;
  /** The license (for a machine subject: the license the machine is activated on). */
  readonly license: LicenseRecord;
  /** The machine (machine subject) or every machine of the license (license subject), by id. */
  readonly machines: readonly MachineRecord[];
}

/** Rows of an export, by the table they come from; each row a JSON-ready object. */
export type DsrExportRecords = Readonly<Record<string, readonly unknown[]>>;

/**
 * Erases what is tied to a license but to none of its machines (license subjects only). Like
 * {@link MachineErasureStep}: `run` works in the request's transaction and returns the rows it removed
 * or scrubbed; `preview` reads only and counts what `run` would do now.
 */
export interface LicenseErasureStep {
  readonly name: string;
  preview(sql: SqlClient, license: LicenseRecord, scan?: ErasureScanBudget): Promise<number>;
  run(tx: SqlClient, license: LicenseRecord, scan?: ErasureScanBudget): Promise<number>;
}

/**
 * One place that holds data about subjects (activation records, telemetry, analytics, billing …): what
 * it exports and how it erases. The DSR operations compose a list of them; a feature that keeps subject
 * data adds its source, and both the export and the delete cascade pick it up.
 *
 * Contract: `export` reads only, names every row by its table (`license_telemetry_raw: [...]`), and
 * charges `scan` with what it reads (it throws past a bound). `machineErasure` runs once per machine,
 * before the machine's own row goes; `licenseErasure` runs once for a license subject after every
 * machine. No source touches audit events or aggregate tables.
 *
 * @example
 * ```ts
 * import type { SubjectDataSource } from '@tollgate/core/license';
 * const telemetry: SubjectDataSource = {
 *   name: 'telemetry',
 *   export: async (sql, scope) => ({ license_telemetry_raw: await rowsOf(sql, scope.machines) }),
 *   machineErasure: telemetryErasure,
 * };
 * ```
 */
export interface SubjectDataSource {
  /** The source's name (for messages). */
  readonly name: string;
  export(sql: SqlClient, scope: DsrScope, scan: ErasureScanBudget): Promise<DsrExportRecords>;
  readonly machineErasure?: MachineErasureStep;
  readonly licenseErasure?: LicenseErasureStep;
}
