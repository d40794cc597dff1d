import { createTransport, type AdminClientOptions } from './transport';
import { createLicensesResource, type LicensesResource } from './resources/licenses';
import { createMachinesResource, type MachinesResource } from './resources/machines';
import { createAccountsResource, type AccountsResource } from './resources/accounts';
import { createCatalogResource, type CatalogResource } from './resources/catalog';
import { createPoliciesResource, type PoliciesResource } from './resources/policies';
import { createProductsResource, type ProductsResource } from './resources/products';
import { createBillingResource, type BillingResource } from './resources/billing';
import { createEpochsResource, type EpochsResource } from './resources/epochs';
import { createReleasesResource, type ReleasesResource } from './resources/releases';
import { createAssetKeksResource, type AssetKeksResource } from './resources/asset-keks';
import { createIntegrityResource, type IntegrityResource } from './resources/integrity';
import { createAuditResource, type AuditResource } from './resources/audit';
import { createAnalyticsResource, type AnalyticsResource } from './resources/analytics';
import { createDsrResource, type DsrResource } from './resources/dsr';
import { createTelemetryResource, type TelemetryResource } from './resources/telemetry';

/** The Admin API client: one group per resource, each method one Admin route. */
export interface AdminClient {
  readonly licenses: LicensesResource;
  readonly machines: MachinesResource;
  readonly accounts: AccountsResource;
  readonly catalog: CatalogResource;
  readonly policies: PoliciesResource;
  readonly products: ProductsResource;
  readonly billing: BillingResource;
  readonly epochs: EpochsResource;
  readonly releases: ReleasesResource;
  readonly assetKeks: AssetKeksResource;
  readonly integrity: IntegrityResource;
  readonly audit: AuditResource;
  readonly analytics: AnalyticsResource;
  readonly dsr: DsrResource;
  readonly telemetry: TelemetryResource;
}

/**
 * Creates an Admin API client.
 *
 * Every mutation sends an `Idempotency-Key` (the caller's, or one generated per call and reused across
 * the client's own retries); destructive calls are dry runs unless `{ dryRun: false }`; errors are
 * `AdminApiError` (server code, status, request id), `AdminNetworkError` or `AdminTimeoutError`.
 *
 * @param options - Server URL, token, and transport limits.
 * @returns The client.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl: 'https://license.example.com', token: process.env.TOLLGATE_ADMIN_TOKEN! });
 * for await (const license of admin.licenses.list({ productId })) console.log(license.license_id);
 * ```
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  const transport = createTransport(options);
  return {
    licenses: createLicensesResource(transport),
    machines: createMachinesResource(transport),
    accounts: createAccountsResource(transport),
    catalog: createCatalogResource(transport),
    policies: createPoliciesResource(transport),
    products: createProductsResource(transport),
    billing: createBillingResource(transport),
    epochs: createEpochsResource(transport),
    releases: createReleasesResource(transport),
    assetKeks: createAssetKeksResource(transport),
    integrity: createIntegrityResource(transport),
    audit: createAuditResource(transport),
    analytics: createAnalyticsResource(transport),
    dsr: createDsrResource(transport),
    telemetry: createTelemetryResource(transport),
  };
}
