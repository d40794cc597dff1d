import * as v from 'valibot';
import { AdminError } from '../../errors/admin';
import { adminOperation, adminRevokeBodyLimit, type AdminCall, type AdminOperation, type AdminResult } from '../admin/admin-operation';
import { parseAdminInput } from '../admin/admin-input';
import { publishAdminRevocation } from '../admin/licenses/admin-revocation';
import { listEpochCertificates } from './carry-over-certificates';
import { announceEpochChangeAfterCommit, epochPathId, requireAdministeredEpoch } from './epoch-admin-calls';
import { countMachinesUpperBound, replacementCandidates, type AdministeredEpoch } from './epoch-admin-store';
import {
  completeEpochApproval,
  decideEpochRevocationConfirmation,
  openEpochApproval,
  readPendingEpochApproval,
  type PendingEpochApproval,
} from './epoch-revocation-approvals';
import { verifiesUnderPins, type EpochAdminDeps } from './epoch-views';

/** Epoch revocation needs this many distinct Admin actors (license spec, "States and transitions"). */
export const epochRevocationActors = 2;

const revokeSchema = v.strictObject({ confirm_epoch_id: v.optional(v.string()) });

const approvalView = (approval: PendingEpochApproval) => ({
  approval_id: approval.approvalId,
  requested_by: approval.requestedBy,
  requested_at: approval.requestedAt.toISOString(),
  expires_at: approval.expiresAt.toISOString(),
});

/** Active epochs of the same reach, valid now and listed in the keyset, that take over once it is revoked. */
async function readyReplacements(call: AdminCall, deps: EpochAdminDeps, epoch: AdministeredEpoch): Promise<string[]> {
  const certificates = await listEpochCertificates(call.sql);
  const candidates = await replacementCandidates(call.sql, epoch, Math.floor(call.now.getTime() / 1000));
  return candidates.filter((id) => verifiesUnderPins(certificates.get(id), deps));
}

async function dryRun(call: AdminCall, deps: EpochAdminDeps): Promise<AdminResult> {
  const epoch = await requireAdministeredEpoch(call, deps);
  parseAdminInput(revokeSchema, call.body ?? {});
  const replacements = epoch.status === 'revoked' ? [] : await readyReplacements(call, deps, epoch);
  const pending = await readPendingEpochApproval(call.sql, epoch.epochId, call.now);
  const live = pending !== undefined && pending.requesterActive && call.now.getTime() < pending.expiresAt.getTime() ? pending : undefined;
  return {
    body: {
      dry_run: true,
      epoch_id: epoch.epochIdHex,
      status: epoch.status,
      already_revoked: epoch.status === 'revoked',
      affected_machines_upper_bound: epoch.status === 'active' ? await countMachinesUpperBound(call.sql, epoch) : 0,
      replacement_ready: replacements.length > 0,
      replacement_epoch_ids: replacements,
      requires_distinct_actors: epochRevocationActors,
      approval_window_seconds: deps.approvalWindowSeconds,
      approval_pending: live !== undefined,
      approval: live === undefined ? null : approvalView(live),
    },
  };
}

async function confirm(call: AdminCall, deps: EpochAdminDeps): Promise<AdminResult> {
  const pathId = epochPathId(call.params['epochId']);
  // Every confirmation of this epoch queues on its row lock until the transaction ends: two actors
  // confirming at once are decided one after the other, so the revocation executes exactly once.
  const epoch = await requireAdministeredEpoch(call, deps, { lock: true });
  const { confirm_epoch_id: confirmation } = parseAdminInput(revokeSchema, call.body ?? {});
  if (confirmation === undefined) throw new AdminError('invalid_request', 'Confirming an epoch revocation needs confirm_epoch_id: the id of the epoch in the path.');
  if (confirmation !== pathId) throw new AdminError('confirmation_mismatch', `confirm_epoch_id (${confirmation.slice(0, 64)}) is not the epoch in the path (${pathId}).`);
  if (epoch.status === 'revoked') throw new AdminError('already_revoked', `Epoch ${pathId} is already revoked.`);
  if (epoch.status === 'pending') throw new AdminError('invalid_request', `Epoch ${pathId} was never certified: it signs nothing, so there is nothing to revoke.`);
  const replacements = await readyReplacements(call, deps, epoch);
  if (replacements.length === 0) {
    throw new AdminError(
      'replacement_epoch_required',
      `No other active epoch can take over what ${pathId} signs (${epoch.productScope === undefined ? 'a global epoch' : `a global epoch or one scoped to ${epoch.productScope}`}, valid now, listed in the keyset): load one first.`,
    );
  }
  const pending = await readPendingEpochApproval(call.sql, epoch.epochId, call.now);
  const decision = decideEpochRevocationConfirmation(pending, call.actor, call.now);
  if (decision.kind === 'other_vendor') {
    throw new AdminError(
      'second_actor_required',
      `Another vendor opened the approval of revoking epoch ${pathId}: only a second Admin token of that vendor can confirm it before ${decision.approval.expiresAt.toISOString()}; this confirmation does not count.`,
    );
  }
  if (decision.kind === 'same_actor') {
    throw new AdminError('second_actor_required', `This token opened the approval of revoking epoch ${pathId}: another Admin token must confirm it before ${decision.approval.expiresAt.toISOString()}.`);
  }
  if (decision.kind === 'open') {
    const approval = await openEpochApproval(call.sql, {
      epochId: epoch.epochId,
      vendorId: call.actor.vendorId,
      requestedBy: call.actor.tokenId,
      now: call.now,
      windowSeconds: deps.approvalWindowSeconds,
      stale: decision.stale,
    });
    await call.audit({
      action: 'epoch.revoke_requested',
      targetType: 'epoch',
      targetId: pathId,
      summary: { approval_id: approval.approvalId, expires_at: approval.expiresAt.toISOString(), replaced_approval_id: decision.stale?.approvalId ?? null },
    });
    return { status: 202, body: { dry_run: false, approval_pending: true, epoch_id: pathId, requires_distinct_actors: epochRevocationActors, approval: approvalView(approval) } };
  }
  const affected = await countMachinesUpperBound(call.sql, epoch);
  const batch = await publishAdminRevocation(call, { sql: deps.sql, signingEpochs: deps.signingEpochs }, { epochIds: [epoch.epochId] });
  await completeEpochApproval(call.sql, { approvalId: decision.approval.approvalId, approvedBy: call.actor.tokenId, now: call.now, revocationSeq: batch.seq });
  await call.audit({ action: 'epoch.revoke_approved', targetType: 'epoch', targetId: pathId, summary: { approval_id: decision.approval.approvalId, requested_by: decision.approval.requestedBy } });
  await call.audit({
    action: 'epoch.revoke',
    targetType: 'epoch',
    targetId: pathId,
    summary: { approval_id: decision.approval.approvalId, requested_by: decision.approval.requestedBy, approved_by: call.actor.tokenId, revocation_seq: batch.seq, affected_machines_upper_bound: affected },
  });
  announceEpochChangeAfterCommit(deps, epoch.epochId, `epoch:${pathId}:revoked`, (status) => status === 'revoked');
  return {
    body: {
      dry_run: false,
      approval_pending: false,
      revoked: true,
      epoch_id: pathId,
      revocation: { seq: batch.seq, affected_machines_upper_bound: affected },
      replacement_epoch_ids: replacements,
      approval: { ...approvalView(decision.approval), approved_by: call.actor.tokenId },
    },
  };
}

/**
 * `POST /v1/admin/epochs/:epochId/revoke` (scopes `epochs:rw` and `revoke`, destructive, body of at most
 * 4 KiB `{ confirm_epoch_id }`). Two distinct Admin actors must confirm it.
 *
 * - Dry run (the default): `affected_machines_upper_bound`, `replacement_ready` (with the epoch ids),
 *   `requires_distinct_actors: 2`, the approval window and a live approval if one is pending. Writes
 *   nothing.
 * - Confirmed (`dry_run=false` + `Idempotency-Key`): under the epoch's row lock, `confirm_epoch_id` must
 *   equal the path id (409 `confirmation_mismatch`), the epoch must be active (409 `already_revoked`),
 *   and an active replacement must exist (409 `replacement_epoch_required`). Then the first confirmation
 *   opens an approval for `approvalWindowSeconds` (202 `approval_pending: true`); the same token again
 *   is 409 `second_actor_required`, and so is a token of another vendor (a
 *   global epoch several vendors administer: the two actors are two tokens of one vendor); another token
 *   of the requesting vendor inside the window executes it: a
 *   revocation batch naming the epoch is published (the revocation epoch bumps; the epoch becomes
 *   `revoked` and its sealed key is wiped in the same statement, migration 012), the approval is marked
 *   executed, and after the commit the keyset is republished (`afterTrustChange`). Past the window (or
 *   once the first token is revoked) the approval has expired and the next confirmation opens a new one.
 *   Each confirmation and the execution append audit events.
 *
 * An **actor** is an Admin token: tokens are the only identity of the Admin API, so operators mint one
 * token per person for this to mean two people (docs/decisions.md).
 *
 * @param deps - See `epochOperations`.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import { epochRevokeOperation } from '@tollgate/core/license';
 * const revoke = epochRevokeOperation({ sql, pinnedRoots, signingEpochs: () => trust.signingEpochs(), approvalWindowSeconds: 3600, globalEpochVendors: undefined });
 * ```
 */
export function epochRevokeOperation(deps: EpochAdminDeps): AdminOperation {
  return adminOperation({
    method: 'POST',
    path: '/epochs/:epochId/revoke',
    docs: { summary: 'Revokes a signing epoch: two distinct Admin tokens must confirm (the first opens an approval).', description: 'Confirming (dry_run=false) needs confirm_epoch_id equal to the epoch in the path; the first confirmation answers 202 with approval_pending, a second token then revokes. The body may be empty for a dry run.', body: revokeSchema, errors: ['confirmation_mismatch', 'already_revoked', 'second_actor_required', 'replacement_epoch_required'] },
    scopes: ['epochs:rw', 'revoke'],
    kind: 'destructive',
    maxBodyBytes: adminRevokeBodyLimit,
    run: (call) => (call.dryRun ? dryRun(call, deps) : confirm(call, deps)),
  });
}
