import type { RandomSource } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import { adminPathId } from '../admin/admin-input';
import type { AdminCall } from '../admin/admin-operation';
import type { ReleaseRecord } from './release-record';
import { createSqlReleaseStore } from './release-store';

/** What the release operations need (`releaseOperations(deps)`). */
export interface ReleaseOperationsDeps {
  /** The database itself (not a transaction): release changes are announced on its channel after commit. */
  readonly sql: SqlClient;
  /** `deriveReleaseVariantKey(masterKey)`: turns variant seeds into variant ids. */
  readonly variantKey: Uint8Array;
  /** Where release ids and unseeded variant ids come from (the platform CSPRNG unless a test injects one). */
  readonly random?: RandomSource;
}

/**
 * The vendor's release, or 404 `not_found` (a malformed id and another vendor's release included).
 *
 * @param call - The call (its vendor and database).
 * @param releaseIdParam - The `:releaseId` path parameter.
 * @param options - `forUpdate`: lock the row in the confirmed call's transaction, so the state the call
 *   reports as "before" is the one it changes.
 * @returns The release.
 * @throws AdminError `not_found`.
 * @example
 * ```ts
 * import { requireRelease } from '@tollgate/core/license';
 * const release = await requireRelease(call, call.params.releaseId);
 * ```
 */
export async function requireRelease(call: Pick<AdminCall, 'sql' | 'actor'>, releaseIdParam: string | undefined, options: { forUpdate?: boolean } = {}): Promise<ReleaseRecord> {
  const store = createSqlReleaseStore(call.sql);
  const releaseId = adminPathId(releaseIdParam, 'release');
  const release = options.forUpdate === true ? await store.getForUpdate(call.actor.vendorId, releaseId) : await store.get(call.actor.vendorId, releaseId);
  if (release === undefined) throw new AdminError('not_found', 'No such release.');
  return release;
}
