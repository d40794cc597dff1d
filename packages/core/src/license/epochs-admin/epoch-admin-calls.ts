import { AdminError } from '../../errors/admin';
import type { AdminCall } from '../admin/admin-operation';
import { adminPathId } from '../admin/admin-input';
import { administersGlobalEpochs, readAdministeredEpoch, type AdministeredEpoch } from './epoch-admin-store';
import type { EpochAdminDeps } from './epoch-views';

/** The epoch id (hex) a path names: 8 bytes of lower-case hex, else `not_found`. */
export const epochPathId = (value: string | undefined): string => adminPathId(value, 'epoch', 8);

/**
 * Hands a trust-chain change to the server once the caller's transaction has committed. The operation
 * runs inside the journal's transaction, which holds the epoch row lock (`FOR UPDATE`) until it ends; a
 * `FOR SHARE` read on the database itself queues behind it (on PGlite behind the transaction), then a
 * fresh read tells whether the change committed. After a rollback nothing is announced; failures are
 * dropped (the periodic keyset refresh and the database's own notices still carry the change).
 *
 * @param deps - The database and the callback.
 * @param epochId - The epoch whose row the transaction locked.
 * @param notice - The notice to hand over.
 * @param committed - Whether the row, read after the commit, shows the change.
 *
 * @example
 * ```ts
 * import { announceEpochChangeAfterCommit } from '@tollgate/core/license';
 * announceEpochChangeAfterCommit(deps, epoch.epochId, `epoch:${epoch.epochIdHex}:revoked`, (status) => status === 'revoked');
 * ```
 */
export function announceEpochChangeAfterCommit(deps: EpochAdminDeps, epochId: Uint8Array, notice: string, committed: (status: string, carried: boolean) => boolean): void {
  const announce = deps.afterTrustChange;
  if (announce === undefined) return;
  void (async () => {
    await deps.sql.query('SELECT 1 FROM license_epochs WHERE epoch_id = $1 FOR SHARE', [epochId]);
    const { rows } = await deps.sql.query<{ status: string; carried: boolean }>(
      'SELECT status, EXISTS (SELECT 1 FROM license_epoch_certificates c WHERE c.epoch_id = e.epoch_id) AS carried FROM license_epochs e WHERE epoch_id = $1',
      [epochId],
    );
    const row = rows[0];
    if (row !== undefined && committed(row.status, row.carried)) announce(notice);
  })().catch(() => undefined);
}

/**
 * Reads the epoch the path names (`:epochId`) for the caller's vendor, or refuses `not_found` (missing,
 * malformed, or another vendor's: the same answer).
 *
 * @param call - The Admin call.
 * @param deps - Who administers global epochs.
 * @param options - `lock`: lock the epoch row for the rest of the transaction.
 * @returns The epoch.
 * @throws AdminError `not_found`.
 *
 * @example
 * ```ts
 * import { requireAdministeredEpoch } from '@tollgate/core/license';
 * const epoch = await requireAdministeredEpoch(call, deps, { lock: true });
 * ```
 */
export async function requireAdministeredEpoch(call: AdminCall, deps: EpochAdminDeps, options: { lock?: boolean } = {}): Promise<AdministeredEpoch> {
  const epochIdHex = epochPathId(call.params['epochId']);
  const globalToo = await administersGlobalEpochs(call.sql, deps, call.actor.vendorId);
  const epoch = await readAdministeredEpoch(call.sql, call.actor.vendorId, epochIdHex, { globalToo, ...options });
  if (epoch === undefined) throw new AdminError('not_found', 'No such epoch.');
  return epoch;
}

