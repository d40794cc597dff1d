import type { Signer } from '../../../crypto/signer';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { pickSigningEpoch, type SigningEpoch } from '../../signing-epochs';
import { publishRevocationBatch, type PublishedRevocationBatch, type RevocationBatchInput } from '../../storage/revocation-store';
import { TrustChainError } from '../../trust-chain-error';
import type { AdminCall } from '../admin-operation';

/** What the revoke routes need to sign and announce a revocation batch. */
export interface AdminRevocationDeps {
  /** The database itself (not a transaction): the post-commit notice waits on it. */
  readonly sql: SqlClient;
  /**
   * The active epochs this instance can sign with (the server passes `trust.signingEpochs()`). Batches
   * take a global one, offline keys one for their product (`pickSigningEpoch`).
   */
  signingEpochs(): readonly SigningEpoch[];
  /**
   * Called once a confirmed revocation has committed, with the batch it published: the server refreshes
   * its keyset (which carries the revocation epoch). Never called for a rolled-back revocation or a
   * journaled replay. Must not throw; the periodic keyset refresh is the fallback if it is left out.
   */
  afterRevocationPublished?(published: { seq: number }): void;
}

/**
 * The signer of an artifact now: a global epoch for revocation batches (no `productId`), else the
 * product's own epoch or a global one. No usable epoch is 503 `service_unavailable` (a retry after the
 * next epoch rotation or keyset refresh can succeed, so it is not journaled).
 *
 * @param epochs - The instance's signing epochs.
 * @param now - The time of the call.
 * @param productId - The product of a product-bound artifact.
 * @returns The signer.
 * @throws AdminError `service_unavailable`.
 * @example
 * ```ts
 * import { adminArtifactSigner } from '@tollgate/core/license';
 * const signer = adminArtifactSigner(deps.signingEpochs(), call.now);
 * ```
 */
export function adminArtifactSigner(epochs: readonly SigningEpoch[], now: Date, productId?: string): Signer {
  try {
    return pickSigningEpoch(epochs, { now: Math.floor(now.getTime() / 1000), ...(productId === undefined ? {} : { productId }) }).signer;
  } catch (error) {
    if (error instanceof TrustChainError) throw new AdminError('service_unavailable', 'No signing epoch is active on this server; try again after the keyset refresh.', { cause: error });
    throw error;
  }
}

/**
 * Publishes a revocation batch in the call's transaction (a savepoint of it), so the batch, the status
 * change and the journaled answer commit together or not at all. A signer the database does not accept
 * (an epoch revoked by another instance since this one's last refresh) is 503 `service_unavailable`.
 *
 * @param call - The confirmed revoke call (`call.sql` is the journal's transaction).
 * @param deps - Signing epochs.
 * @param input - The ids to revoke.
 * @returns The published batch.
 * @throws AdminError `service_unavailable`.
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { publishAdminRevocation } from '@tollgate/core/license';
 * const { seq } = await publishAdminRevocation(call, deps, { licenseIds: [hexDecode(licenseId)] });
 * ```
 */
export async function publishAdminRevocation(call: AdminCall, deps: AdminRevocationDeps, input: RevocationBatchInput): Promise<PublishedRevocationBatch> {
  const signer = adminArtifactSigner(deps.signingEpochs(), call.now);
  try {
    return await publishRevocationBatch(call.sql, signer, input, { clock: { now: () => call.now.getTime() } });
  } catch (error) {
    if (error instanceof TrustChainError && error.code === 'invalid_signer') {
      throw new AdminError('service_unavailable', 'The signing epoch is no longer usable; try again after the keyset refresh.', { cause: error });
    }
    throw error;
  }
}

/**
 * Calls `afterRevocationPublished` once the revoking transaction has committed. The operation runs inside
 * the journal's transaction and cannot run code after its commit, so this asks the database instead: a
 * `FOR SHARE` read of the revoked row on the database itself queues behind the transaction's row lock
 * (on PGlite, behind the transaction itself) and returns the committed row once it ends. The batch
 * committed exactly when that row carries its `seq`; after a rollback nothing is announced. Nothing
 * awaits the notice, and a failure of it is dropped: the periodic keyset refresh still picks the batch up.
 *
 * @param deps - The database and the callback.
 * @param row - The row the transaction locked and marked revoked, and the batch's `seq`.
 * @example
 * ```ts
 * import { announceRevocationAfterCommit } from '@tollgate/core/license';
 * announceRevocationAfterCommit(deps, { table: 'license_licenses', idColumn: 'license_id', id: licenseId, seq });
 * ```
 */
export function announceRevocationAfterCommit(
  deps: AdminRevocationDeps,
  row: { table: 'license_licenses' | 'license_machines'; idColumn: 'license_id' | 'machine_id'; id: string; seq: number },
): void {
  const notify = deps.afterRevocationPublished;
  if (notify === undefined) return;
  void deps.sql
    .query<{ revocation_seq: string | null }>(`SELECT revocation_seq FROM ${row.table} WHERE ${row.idColumn} = $1 FOR SHARE`, [row.id])
    .then(({ rows }) => {
      if (rows[0]?.revocation_seq !== undefined && Number(rows[0].revocation_seq) === row.seq) notify({ seq: row.seq });
    })
    .catch(() => undefined);
}
