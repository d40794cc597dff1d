import { accountOperations, catalogOperations, deriveLicenseAdminKeys, licenseOperations, machineOperations, policyOperations, type AdminOperation, type AuditLog, type Clock, type SqlClient } from '@tollgate/core';
import type { LicenseTrust } from './trust/license-trust';

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
    ...catalogOperations(),
    ...policyOperations(),
  ];
}
