import * as v from 'valibot';
import { adminOperation, type AdminOperation } from '../admin-operation';
import { parseAdminInput } from '../admin-input';
import type { AuditEvent, AuditLog } from './audit-log';

/** Most events one `POST /audit/verify` checks (license spec, "Limits"). */
export const maxAuditVerifyEvents = 10_000;

const listQuery = v.strictObject({
  target_type: v.optional(v.pipe(v.string(), v.regex(/^[a-z_]{1,40}$/))),
  target_id: v.optional(v.pipe(v.string(), v.regex(/^[\x21-\x7e]{1,128}$/))),
  cursor: v.optional(v.string()),
  limit: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,2}$/), v.transform(Number), v.maxValue(200))),
});

const verifyBody = v.optional(
  v.strictObject({
    from_seq: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(maxAuditVerifyEvents))),
  }),
);

function eventView(event: AuditEvent) {
  return {
    seq: event.seq,
    at: new Date(event.at).toISOString(),
    actor: event.actor,
    action: event.action,
    target: { type: event.targetType, id: event.targetId },
    summary: event.summary,
    prev_hash: event.prevHash,
    hash: event.hash,
  };
}

/**
 * `GET /v1/admin/audit` (newest first; `target_type` and `target_id` filters, `cursor`, `limit` ≤ 200)
 * and `POST /v1/admin/audit/verify` (recomputes the caller's chain: at most 10,000 events from
 * `from_seq`, default 1 → `verified`, `event_count`, `head`, `first_broken`, and `complete` /
 * `next_from_seq` when the chain is longer than the window). Scope `audit:r`. Each
 * vendor has its own chain, so neither route can see or be affected by another vendor's events.
 *
 * @param audit - The audit log.
 * @returns The operations.
 * @example
 * ```ts
 * import { auditOperations, createSqlAuditLog } from '@tollgate/core/license';
 * const operations = auditOperations(createSqlAuditLog(sql));
 * ```
 */
export function auditOperations(audit: AuditLog): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/audit',
      docs: { summary: "Lists the vendor's audit events (filters by target).", query: listQuery },
      scopes: ['audit:r'],
      kind: 'read',
      run: async (call) => {
        const query = parseAdminInput(listQuery, call.query);
        const page = await audit.list(call.actor.vendorId, {
          limit: query.limit ?? 50,
          ...(query.target_type === undefined ? {} : { targetType: query.target_type }),
          ...(query.target_id === undefined ? {} : { targetId: query.target_id }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        return { body: { events: page.events.map(eventView), next_cursor: page.nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/audit/verify',
      docs: { summary: 'Verifies the hash chain of the audit log over a range of events.', body: verifyBody },
      scopes: ['audit:r'],
      kind: 'read',
      maxBodyBytes: 1024,
      run: async (call) => {
        const body = parseAdminInput(verifyBody, call.body) ?? {};
        const fromSeq = body.from_seq ?? 1;
        const result = await audit.verify(call.actor.vendorId, { fromSeq, limit: body.limit ?? maxAuditVerifyEvents });
        // A chain longer than one call is checked in windows: say where the next window starts, so a
        // partial check is never mistaken for the whole chain.
        const newest = (await audit.list(call.actor.vendorId, { limit: 1 })).events[0]?.seq ?? 0;
        const lastChecked = fromSeq + result.event_count - 1;
        const complete = !result.verified || lastChecked >= newest;
        return { body: { ...result, complete, next_from_seq: complete ? null : lastChecked + 1 } };
      },
    }),
  ];
}
