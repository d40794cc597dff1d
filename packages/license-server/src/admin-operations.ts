import { accountOperations, deriveLicenseAdminKeys, type AdminOperation, type AuditLog, type Clock, type SqlClient } from '@tollgate/core';
// TEMPORARY (licenses/machines helper): until admin/index.ts exports them, import from the source folders.
import { licenseOperations } from '../../core/src/license/admin/licenses';
import { machineOperations } from '../../core/src/license/admin/machines';
import type { LicenseTrust } from './trust/license-trust';
import { catalogOperations } from '../../core/src/license/admin/catalog'; // TEMP(catalog-policies helper): until admin/index.ts exports it
import { policyOperations } from '../../core/src/license/admin/policies'; // TEMP(catalog-policies helper)

/** What the Admin API's resource operations are built from. */
export interface LicenseAdminServices {
  readonly sql: SqlClient;
  readonly audit: AuditLog;
  readonly trust: LicenseTrust;
  readonly clock: Clock;
  readonly masterKey: Uint8Array;
}

/**
 * Every resource operation of the Admin API beyond core's own (products): one list, so the route table,
 * the scope matrix and the isolation matrix all see the same operations.
 *
 * @param services - Database, audit log, trust chain, clock, master key.
 * @returns The operations.
 * @example
 * ```ts
 * import { licenseAdminOperations } from '@tollgate/license-server';
 * const operations = licenseAdminOperations({ sql, audit, trust, clock, masterKey });
 * ```
 */
export function licenseAdminOperations(services: LicenseAdminServices): AdminOperation[] {
  const revocation = {
    sql: services.sql,
    signingEpochs: () => services.trust.signingEpochs(),
    // The keyset carries the revocation epoch: rebuild it once the batch has committed (a failure keeps
    // the previous keyset until the periodic refresh).
    afterRevocationPublished: () => void services.trust.refresh().catch(() => undefined),
  };
  return [
    ...accountOperations(),
    ...licenseOperations({ ...revocation, licenseKeyHashKey: deriveLicenseAdminKeys(services.masterKey).licenseKeyHash }),
    ...machineOperations(revocation),
    ...catalogOperations(), // TEMP(catalog-policies helper)
    ...policyOperations(), // TEMP(catalog-policies helper)
  ];
}
