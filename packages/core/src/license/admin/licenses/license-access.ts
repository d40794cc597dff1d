import { AdminError } from '../../../errors/admin';
import type { AdminCall } from '../admin-operation';
import { adminPathId } from '../admin-input';
import type { LicenseRecord } from '../../model/licenses/license-record';
import { createSqlLicenseStore } from '../../model/licenses/license-store';

/**
 * The vendor's license, or 404 `not_found` (a malformed id and another vendor's license included).
 *
 * @param call - The call (its vendor and database).
 * @param licenseIdParam - The `:licenseId` path parameter.
 * @param options - `forShare`: read it with `LicenseStore.getForShare` (in a confirmed call's
 *   transaction), so a revocation in flight is waited for and none starts until the call ends.
 * @returns The license.
 * @throws AdminError `not_found`.
 * @example
 * ```ts
 * import { requireLicense } from '@tollgate/core/license';
 * const license = await requireLicense(call, call.params.licenseId);
 * ```
 */
export async function requireLicense(call: Pick<AdminCall, 'sql' | 'actor'>, licenseIdParam: string | undefined, options: { forShare?: boolean } = {}): Promise<LicenseRecord> {
  const store = createSqlLicenseStore(call.sql);
  const licenseId = adminPathId(licenseIdParam, 'license');
  const license = options.forShare === true ? await store.getForShare(call.actor.vendorId, licenseId) : await store.get(call.actor.vendorId, licenseId);
  if (license === undefined) throw new AdminError('not_found', 'No such license.');
  return license;
}

/**
 * Refuses any change of a revoked license: 409 `already_revoked`.
 *
 * @param license - The license.
 * @throws AdminError `already_revoked`.
 * @example
 * ```ts
 * import { refuseRevokedLicense } from '@tollgate/core/license';
 * refuseRevokedLicense(await requireLicense(call, call.params.licenseId));
 * ```
 */
export function refuseRevokedLicense(license: Pick<LicenseRecord, 'licenseId' | 'status'>): void {
  if (license.status === 'revoked') throw alreadyRevoked(license.licenseId);
}

/**
 * The 409 `already_revoked` refusal of a change to a revoked license.
 *
 * @param licenseId - The license.
 * @returns The error to throw.
 * @example
 * ```ts
 * import { alreadyRevoked } from '@tollgate/core/license';
 * if (outcome.kind === 'revoked') throw alreadyRevoked(licenseId);
 * ```
 */
export function alreadyRevoked(licenseId: string): AdminError {
  return new AdminError('already_revoked', `License ${licenseId} is revoked; a revoked license never changes.`);
}
