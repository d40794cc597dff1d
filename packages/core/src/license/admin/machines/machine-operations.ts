import * as v from 'valibot';
import { hexDecode } from '../../../crypto/hex';
import { isHexId } from '../../../crypto/random';
import { AdminError } from '../../../errors/admin';
import { adminOperation, adminRevokeBodyLimit, type AdminOperation } from '../admin-operation';
import { adminPathId, pageOf, parseAdminInput, parseAdminPage } from '../admin-input';
import { announceRevocationAfterCommit, publishAdminRevocation, type AdminRevocationDeps } from '../licenses/admin-revocation';
import { revokeBodySchema } from '../../model/licenses/license-schemas';
import { requireLicense } from '../licenses/license-access';
import { createSqlMachineStore, machineView } from '../../model/machines/machine-store';

/** What the machine operations need (`machineOperations(deps)`). */
export type MachineOperationsDeps = AdminRevocationDeps;

const listMachinesQuerySchema = v.object({
  license_id: v.optional(
    v.pipe(
      v.string(),
      v.check((id) => isHexId(id, 16), 'license_id must be 32 lowercase hex digits'),
    ),
  ),
  status: v.optional(v.picklist(['active', 'deactivated', 'revoked'], 'status must be active, deactivated or revoked')),
});

/**
 * The machine operations of the Admin API (docs/decisions.md "License: licenses and machines"):
 *
 * - `GET /machines?license_id=…&status=…&limit=…&cursor=…` (scope `machines:r`): the vendor's machines,
 *   newest first, `{ machines, next_cursor }`. Another vendor's license id simply matches nothing.
 * - `POST /machines/:machineId/revoke` (scope `revoke`, destructive, body `{ reason? }` ≤ 4 KiB): the
 *   same contract as license revocation. Dry run `{ dry_run: true, machine_id, license_id,
 *   already_revoked, would_publish_batch }`; confirmed, the row is locked without waiting (409
 *   `revocation_in_progress`), a revoked machine (also one revoked with its license) is 409
 *   `already_revoked`, and a batch naming the machine is published in the same transaction.
 *
 * `DELETE /machines/:machineId` (erasure) is the data-subject delete of one machine: `dsrOperations`
 * (license/dsr) registers it with the full cascade of every subject data source.
 *
 * @param deps - Signing epochs, post-commit revocation notice.
 * @returns The operations.
 * @example
 * ```ts
 * import { machineOperations } from '@tollgate/core/license';
 * const operations = machineOperations({ sql, signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function machineOperations(deps: MachineOperationsDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/machines',
      docs: { summary: 'Lists machines (filters by license, product, status).', query: listMachinesQuerySchema, paged: true },
      scopes: ['machines:r'],
      kind: 'read',
      run: async (call) => {
        const page = parseAdminPage(call.query);
        const filters = parseAdminInput(listMachinesQuerySchema, call.query);
        // A foreign license filter is 404, like the license itself.
        if (filters.license_id !== undefined) await requireLicense(call, filters.license_id);
        const rows = await createSqlMachineStore(call.sql).list(call.actor.vendorId, {
          limit: page.limit + 1,
          ...(filters.license_id === undefined ? {} : { licenseId: filters.license_id }),
          ...(filters.status === undefined ? {} : { status: filters.status }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.machineId }));
        return { body: { machines: items.map(machineView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/machines/:machineId/revoke',
      docs: { summary: 'Revokes one machine, publishing a signed revocation batch.', body: revokeBodySchema, errors: ['already_revoked', 'revocation_in_progress'] },
      scopes: ['revoke'],
      kind: 'destructive',
      maxBodyBytes: adminRevokeBodyLimit,
      run: async (call) => {
        const machineId = adminPathId(call.params.machineId, 'machine');
        const machines = createSqlMachineStore(call.sql);
        if (call.dryRun) {
          const machine = await machines.get(call.actor.vendorId, machineId);
          if (machine === undefined) throw new AdminError('not_found', 'No such machine.');
          parseAdminInput(revokeBodySchema, call.body);
          const alreadyRevoked = machine.status === 'revoked';
          return { body: { dry_run: true, machine_id: machineId, license_id: machine.licenseId, already_revoked: alreadyRevoked, would_publish_batch: !alreadyRevoked } };
        }
        const lock = await machines.lock(call.actor.vendorId, machineId, { nowait: true });
        if (lock.kind === 'not_found') throw new AdminError('not_found', 'No such machine.');
        const { reason } = parseAdminInput(revokeBodySchema, call.body);
        if (lock.kind === 'busy') throw new AdminError('revocation_in_progress', `A revocation of machine ${machineId} is under way.`);
        if (lock.machine.status === 'revoked') throw new AdminError('already_revoked', `Machine ${machineId} is already revoked.`);

        const batch = await publishAdminRevocation(call, deps, { machineIds: [hexDecode(machineId)] });
        const revoked = await machines.markRevoked(machineId, { at: call.now, seq: batch.seq });
        if (revoked === undefined) throw new Error(`Machine ${machineId} changed under its row lock.`);
        await call.audit({
          action: 'machine.revoke',
          targetType: 'machine',
          targetId: machineId,
          summary: { license_id: revoked.licenseId, reason: reason ?? null, revocation_seq: batch.seq },
        });
        announceRevocationAfterCommit(deps, { table: 'license_machines', idColumn: 'machine_id', id: machineId, seq: batch.seq });
        return { body: { dry_run: false, machine: machineView(revoked), revocation: { seq: batch.seq } } };
      },
    }),
  ];
}
