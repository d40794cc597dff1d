import * as v from 'valibot';
import type { AdminList, AdminTransport, DestructiveOptions, ReadOptions } from '../transport-types';

/** A machine (an activated device of a license) as the server shows it. */
export const machineSchema = v.looseObject({
  machine_id: v.string(),
  license_id: v.string(),
  /** `active`, `deactivated` or `revoked`. */
  status: v.string(),
  name: v.nullable(v.string()),
  platform: v.nullable(v.string()),
  created_at: v.string(),
  last_seen_at: v.string(),
  deactivated_at: v.nullable(v.string()),
  revoked_at: v.nullable(v.string()),
  revocation_seq: v.nullable(v.number()),
});
/** A machine. */
export type Machine = v.InferOutput<typeof machineSchema>;

/** The query of `machines.list`: every filter optional. */
export interface MachineListQuery {
  /** Only this license's machines (another vendor's license is 404 `not_found`). */
  readonly licenseId?: string;
  readonly status?: 'active' | 'deactivated' | 'revoked';
  /** Page size, 1 to 200 (server default 50). */
  readonly limit?: number;
}

/** The body of the revoke routes: an optional reason code (0 to 255) recorded with the revocation. */
export interface RevokeInput {
  readonly reason?: number;
}

/** What a machine revocation would do (nothing was changed). */
export const machineRevokeDryRunSchema = v.looseObject({
  dry_run: v.literal(true),
  machine_id: v.string(),
  license_id: v.string(),
  already_revoked: v.boolean(),
  would_publish_batch: v.boolean(),
});
/** What a machine revocation would do. */
export type MachineRevokeDryRun = v.InferOutput<typeof machineRevokeDryRunSchema>;

/** An executed machine revocation: the revoked machine and the revocation batch's sequence number. */
export const machineRevokedSchema = v.looseObject({
  dry_run: v.literal(false),
  machine: machineSchema,
  revocation: v.looseObject({ seq: v.number() }),
});
/** An executed machine revocation. */
export type MachineRevoked = v.InferOutput<typeof machineRevokedSchema>;

const subjectFields = {
  subject: v.looseObject({ kind: v.string(), id: v.string() }),
  license_id: v.string(),
  machine_ids: v.array(v.string()),
  /** Rows read and matched against the DSR scan bounds. */
  scan: v.looseObject({}),
  /** Audit events that name the machine and outlive the erasure by design. */
  retained: v.looseObject({ audit_events: v.number(), audit_events_truncated: v.boolean() }),
  audit_tombstone: v.boolean(),
};

/** What erasing a machine would remove, rows per data source (nothing was changed). */
export const machineEraseDryRunSchema = v.looseObject({ dry_run: v.literal(true), ...subjectFields, would_erase: v.record(v.string(), v.number()) });
/** What erasing a machine would remove. */
export type MachineEraseDryRun = v.InferOutput<typeof machineEraseDryRunSchema>;

/** An executed erasure: rows removed per data source. */
export const machineErasedSchema = v.looseObject({ dry_run: v.literal(false), ...subjectFields, erased: v.record(v.string(), v.number()) });
/** An executed erasure. */
export type MachineErased = v.InferOutput<typeof machineErasedSchema>;

/** The `machines` group. */
export interface MachinesResource {
  /**
   * Lists the vendor's machines, newest first (`GET /machines`), every page on demand.
   *
   * @example `for await (const machine of admin.machines.list({ licenseId, status: 'active' })) console.log(machine.machine_id);`
   */
  list(query?: MachineListQuery, options?: ReadOptions): AdminList<Machine>;
  /**
   * Revokes one machine (`POST /machines/:machineId/revoke`, destructive): a dry run unless `{ dryRun: false }`.
   * Confirmed, a revoked machine is 409 `already_revoked`, one held by another revocation 409 `revocation_in_progress`.
   *
   * @example `const result = await admin.machines.revoke(machineId, { reason: 3 }, { dryRun: false });`
   */
  revoke(machineId: string, input?: RevokeInput, options?: DestructiveOptions): Promise<MachineRevokeDryRun | MachineRevoked>;
  /**
   * Erases a machine and every record held about it (`DELETE /machines/:machineId`, the data-subject delete
   * of one machine; destructive): a dry run unless `{ dryRun: false }`. Audit events are retained.
   *
   * @example `const preview = await admin.machines.erase(machineId); // preview.would_erase`
   */
  erase(machineId: string, options?: DestructiveOptions): Promise<MachineEraseDryRun | MachineErased>;
}

const revokeAnswerSchema = v.variant('dry_run', [machineRevokeDryRunSchema, machineRevokedSchema]);
const eraseAnswerSchema = v.variant('dry_run', [machineEraseDryRunSchema, machineErasedSchema]);

/**
 * Builds the `machines` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const machines = createMachinesResource(transport);
 * const preview = await machines.revoke(machineId);
 * if (preview.dry_run && !preview.already_revoked) await machines.revoke(machineId, {}, { dryRun: false });
 * ```
 */
export function createMachinesResource(transport: AdminTransport): MachinesResource {
  const machinePath = (machineId: string) => `/machines/${encodeURIComponent(machineId)}`;
  return {
    list: (query = {}, options) =>
      transport.list({ path: '/machines', query: { license_id: query.licenseId, status: query.status, limit: query.limit }, itemsKey: 'machines', itemSchema: machineSchema, options }),
    revoke: async (machineId, input = {}, options) =>
      (await transport.request({ method: 'POST', path: `${machinePath(machineId)}/revoke`, kind: 'destructive', body: { reason: input.reason }, schema: revokeAnswerSchema, options })).body,
    erase: async (machineId, options) => (await transport.request({ method: 'DELETE', path: machinePath(machineId), kind: 'destructive', schema: eraseAnswerSchema, options })).body,
  };
}
