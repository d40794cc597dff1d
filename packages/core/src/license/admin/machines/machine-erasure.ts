import type { SqlClient } from '../../../storage/sql-client';
import { createSqlMachineStore, type MachineRecord } from './machine-store';

/**
 * One step of a machine's erasure (`DELETE /v1/admin/machines/{id}` and DSR delete): it removes one kind
 * of data tied to the machine.
 *
 * Contract: `run` executes inside the erasure's transaction (every step and the audit event commit
 * together, or nothing is erased) and returns how many rows it removed; `preview` reads only and returns
 * how many `run` would remove now, for the dry run. Steps must not touch audit events (they outlive
 * erasure by design) or aggregate tables (they hold no subject identifiers).
 */
export interface MachineErasureStep {
  /** What the step erases, as the answer names it (`machine`, `telemetry`, …). */
  readonly name: string;
  preview(sql: SqlClient, machine: MachineRecord): Promise<number>;
  run(tx: SqlClient, machine: MachineRecord): Promise<number>;
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
 * reference the machine go first; a step placed after it would meet the foreign key and fail loudly.
 *
 * @example
 * ```ts
 * import { machineErasureSteps, machineOperations } from '@tollgate/core';
 * const operations = machineOperations({ ...deps, erasureSteps: [telemetryErasure, ...machineErasureSteps] });
 * ```
 */
export const machineErasureSteps: readonly MachineErasureStep[] = Object.freeze([machineRecordErasure]);

/**
 * Counts, step by step, what erasing the machine would remove.
 *
 * @param sql - The database.
 * @param machine - The machine.
 * @param steps - The cascade.
 * @returns Rows per step name.
 * @example
 * ```ts
 * import { previewMachineErasure, machineErasureSteps } from '@tollgate/core';
 * const wouldErase = await previewMachineErasure(sql, machine, machineErasureSteps);
 * ```
 */
export async function previewMachineErasure(sql: SqlClient, machine: MachineRecord, steps: readonly MachineErasureStep[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) counts[step.name] = (counts[step.name] ?? 0) + (await step.preview(sql, machine));
  return counts;
}

/**
 * Runs the cascade in `tx`, in order.
 *
 * @param tx - The erasure's transaction.
 * @param machine - The machine (locked by `tx`).
 * @param steps - The cascade.
 * @returns Rows removed per step name.
 * @example
 * ```ts
 * import { eraseMachine, machineErasureSteps } from '@tollgate/core';
 * const erased = await eraseMachine(call.sql, machine, machineErasureSteps);
 * ```
 */
export async function eraseMachine(tx: SqlClient, machine: MachineRecord, steps: readonly MachineErasureStep[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const step of steps) counts[step.name] = (counts[step.name] ?? 0) + (await step.run(tx, machine));
  return counts;
}
