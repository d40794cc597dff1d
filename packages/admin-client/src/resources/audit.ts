import * as v from 'valibot';
import type { AdminList, AdminTransport, ReadOptions } from '../transport-types';

/** One event of the vendor's hash-chained audit log. */
export const AuditEventSchema = v.looseObject({
  seq: v.number(),
  at: v.string(),
  /** The Admin token id (or an alternative caller's audit name) that acted. */
  actor: v.string(),
  action: v.string(),
  target: v.looseObject({ type: v.string(), id: v.string() }),
  /** What changed (secret-like strings redacted). */
  summary: v.record(v.string(), v.unknown()),
  prev_hash: v.string(),
  hash: v.string(),
});
/** An audit event. */
export type AuditEvent = v.InferOutput<typeof AuditEventSchema>;

/**
 * The answer of `POST /audit/verify`: `verified` and `first_broken` for the checked window; `complete:
 * false` with `next_from_seq` when the chain is longer than one window (call again from there).
 */
export const AuditVerificationSchema = v.looseObject({
  verified: v.boolean(),
  event_count: v.number(),
  /** The stored hash of the last event checked, `null` when none was. */
  head: v.nullable(v.string()),
  first_broken: v.nullable(v.number()),
  complete: v.boolean(),
  next_from_seq: v.nullable(v.number()),
});
/** The answer of `audit.verify()`. */
export type AuditVerification = v.InferOutput<typeof AuditVerificationSchema>;

/** Filters of `audit.list()` (newest first). */
export interface AuditListQuery {
  /** E.g. `license`, `machine`, `epoch`. */
  readonly targetType?: string;
  readonly targetId?: string;
  /** Page size, 1 to 200 (default 50). */
  readonly limit?: number;
}

/** What `audit.verify()` checks: at most 10,000 events from `fromSeq` (default 1). */
export interface AuditVerifyInput {
  readonly fromSeq?: number;
  readonly limit?: number;
}

/** The `audit` group (scope `audit:r`). */
export interface AuditResource {
  /** `GET /audit`: paginated, newest first. */
  list(query?: AuditListQuery, options?: ReadOptions): AdminList<AuditEvent>;
  /**
   * `POST /audit/verify` (a read: no idempotency key): recomputes one window of the hash chain.
   *
   * @example
   * ```ts
   * let window = await admin.audit.verify();
   * while (window.verified && !window.complete && window.next_from_seq !== null) window = await admin.audit.verify({ fromSeq: window.next_from_seq });
   * ```
   */
  verify(input?: AuditVerifyInput, options?: ReadOptions): Promise<AuditVerification>;
}

/**
 * Builds the `audit` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * for await (const event of admin.audit.list({ targetType: 'license', targetId: licenseId })) console.log(event.action);
 * ```
 */
export function createAuditResource(transport: AdminTransport): AuditResource {
  return {
    list: (query = {}, options) =>
      transport.list({ path: '/audit', query: { target_type: query.targetType, target_id: query.targetId, limit: query.limit }, itemsKey: 'events', itemSchema: AuditEventSchema, options }),
    verify: async (input, options) => {
      const body = input === undefined ? undefined : { from_seq: input.fromSeq, limit: input.limit };
      return (await transport.request({ method: 'POST', path: '/audit/verify', kind: 'read', body, schema: AuditVerificationSchema, options })).body;
    },
  };
}
