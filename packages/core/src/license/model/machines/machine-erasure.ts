import type { SqlClient } from '../../../storage/sql-client';
import { createSqlMachineStore, type MachineRecord } from './machine-store';

/**
 * The scan budget of one erasure (the spec's DSR bounds MAX_SCAN_DATES, MAX_SCAN_RECORDS,
 * MAX_MATCHED_KEYS). A step that scans stored records charges what it reads **before** it deletes:
 * `charge` throws when a bound would be crossed, and the erasure's transaction then rolls back whole.
 */
export interface ErasureScanBudget {
  /**
   * Charges one scan.
   *
   * @param use - `dates`: the days (`YYYY-MM-DD`, UTC) the scan covers, counted once per request however
   *   often charged; `records`: rows it reads; `matched`: rows of the subject it found (and will delete).
   * @throws DsrBoundExceededError naming the bound.
   */
  charge(use: { readonly dates?: readonly string[]; readonly records?: number; readonly matched?: number }): void;
}

/**
 * One step of a machine's erasure (`DELETE /v1/admin/machines/{id}` and DSR delete): it removes one kind
 * of data tied to the machine.
 *
 * Contract: `run` executes inside the erasure's transaction (every step and the audit event commit
 * together, or nothing is erased) and returns how many rows it removed; `preview` reads only and returns
 * how many `run` would remove now, for the dry run. Steps must not touch audit events (they outlive
 * erasure by design) or aggregate tables (they hold no subject identifiers). A step that scans stored
 * records charges `scan` (when given) with what it reads, in `preview` and in `run` alike, before it
 * deletes anything; a step that does not is charged its returned count as matched keys.
 */
export interface MachineErasureStep {
  /** What the step erases, as the answer names it (`machine`, `telemetry`, …). */
  readonly name: string;
  preview(sql: SqlClient, machine: MachineRecord, scan?: ErasureScanBudget): Promise<number>;
  run(tx: SqlClient, machine: MachineRecord, scan?: ErasureScanBudget): Promise<number>;
}

/** The machine's own row: the last step, after everything that references it. */
export const machineRecordErasure: MachineErasureStep = {
  name: 'machine',
  preview: async () => 1,
  run: (tx, machine) => createSqlMachineStore(tx).delete(machine.machineId),
};

/**
 * The erasure cascade of a machine, run in order. Work that keeps more data about a machine (activation
 * records, telemetry, projections) adds its step **before** {@link machineRecordErasure}, so rows that
 * reference the machine go first; a step placed after it would meet the foreign key and fail loudly. The
 * Admin API's erasure (`DELETE /machines/{id}`, DSR delete) builds its cascade from the subject data
 * sources instead (`dsrMachineSteps`), ending with the same {@link machineRecordErasure}.
 *
 * @example
 * ```ts
 * import { eraseMachine, machineErasureSteps, telemetryErasureStep } from '@tollgate/core/license';
 * const erased = await eraseMachine(tx, machine, [telemetryErasureStep(masterKey), ...machineErasureSteps]);
 * ```
 */
export const machineErasureSteps: readonly MachineErasureStep[] = Object.freeze([machineRecordErasure]);

/**
 * Counts, step by step, what erasing the machine would remove.
 *
 * @param sql - The database.
 * @param machine - The machine.
 * @param steps - The cascade.
 * @param scan - The scan budget the steps charge (none: unbounded).
 * @returns Rows per step name.
 * @example
 * ```ts
 * import { previewMachineErasure, machineErasureSteps } from '@tollgate/core/license';
 * const wouldErase = await previewMachineErasure(sql, machine, machineErasureSteps);
 * ```
 */
export async function previewMachineErasure(sql: SqlClient, machine: MachineRecord, steps: readonly MachineErasureStep[], scan?: ErasureScanBudget): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) counts[step.name] = (counts[step.name] ?? 0) + (await step.preview(sql, machine, scan));
  return counts;
}

/**
 * Runs the cascade in `tx`, in order.
 *
 * @param tx - The erasure's transaction.
 * @param machine - The machine (locked by `tx`).
 * @param steps - The cascade.
 * @param scan - The scan budget the steps charge (none: unbounded).
 * @returns Rows removed per step name.
 * @example
 * ```ts
 * import { eraseMachine, machineErasureSteps } from '@tollgate/core/license';
 * const erased = await eraseMachine(call.sql, machine, machineErasureSteps);
 * ```
 */
export async function eraseMachine(tx: SqlClient, machine: MachineRecord, steps: readonly MachineErasureStep[], scan?: ErasureScanBudget): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) counts[step.name] = (counts[step.name] ?? 0) + (await step.run(tx, machine, scan));
  return counts;
}
