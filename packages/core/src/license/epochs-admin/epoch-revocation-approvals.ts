import { randomId } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';

/** The approval of an epoch revocation that a confirmation finds (the latest `pending` one). */
export interface PendingEpochApproval {
  readonly approvalId: string;
  /** The vendor of the first confirmation: only its tokens may give the second. */
  readonly vendorId: string;
  /** The Admin token id of the first confirmation. */
  readonly requestedBy: string;
  readonly requestedAt: Date;
  readonly expiresAt: Date;
  /** False when the requesting token was revoked or expired since: its confirmation no longer counts. */
  readonly requesterActive: boolean;
}

/** The Admin token confirming an epoch revocation. */
export interface ConfirmingActor {
  readonly tokenId: string;
  readonly vendorId: string;
}

/**
 * What a confirmation of an epoch revocation does, decided from the pending approval (if any), the
 * confirming actor and the time:
 * - `open`: no live approval (none, expired at `now`, or its requester's token is no longer valid):
 *   open one for this actor (`stale` names the approval to mark `expired` first);
 * - `same_actor`: the actor who opened the live approval confirms again: 409 `second_actor_required`;
 * - `other_vendor`: a token of another vendor (a global epoch administered by several vendors,
 *   `LICENSE_EPOCH_ADMIN_VENDORS`) confirms a live approval: it does not count, 409
 *   `second_actor_required` (a token of the requesting vendor must confirm, or the window must pass);
 * - `execute`: another token of the requesting vendor confirms inside the window: the revocation executes.
 */
export type ConfirmationDecision =
  | { readonly kind: 'open'; readonly stale: PendingEpochApproval | undefined }
  | { readonly kind: 'same_actor'; readonly approval: PendingEpochApproval }
  | { readonly kind: 'other_vendor'; readonly approval: PendingEpochApproval }
  | { readonly kind: 'execute'; readonly approval: PendingEpochApproval };

/**
 * The two-actor rule as a pure function. An approval is live while `now < expiresAt` (the window is
 * half-open, like epoch windows) and its requester's token is still valid. The two actors are two
 * tokens of one vendor (migration 014): a vendor cannot complete, nor replace, another vendor's live
 * approval of a shared global epoch.
 *
 * @param approval - The pending approval, if any.
 * @param actor - The confirming Admin token and its vendor.
 * @param now - The time of the confirmation.
 * @returns The decision.
 *
 * @example
 * ```ts
 * import { decideEpochRevocationConfirmation } from '@tollgate/core/license';
 * const decision = decideEpochRevocationConfirmation(pending, call.actor, call.now);
 * if (decision.kind === 'execute') await execute();
 * ```
 */
export function decideEpochRevocationConfirmation(approval: PendingEpochApproval | undefined, actor: ConfirmingActor, now: Date): ConfirmationDecision {
  if (approval === undefined) return { kind: 'open', stale: undefined };
  if (now.getTime() >= approval.expiresAt.getTime() || !approval.requesterActive) return { kind: 'open', stale: approval };
  if (approval.vendorId !== actor.vendorId) return { kind: 'other_vendor', approval };
  if (approval.requestedBy === actor.tokenId) return { kind: 'same_actor', approval };
  return { kind: 'execute', approval };
}

type ApprovalRow = { approval_id: string; vendor_id: string; requested_by: string; requested_at: Date; expires_at: Date; requester_active: boolean };

/**
 * The pending approval of an epoch's revocation, with whether its requester's token is still valid at
 * `now` (not revoked, not expired). Read under the epoch's row lock (`readAdministeredEpoch` with
 * `lock`), so it cannot change before the caller decides.
 *
 * @param sql - The caller's transaction.
 * @param epochId - The epoch.
 * @param now - The time of the confirmation.
 * @returns The approval, or `undefined`.
 *
 * @example
 * ```ts
 * import { readPendingEpochApproval } from '@tollgate/core/license';
 * const pending = await readPendingEpochApproval(call.sql, epoch.epochId, call.now);
 * ```
 */
export async function readPendingEpochApproval(sql: SqlClient, epochId: Uint8Array, now: Date): Promise<PendingEpochApproval | undefined> {
  const { rows } = await sql.query<ApprovalRow>(
    `SELECT a.approval_id, a.vendor_id, a.requested_by, a.requested_at, a.expires_at,
            (t.token_id IS NOT NULL AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)) AS requester_active
       FROM license_epoch_revocation_approvals a LEFT JOIN license_admin_tokens t ON t.token_id = a.requested_by AND t.vendor_id = a.vendor_id
      WHERE a.epoch_id = $1 AND a.status = 'pending'`,
    [epochId, now],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { approvalId: row.approval_id, vendorId: row.vendor_id, requestedBy: row.requested_by, requestedAt: row.requested_at, expiresAt: row.expires_at, requesterActive: row.requester_active };
}

/**
 * Opens an approval for the first confirmation (after marking a stale one `expired`). The partial
 * unique index allows one pending approval per epoch.
 *
 * @param sql - The caller's transaction.
 * @param input - Epoch, vendor, requesting token, time, window, and the stale approval to expire.
 * @returns The new approval.
 *
 * @example
 * ```ts
 * import { openEpochApproval } from '@tollgate/core/license';
 * const approval = await openEpochApproval(call.sql, { epochId, vendorId, requestedBy: call.actor.tokenId, now: call.now, windowSeconds: 3600 });
 * ```
 */
export async function openEpochApproval(
  sql: SqlClient,
  input: { epochId: Uint8Array; vendorId: string; requestedBy: string; now: Date; windowSeconds: number; stale?: PendingEpochApproval | undefined },
): Promise<PendingEpochApproval> {
  if (input.stale !== undefined) {
    await sql.query(`UPDATE license_epoch_revocation_approvals SET status = 'expired' WHERE approval_id = $1 AND status = 'pending'`, [input.stale.approvalId]);
  }
  const approvalId = randomId();
  const expiresAt = new Date(input.now.getTime() + input.windowSeconds * 1000);
  await sql.query(
    `INSERT INTO license_epoch_revocation_approvals (approval_id, epoch_id, vendor_id, requested_by, requested_at, expires_at, status)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending')`,
    [approvalId, input.epochId, input.vendorId, input.requestedBy, input.now, expiresAt],
  );
  return { approvalId, vendorId: input.vendorId, requestedBy: input.requestedBy, requestedAt: input.now, expiresAt, requesterActive: true };
}

/**
 * Marks an approval executed by the second actor, with the revocation batch that carried it out.
 *
 * @param sql - The caller's transaction.
 * @param input - The approval, the approving token, the time and the batch's seq.
 *
 * @example
 * ```ts
 * import { completeEpochApproval } from '@tollgate/core/license';
 * await completeEpochApproval(call.sql, { approvalId, approvedBy: call.actor.tokenId, now: call.now, revocationSeq: batch.seq });
 * ```
 */
export async function completeEpochApproval(sql: SqlClient, input: { approvalId: string; approvedBy: string; now: Date; revocationSeq: number }): Promise<void> {
  const { rowCount } = await sql.query(
    `UPDATE license_epoch_revocation_approvals SET status = 'executed', approved_by = $2, executed_at = $3, revocation_seq = $4
      WHERE approval_id = $1 AND status = 'pending'`,
    [input.approvalId, input.approvedBy, input.now, input.revocationSeq],
  );
  // The epoch row lock is held since the approval was read: nothing else could have moved it.
  if (rowCount !== 1) throw new Error(`Epoch revocation approval ${input.approvalId} changed under the epoch's row lock.`);
}

/**
 * The latest approval of an epoch's revocation in any state, for the detail view.
 *
 * @param sql - The database.
 * @param epochId - The epoch.
 * @returns Its state, times and actors, or `undefined`.
 *
 * @example
 * ```ts
 * import { readLatestEpochApproval } from '@tollgate/core/license';
 * const latest = await readLatestEpochApproval(sql, epoch.epochId);
 * ```
 */
export async function readLatestEpochApproval(
  sql: SqlClient,
  epochId: Uint8Array,
): Promise<{ approvalId: string; status: 'pending' | 'executed' | 'expired'; requestedBy: string; requestedAt: Date; expiresAt: Date; approvedBy: string | undefined; revocationSeq: number | undefined } | undefined> {
  const { rows } = await sql.query<{ approval_id: string; status: 'pending' | 'executed' | 'expired'; requested_by: string; requested_at: Date; expires_at: Date; approved_by: string | null; revocation_seq: string | null }>(
    `SELECT approval_id, status, requested_by, requested_at, expires_at, approved_by, revocation_seq FROM license_epoch_revocation_approvals
      WHERE epoch_id = $1 ORDER BY requested_at DESC, approval_id LIMIT 1`,
    [epochId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    approvalId: row.approval_id,
    status: row.status,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    approvedBy: row.approved_by ?? undefined,
    revocationSeq: row.revocation_seq === null ? undefined : Number(row.revocation_seq),
  };
}
