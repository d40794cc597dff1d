import type { SqlClient } from '../../../storage/sql-client';
import { analyticsOperations } from '../../analytics/analytics-operations';
import { subscriptionOperations } from '../../analytics/subscriptions/subscription-operations';
import { assetKeyOperations } from '../../asset-keys/asset-key-operations';
import { checkoutTokenOperation } from '../../billing/checkout-token-operation';
import { dsrOperations } from '../../dsr/dsr-operations';
import { epochOperations } from '../../epochs-admin/epoch-operations';
import { integrityOperations } from '../../integrity/integrity-operations';
import { releaseOperations } from '../../releases/release-operations';
import { telemetryOperations } from '../../telemetry/telemetry-operations';
import { accountOperations } from '../accounts/account-operations';
import type { AdminOperation } from '../admin-operation';
import type { AuditLog } from '../audit/audit-log';
import { auditOperations } from '../audit/audit-operations';
import { catalogOperations } from '../catalog/catalog-operations';
import { licenseOperations } from '../licenses/license-operations';
import { machineOperations } from '../machines/machine-operations';
import { policyOperations } from '../policies/policy-operations';
import { productOperations } from '../product-operations';
import type { VendorStore } from '../vendor-store';

// The catalog only reads the operations' static parts (method, path, scopes, kind, docs): every
// dependency is inert, and one that is ever called means an operation ran, which is a bug here.
const unusable = (what: string) => (): never => {
  throw new Error(`adminOperationCatalog: ${what} is not available: the catalog's operations are for documentation, never run`);
};
const sql = new Proxy({} as SqlClient, { get: (_target, name) => unusable(`sql.${String(name)}`) });
const audit = new Proxy({} as AuditLog, { get: (_target, name) => unusable(`audit.${String(name)}`) });
const key = new Uint8Array(32);

/**
 * Every Admin operation a license server routes, built with inert dependencies: what `npm run openapi`
 * documents without starting a server. The license server's own list (`server.context.admin.operations`)
 * must hold exactly these operations; a license-server test compares them, so a new operation or module
 * that is not added here fails there.
 *
 * @returns The operations, in no particular order (the document sorts them).
 * @example
 * ```ts
 * import { adminOperationCatalog, buildAdminOpenApiDocument } from '@tollgate/core/license';
 * const document = buildAdminOpenApiDocument(adminOperationCatalog());
 * ```
 */
export function adminOperationCatalog(): AdminOperation[] {
  const revocation = { sql, signingEpochs: () => [], afterRevocationPublished: () => undefined };
  return [
    // createLicenseAdminApi's own.
    ...productOperations((): VendorStore => unusable('vendor store')(), key),
    ...auditOperations(audit),
    ...releaseOperations({ sql, variantKey: key }),
    // The license server's resources (licenseAdminOperations).
    ...accountOperations(),
    ...licenseOperations({ ...revocation, licenseKeyHashKey: key }),
    ...machineOperations(revocation),
    ...catalogOperations(),
    ...policyOperations(),
    // The license server's modules.
    ...epochOperations({ sql, pinnedRoots: [], signingEpochs: () => [], approvalWindowSeconds: 1, globalEpochVendors: [], afterTrustChange: () => undefined }),
    ...assetKeyOperations({ sql, masterKey: key }),
    ...integrityOperations({ masterKey: key }),
    checkoutTokenOperation({ checkoutTokenKey: key }),
    ...telemetryOperations({ retentionDays: 1 }),
    ...analyticsOperations({ kAnonymityThreshold: 1, metricLimits: { maxDays: 1, maxSeries: 1 }, exportLimits: { maxRows: 1, maxDays: 1 } }),
    ...subscriptionOperations({ masterKey: key, metrics: { check: unusable('metrics.check') } }),
    ...dsrOperations({ sources: [] }),
  ];
}
