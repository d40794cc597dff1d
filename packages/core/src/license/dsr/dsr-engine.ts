import type { SqlClient } from '../../storage/sql-client';
import { machineRecordErasure, type ErasureScanBudget, type MachineErasureStep } from '../model/machines/machine-erasure';
import { createDsrScanBudget, type DsrBounds, type DsrScanBudget, type DsrScanUsage } from './dsr-bounds';
import type { DsrScope, LicenseErasureStep, SubjectDataSource } from './subject-data-source';

/** What one erasure (or its dry run) did, per step name, and what its scans read. */
export interface DsrErasureCounts {
  readonly counts: Record<string, number>;
  readonly scan: DsrScanUsage;
}

/** A subject's audit events (newest first, at most MAX_AUDIT_REFERENCES of them). */
export interface DsrAuditReferences {
  readonly events: readonly { seq: number; at: string; actor: string; action: string; target_type: string; target_id: string; summary: unknown }[];
  /** True when more events name the subject than are listed. */
  readonly truncated: boolean;
}

/**
 * Runs one step against the scan budget: a step that charges nothing is charged its count as records
 * read and keys matched, so every row a cascade removes counts against the bounds.
 */
async function charged(scan: DsrScanBudget, work: (budget: ErasureScanBudget) => Promise<number>): Promise<number> {
  let chargedAny = false;
  const count = await work({
    charge(use) {
      chargedAny = true;
      scan.charge(use);
    },
  });
  if (!chargedAny) scan.charge({ records: count, matched: count });
  return count;
}

const add = (counts: Record<string, number>, name: string, count: number) => {
  counts[name] = (counts[name] ?? 0) + count;
};

/** The machine steps of the sources, then the machine's own row (it goes last: the others reference it). */
export function dsrMachineSteps(sources: readonly SubjectDataSource[]): MachineErasureStep[] {
  return [...sources.flatMap((source) => (source.machineErasure === undefined ? [] : [source.machineErasure])), machineRecordErasure];
}

/** The license steps of the sources (license subjects only, after every machine). */
export function dsrLicenseSteps(sources: readonly SubjectDataSource[]): LicenseErasureStep[] {
  return sources.flatMap((source) => (source.licenseErasure === undefined ? [] : [source.licenseErasure]));
}

async function cascade(sql: SqlClient, scope: DsrScope, sources: readonly SubjectDataSource[], bounds: DsrBounds, mode: 'preview' | 'run'): Promise<DsrErasureCounts> {
  const scan = createDsrScanBudget(bounds);
  const counts: Record<string, number> = {};
  for (const machine of scope.machines) {
    for (const step of dsrMachineSteps(sources)) {
      // The machine's own row is not a scanned record: it is bounded by MAX_DSR_MACHINES instead.
      const count = step === machineRecordErasure ? await step[mode](sql, machine) : await charged(scan, (budget) => step[mode](sql, machine, budget));
      add(counts, step.name, count);
    }
  }
  if (scope.subject.kind === 'license') {
    for (const step of dsrLicenseSteps(sources)) add(counts, step.name, await charged(scan, (budget) => step[mode](sql, scope.license, budget)));
  }
  return { counts, scan: scan.usage() };
}

/**
 * Counts what erasing the subject would remove, step by step, reading only (the dry run). It applies the
 * same bounds as the erasure, so a dry run that passes means the erasure will too (unless data arrives
 * in between).
 *
 * @param sql - The database.
 * @param scope - The resolved subject.
 * @param sources - The subject data sources.
 * @param bounds - The DSR bounds.
 * @returns Counts per step and the scan usage.
 * @throws DsrBoundExceededError past a bound.
 * @example
 * ```ts
 * import { previewDsrErasure, resolveDsrScope, dsrBounds } from '@tollgate/core/license';
 * const { counts } = await previewDsrErasure(sql, await resolveDsrScope(sql, vendorId, subject, dsrBounds, { lock: false }), sources, dsrBounds);
 * ```
 */
export function previewDsrErasure(sql: SqlClient, scope: DsrScope, sources: readonly SubjectDataSource[], bounds: DsrBounds): Promise<DsrErasureCounts> {
  return cascade(sql, scope, sources, bounds, 'preview');
}

/**
 * Erases the subject in `tx`: per machine every source's step and then the machine row, then (license
 * subjects) the license steps. A bound crossed or any failure throws, and the caller's transaction rolls
 * back whole: nothing is half-erased. Audit events and aggregate tables are never touched.
 *
 * @param tx - The erasure's transaction (the scope resolved with `lock: true` in it).
 * @param scope - The resolved subject.
 * @param sources - The subject data sources.
 * @param bounds - The DSR bounds.
 * @returns Rows removed per step and the scan usage.
 * @throws DsrBoundExceededError past a bound.
 * @example
 * ```ts
 * import { runDsrErasure } from '@tollgate/core/license';
 * const { counts } = await runDsrErasure(call.sql, scope, sources, bounds);
 * ```
 */
export function runDsrErasure(tx: SqlClient, scope: DsrScope, sources: readonly SubjectDataSource[], bounds: DsrBounds): Promise<DsrErasureCounts> {
  return cascade(tx, scope, sources, bounds, 'run');
}

/**
 * The audit events that name the subject as their target (the machines; for a license subject also the
 * license), newest first, at most `bounds.maxAuditReferences`. Audit events are never erased: they
 * expire with audit retention (license spec, "Limits").
 *
 * @param sql - The database.
 * @param scope - The resolved subject.
 * @param bounds - The DSR bounds.
 * @returns The references.
 * @example
 * ```ts
 * import { dsrAuditReferences } from '@tollgate/core/license';
 * const { events, truncated } = await dsrAuditReferences(sql, scope, bounds);
 * ```
 */
export async function dsrAuditReferences(sql: SqlClient, scope: DsrScope, bounds: DsrBounds): Promise<DsrAuditReferences> {
  const { rows } = await sql.query<{ seq: string; at: Date; actor: string; action: string; target_type: string; target_id: string; summary: string }>(
    `SELECT seq::text AS seq, at, actor, action, target_type, target_id, summary FROM license_audit_events
     WHERE vendor_id = $1 AND ((target_type = 'machine' AND target_id = ANY($2::text[])) OR (target_type = 'license' AND target_id = $3))
     ORDER BY seq DESC LIMIT $4`,
    [scope.vendorId, scope.machines.map((machine) => machine.machineId), scope.subject.kind === 'license' ? scope.license.licenseId : '', bounds.maxAuditReferences + 1],
  );
  const events = rows.slice(0, bounds.maxAuditReferences).map((row) => ({
    seq: Number(row.seq),
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    summary: JSON.parse(row.summary) as unknown,
  }));
  return { events, truncated: rows.length > bounds.maxAuditReferences };
}
