import * as v from 'valibot';
import { isHexId } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import { adminOperation, type AdminCall, type AdminOperation, type AdminResult } from '../admin/admin-operation';
import { adminPathId, parseAdminInput } from '../admin/admin-input';
import { createDsrScanBudget, DsrBoundExceededError, dsrBounds, type DsrBounds } from './dsr-bounds';
import { dsrAuditReferences, previewDsrErasure, runDsrErasure } from './dsr-engine';
import { resolveDsrScope } from './dsr-scope';
import type { DsrScope, DsrSubject, SubjectDataSource } from './subject-data-source';

/** What the data-subject operations are built from (`dsrOperations(deps)`). */
export interface DsrOperationsDeps {
  /** Every place that holds subject data; the export and the erasure cascade both walk this list. */
  readonly sources: readonly SubjectDataSource[];
  /** The DSR bounds ({@link dsrBounds} unless a test shrinks them). */
  readonly bounds?: DsrBounds;
}

const hexId = (field: string) => v.pipe(v.string(), v.check((id) => isHexId(id, 16), `${field} must be 32 lowercase hex digits`));

const subjectSchema = v.pipe(
  v.strictObject({ machine_id: v.optional(hexId('machine_id')), license_id: v.optional(hexId('license_id')) }),
  v.check((body) => (body.machine_id === undefined) !== (body.license_id === undefined), 'exactly one of machine_id or license_id is required'),
);

function subjectOf(body: unknown): DsrSubject {
  const parsed = parseAdminInput(subjectSchema, body ?? {});
  return parsed.machine_id !== undefined ? { kind: 'machine', id: parsed.machine_id } : { kind: 'license', id: parsed.license_id as string };
}

/** Answers a crossed bound as 422 `dsr_bound_exceeded`, naming the bound. */
async function withinBounds<T>(subject: DsrSubject, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DsrBoundExceededError)) throw error;
    const hint = subject.kind === 'license' ? ' Erase the license’s machines one at a time (machine_id requests or DELETE /machines/{id}), then repeat this request.' : '';
    throw new AdminError('dsr_bound_exceeded', `${error.bound} exceeded: ${error.message} Nothing was exported or erased.${hint}`, { cause: error });
  }
}

const subjectView = (scope: DsrScope) => ({
  subject: { kind: scope.subject.kind, id: scope.subject.id },
  license_id: scope.license.licenseId,
  machine_ids: scope.machines.map((machine) => machine.machineId),
});

/**
 * The erasure of one subject, shared by `POST /dsr/delete` and `DELETE /machines/{id}` (its alias for a
 * machine): the same dry run, the same cascade, the same answer and the same audit event.
 */
async function eraseSubject(call: AdminCall, subject: DsrSubject, deps: DsrOperationsDeps): Promise<AdminResult> {
  const bounds = deps.bounds ?? dsrBounds;
  return withinBounds(subject, async () => {
    const scope = await resolveDsrScope(call.sql, call.actor.vendorId, subject, bounds, { lock: !call.dryRun });
    const references = await dsrAuditReferences(call.sql, scope, bounds);
    const retained = { audit_events: references.events.length, audit_events_truncated: references.truncated };
    if (call.dryRun) {
      const preview = await previewDsrErasure(call.sql, scope, deps.sources, bounds);
      return { body: { dry_run: true, ...subjectView(scope), would_erase: preview.counts, scan: preview.scan, retained, audit_tombstone: false } };
    }
    const erased = await runDsrErasure(call.sql, scope, deps.sources, bounds);
    await call.audit({
      action: `${subject.kind}.erase`,
      targetType: subject.kind,
      targetId: subject.id,
      // Ids and counts only: nothing of the erased data survives in the chain.
      summary: { license_id: scope.license.licenseId, machines: scope.machines.length, erased: erased.counts },
    });
    return { body: { dry_run: false, ...subjectView(scope), erased: erased.counts, scan: erased.scan, retained, audit_tombstone: false } };
  });
}

/**
 * The data-subject operations of the Admin API (license spec, "Data-subject requests"; docs/decisions.md
 * "Data-subject requests"):
 *
 * - `POST /dsr/export` (scope `dsr:rw`, a read: not journaled), body exactly one of `machine_id` or
 *   `license_id`: one JSON document `{ subject, license_id, machine_ids, records: { <table>: rows },
 *   audit_references: { events, truncated }, scan }` with every row held about the subject, named by
 *   its table.
 * - `POST /dsr/delete` (scope `dsr:rw`, destructive: dry run first): the erasure cascade of the machine,
 *   or of every machine of the license (≤ MAX_DSR_MACHINES) plus the license's own subject data, in one
 *   transaction. Answer `{ dry_run, subject, license_id, machine_ids, would_erase | erased, scan,
 *   retained, audit_tombstone: false }`.
 * - `DELETE /machines/{id}` (scope `machines:rw`): exactly `POST /dsr/delete` with that `machine_id`.
 *
 * A subject past a bound is refused whole with 422 `dsr_bound_exceeded` naming the bound; nothing is
 * erased. Audit events and aggregate tables are never touched.
 *
 * @param deps - The subject data sources and bounds.
 * @returns The operations.
 * @example
 * ```ts
 * import { coreSubjectDataSources, dsrOperations } from '@tollgate/core/license';
 * const operations = dsrOperations({ sources: [...coreSubjectDataSources, telemetrySource] });
 * ```
 */
export function dsrOperations(deps: DsrOperationsDeps): AdminOperation[] {
  const bounds = deps.bounds ?? dsrBounds;
  return [
    adminOperation({
      method: 'POST',
      path: '/dsr/export',
      docs: { summary: 'Exports every record of a data subject (a license or machine), within bounds.', body: subjectSchema, errors: ['dsr_bound_exceeded'] },
      scopes: ['dsr:rw'],
      kind: 'read',
      run: async (call) => {
        const subject = subjectOf(call.body);
        return withinBounds(subject, async () => {
          const scope = await resolveDsrScope(call.sql, call.actor.vendorId, subject, bounds, { lock: false });
          const scan = createDsrScanBudget(bounds);
          const records: Record<string, unknown[]> = {};
          for (const source of deps.sources) {
            for (const [table, rows] of Object.entries(await source.export(call.sql, scope, scan))) records[table] = [...(records[table] ?? []), ...rows];
          }
          const audit = await dsrAuditReferences(call.sql, scope, bounds);
          return { body: { ...subjectView(scope), generated_at: call.now.toISOString(), records, audit_references: audit, scan: scan.usage() } };
        });
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/dsr/delete',
      docs: { summary: 'Erases the records of a data subject (a license or machine), within bounds.', body: subjectSchema, errors: ['dsr_bound_exceeded'] },
      scopes: ['dsr:rw'],
      kind: 'destructive',
      run: (call) => eraseSubject(call, subjectOf(call.body), deps),
    }),
    adminOperation({
      method: 'DELETE',
      path: '/machines/:machineId',
      docs: { summary: 'Erases one machine and its records (a data-subject erasure).', errors: ['dsr_bound_exceeded'] },
      scopes: ['machines:rw'],
      kind: 'destructive',
      maxBodyBytes: 0,
      run: (call) => eraseSubject(call, { kind: 'machine', id: adminPathId(call.params.machineId, 'machine') }, deps),
    }),
  ];
}
