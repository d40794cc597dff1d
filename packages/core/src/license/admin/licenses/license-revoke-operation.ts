import { hexDecode } from '../../../crypto/hex';
import { AdminError } from '../../../errors/admin';
import { adminOperation, adminRevokeBodyLimit, type AdminOperation } from '../admin-operation';
import { adminPathId, parseAdminInput } from '../admin-input';
import { createSqlMachineStore } from '../../model/machines/machine-store';
import { announceRevocationAfterCommit, publishAdminRevocation, type AdminRevocationDeps } from './admin-revocation';
import { licenseView } from '../../model/licenses/license-record';
import { revokeBodySchema } from '../../model/licenses/license-schemas';
import { createSqlLicenseStore } from '../../model/licenses/license-store';

/**
 * `POST /v1/admin/licenses/:licenseId/revoke` (scope `revoke`, destructive, body `{ reason? }` of at
 * most 4 KiB, reason 0–255).
 *
 * - Dry run (the default): `{ dry_run: true, license_id, already_revoked, machines_affected,
 *   would_publish_batch }`, read without writing anything.
 * - Confirmed (`dry_run=false` + `Idempotency-Key`), all in the journal's transaction: the license row is
 *   locked without waiting (held by another revocation or write: 409 `revocation_in_progress`), an
 *   already revoked license is 409 `already_revoked`, then a revocation batch naming the license is
 *   published through the feed, the license and every machine of it not yet revoked become `revoked`
 *   with the batch's `seq`, and the audit event is appended. Clients learn of the machines through the
 *   license id in the batch, so the batch names the license only. Once committed, the server is told
 *   (`afterRevocationPublished`) so its keyset carries the new revocation epoch.
 *
 * @param deps - Signing epochs, the database for the post-commit notice, and the notice.
 * @returns The operation.
 * @example
 * ```ts
 * import { licenseRevokeOperation } from '@tollgate/core/license';
 * const revoke = licenseRevokeOperation({ sql, signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function licenseRevokeOperation(deps: AdminRevocationDeps): AdminOperation {
  return adminOperation({
    method: 'POST',
    path: '/licenses/:licenseId/revoke',
    docs: { summary: 'Revokes a license and its machines, publishing a signed revocation batch.', body: revokeBodySchema, errors: ['already_revoked', 'revocation_in_progress'] },
    scopes: ['revoke'],
    kind: 'destructive',
    maxBodyBytes: adminRevokeBodyLimit,
    run: async (call) => {
      const licenseId = adminPathId(call.params.licenseId, 'license');
      const licenses = createSqlLicenseStore(call.sql);
      const machines = createSqlMachineStore(call.sql);
      if (call.dryRun) {
        const license = await licenses.get(call.actor.vendorId, licenseId);
        if (license === undefined) throw new AdminError('not_found', 'No such license.');
        parseAdminInput(revokeBodySchema, call.body);
        const alreadyRevoked = license.status === 'revoked';
        return {
          body: {
            dry_run: true,
            license_id: licenseId,
            already_revoked: alreadyRevoked,
            machines_affected: alreadyRevoked ? 0 : await machines.countUnrevoked(licenseId),
            would_publish_batch: !alreadyRevoked,
          },
        };
      }
      const lock = await licenses.lockForRevocation(call.actor.vendorId, licenseId);
      if (lock.kind === 'not_found') throw new AdminError('not_found', 'No such license.');
      const { reason } = parseAdminInput(revokeBodySchema, call.body);
      if (lock.kind === 'busy') throw new AdminError('revocation_in_progress', `A revocation of license ${licenseId}, or another change holding it (such as an offline-key mint), is under way; retry shortly.`);
      if (lock.license.status === 'revoked') throw new AdminError('already_revoked', `License ${licenseId} is already revoked.`);

      // Machine rows before the feed head, in the order a machine revoke takes them (no deadlock).
      await machines.lockAllOfLicense(licenseId);
      const batch = await publishAdminRevocation(call, deps, { licenseIds: [hexDecode(licenseId)] });
      const revocation = { at: call.now, seq: batch.seq };
      const revoked = await licenses.markRevoked(licenseId, { ...revocation, reason: reason ?? null });
      // The row is locked by this transaction and was not revoked: the update cannot miss it.
      if (revoked === undefined) throw new Error(`License ${licenseId} changed under its row lock.`);
      const machinesRevoked = await machines.revokeAllOfLicense(licenseId, revocation);
      await call.audit({
        action: 'license.revoke',
        targetType: 'license',
        targetId: licenseId,
        summary: { reason: reason ?? null, revocation_seq: batch.seq, machines_revoked: machinesRevoked },
      });
      announceRevocationAfterCommit(deps, { table: 'license_licenses', idColumn: 'license_id', id: licenseId, seq: batch.seq });
      return { body: { dry_run: false, license: licenseView(revoked, call.now), revocation: { seq: batch.seq, machines_revoked: machinesRevoked } } };
    },
  });
}
