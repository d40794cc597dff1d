import type { RouteTable } from '../../http/types';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { releaseOperations } from '../releases/release-operations';
import { deriveReleaseVariantKey } from '../releases/release-variant';
import { deriveLicenseAdminKeys, deriveLicenseSubkey, licenseSubkeyLabels } from './admin-keys';
import type { AdminOperation } from './admin-operation';
import { createAdminRouteTable } from './admin-route-table';
import { createSqlAdminTokenStore } from './admin-token-store';
import type { AuditLog } from './audit/audit-log';
import { auditOperations } from './audit/audit-operations';
import { createSqlIdempotencyJournal, type IdempotencyJournal } from './idempotency-journal';
import { productOperations } from './product-operations';
import { createSqlVendorStore } from './vendor-store';

/** What {@link createLicenseAdminApi} needs. */
export interface LicenseAdminApiOptions {
  readonly sql: SqlClient;
  /** `LICENSE_MASTER_KEY`: token hashes, license-key hashes and sealed journal answers use subkeys of it. */
  readonly masterKey: Uint8Array;
  readonly clock: Clock;
  readonly audit: AuditLog;
  /** `ADMIN_TOKEN_PREFIX`. */
  readonly tokenPrefix: string;
  /** `ADMIN_REALM`. */
  readonly realm: string;
  /** Operations of the resources beyond this module's own (products, audit, releases). */
  readonly operations?: readonly AdminOperation[];
  readonly onUnexpectedError?: (error: unknown, context?: { readonly requestId: string | undefined }) => void;
}

/** The Admin API: its route table, the operations it was built from, and the journal (for housekeeping). */
export interface LicenseAdminApi {
  readonly table: RouteTable;
  readonly operations: readonly AdminOperation[];
  readonly journal: IdempotencyJournal;
}

/**
 * Assembles the Admin API under `/v1/admin` over one database.
 *
 * @param options - Database, master key, clock, audit log, token settings and resource operations.
 * @returns The route table and its operations.
 * @example
 * ```ts
 * import { createLicenseAdminApi, createSqlAuditLog } from '@tollgate/core/license';
 * const admin = createLicenseAdminApi({ sql, masterKey, clock, audit: createSqlAuditLog(sql), tokenPrefix: 'tgla_', realm: 'tollgate-license' });
 * ```
 */
export function createLicenseAdminApi(options: LicenseAdminApiOptions): LicenseAdminApi {
  const keys = deriveLicenseAdminKeys(options.masterKey);
  const journal = createSqlIdempotencyJournal(options.sql, { sealKey: keys.answerSeal });
  // Releases are built here: they need only the database and a subkey, and announce their changes on the
  // database handle's channel, where release gates built over the same handle listen.
  const releases = releaseOperations({ sql: options.sql, variantKey: deriveReleaseVariantKey(options.masterKey) });
  const operations = [...productOperations(createSqlVendorStore, deriveLicenseSubkey(options.masterKey, licenseSubkeyLabels.alertSigning)), ...auditOperations(options.audit), ...releases, ...(options.operations ?? [])];
  const table = createAdminRouteTable(operations, {
    sql: options.sql,
    tokens: createSqlAdminTokenStore(options.sql),
    journal,
    audit: options.audit,
    clock: options.clock,
    tokenHashKey: keys.tokenHash,
    fingerprintKey: keys.requestFingerprint,
    tokenPrefix: options.tokenPrefix,
    realm: options.realm,
    ...(options.onUnexpectedError ? { onUnexpectedError: options.onUnexpectedError } : {}),
  });
  return { table, operations, journal };
}
