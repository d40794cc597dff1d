import { accountOperations } from '../admin/accounts/account-operations';
import { catalogOperations } from '../admin/catalog/catalog-operations';
import { deriveLicenseAdminKeys } from '../admin/admin-keys';
import { licenseOperations } from '../admin/licenses/license-operations';
import { machineOperations } from '../admin/machines/machine-operations';
import { policyOperations } from '../admin/policies/policy-operations';
import type { AdminOperation } from '../admin/admin-operation';
import type { AuditLog } from '../admin/audit/audit-log';
import type { Clock } from '../../time/clock';
import type { SqlClient } from '../../storage/sql-client';
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
 * import { licenseAdminOperations } from '@tollgate/core/license';
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
