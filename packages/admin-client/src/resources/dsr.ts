import * as v from 'valibot';
import type { AdminTransport, DestructiveOptions, ReadOptions } from '../transport-types';

/** The subject of a data-subject request: one machine, or a license with all its machines. */
export type DsrSubject = { readonly machineId: string; readonly licenseId?: never } | { readonly licenseId: string; readonly machineId?: never };

const scopeEntries = {
  subject: v.looseObject({ kind: v.picklist(['machine', 'license']), id: v.string() }),
  license_id: v.string(),
  machine_ids: v.array(v.string()),
};

/** How much of the DSR scan bounds the request used. */
const scanSchema = v.looseObject({ dates: v.number(), records: v.number(), matched: v.number() });

/** The answer of `POST /dsr/export`: every row held about the subject, named by its table. */
export const DsrExportSchema = v.looseObject({
  ...scopeEntries,
  generated_at: v.string(),
  records: v.record(v.string(), v.array(v.unknown())),
  /** Audit events naming the subject (kept: the chain is never rewritten). */
  audit_references: v.looseObject({ events: v.array(v.unknown()), truncated: v.boolean() }),
  scan: scanSchema,
});
/** The answer of `dsr.export()`. */
export type DsrExport = v.InferOutput<typeof DsrExportSchema>;

const erasureEntries = {
  ...scopeEntries,
  scan: scanSchema,
  retained: v.looseObject({ audit_events: v.number(), audit_events_truncated: v.boolean() }),
  audit_tombstone: v.boolean(),
};

/**
 * The answer of `POST /dsr/delete` (and of `DELETE /machines/:machineId`, its alias): narrow on `dry_run`;
 * counts per erasure step in `would_erase` (dry run) or `erased`.
 */
export const DsrErasureResultSchema = v.variant('dry_run', [
  v.looseObject({ dry_run: v.literal(true), ...erasureEntries, would_erase: v.record(v.string(), v.number()) }),
  v.looseObject({ dry_run: v.literal(false), ...erasureEntries, erased: v.record(v.string(), v.number()) }),
]);
/** The answer of `dsr.delete()`. */
export type DsrErasureResult = v.InferOutput<typeof DsrErasureResultSchema>;

/** The `dsr` group: data-subject requests (scope `dsr:rw`). */
export interface DsrResource {
  /** `POST /dsr/export` (a read: not journaled, no idempotency key). */
  export(subject: DsrSubject, options?: ReadOptions): Promise<DsrExport>;
  /**
   * `POST /dsr/delete` (destructive: a dry run unless `dryRun: false`): the erasure cascade in one
   * transaction; a subject past a bound is refused whole (422 `dsr_bound_exceeded`).
   *
   * @example
   * ```ts
   * const preview = await admin.dsr.delete({ machineId });
   * const done = await admin.dsr.delete({ machineId }, { dryRun: false });
   * ```
   */
  delete(subject: DsrSubject, options?: DestructiveOptions): Promise<DsrErasureResult>;
}

const subjectBody = (subject: DsrSubject) => (subject.machineId !== undefined ? { machine_id: subject.machineId } : { license_id: subject.licenseId });

/**
 * Builds the `dsr` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const { records } = await admin.dsr.export({ licenseId });
 * ```
 */
export function createDsrResource(transport: AdminTransport): DsrResource {
  return {
    export: async (subject, options) => (await transport.request({ method: 'POST', path: '/dsr/export', kind: 'read', body: subjectBody(subject), schema: DsrExportSchema, options })).body,
    delete: async (subject, options) =>
      (await transport.request({ method: 'POST', path: '/dsr/delete', kind: 'destructive', body: subjectBody(subject), schema: DsrErasureResultSchema, options })).body,
  };
}
