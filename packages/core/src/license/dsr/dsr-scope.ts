import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import { createSqlLicenseStore } from '../model/licenses/license-store';
import { createSqlMachineStore, type MachineRecord } from '../model/machines/machine-store';
import { DsrBoundExceededError, type DsrBounds } from './dsr-bounds';
import type { DsrScope, DsrSubject } from './subject-data-source';

/**
 * Resolves a subject of the vendor: its license and the machines the request covers. With `lock` (inside
 * the erasure's transaction) the rows are locked until it ends, in the order activations take them —
 * the license first (`FOR NO KEY UPDATE`, so a concurrent activation on it queues and cannot add a
 * machine the erasure would miss), then its machines by id (`FOR UPDATE`) — so an erasure never
 * deadlocks with an activation or a revocation.
 *
 * @param sql - The database, or the erasure's transaction.
 * @param vendorId - The caller's vendor: another vendor's subject is `not_found`.
 * @param subject - The machine or license.
 * @param bounds - MAX_DSR_MACHINES is checked here, before anything is read or locked per machine.
 * @param options - `lock`: take the row locks.
 * @returns The scope.
 * @throws AdminError `not_found`; DsrBoundExceededError past MAX_DSR_MACHINES.
 * @example
 * ```ts
 * import { resolveDsrScope, dsrBounds } from '@tollgate/core/license';
 * const scope = await resolveDsrScope(tx, vendorId, { kind: 'license', id: licenseId }, dsrBounds, { lock: true });
 * ```
 */
export async function resolveDsrScope(sql: SqlClient, vendorId: string, subject: DsrSubject, bounds: DsrBounds, options: { lock: boolean }): Promise<DsrScope> {
  const machines = createSqlMachineStore(sql);
  const licenses = createSqlLicenseStore(sql);
  if (subject.kind === 'machine') {
    let record: MachineRecord | undefined;
    if (options.lock) {
      const outcome = await machines.lock(vendorId, subject.id, { nowait: false });
      record = outcome.kind === 'locked' ? outcome.machine : undefined;
    } else {
      record = await machines.get(vendorId, subject.id);
    }
    if (record === undefined) throw new AdminError('not_found', 'No such machine.');
    const license = await licenses.get(vendorId, record.licenseId);
    if (license === undefined) throw new Error(`Machine ${record.machineId} has no license ${record.licenseId}.`);
    return { vendorId, subject, license, machines: [record] };
  }
  if (options.lock) await sql.query('SELECT 1 FROM license_licenses WHERE license_id = $1 AND vendor_id = $2 FOR NO KEY UPDATE', [subject.id, vendorId]);
  const license = await licenses.get(vendorId, subject.id);
  if (license === undefined) throw new AdminError('not_found', 'No such license.');
  const { rows } = await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_machines WHERE license_id = $1', [license.licenseId]);
  const count = Number(rows[0]?.n ?? 0);
  if (count > bounds.maxMachines) throw new DsrBoundExceededError('maxMachines', bounds.maxMachines, count);
  if (options.lock) await sql.query('SELECT 1 FROM license_machines WHERE license_id = $1 ORDER BY machine_id FOR UPDATE', [license.licenseId]);
  const listed: MachineRecord[] = await machines.list(vendorId, { licenseId: license.licenseId, limit: bounds.maxMachines + 1 });
  // Under the license lock no machine can be added; without it (export, dry run) one may have been.
  if (listed.length > bounds.maxMachines) throw new DsrBoundExceededError('maxMachines', bounds.maxMachines, listed.length);
  return { vendorId, subject, license, machines: [...listed].sort((a, b) => (a.machineId < b.machineId ? -1 : 1)) };
}
