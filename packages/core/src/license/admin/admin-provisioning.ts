import { isHexId, randomId } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { deriveLicenseAdminKeys } from './admin-keys';
import { adminTokenHash, mintAdminToken } from './admin-token';
import { createSqlAdminTokenStore, type AdminTokenRecord } from './admin-token-store';
import type { AuditLog } from './audit/audit-log';
import { adminScopes, type AdminScope } from './scopes';
import { createSqlVendorStore, type ProductRecord } from './vendor-store';

/** What provisioning needs: the database, the master key (token hashes), the token prefix and the audit log. */
export interface AdminProvisioningContext {
  readonly sql: SqlClient;
  readonly masterKey: Uint8Array;
  readonly tokenPrefix: string;
  readonly audit: AuditLog;
  readonly clock: Clock;
}

/** A token just minted: the record and the plaintext token, shown once. */
export interface MintedAdminToken {
  readonly record: AdminTokenRecord;
  readonly token: string;
}

/** Options of {@link createAdminToken}. */
export interface CreateAdminTokenOptions {
  readonly vendorId: string;
  readonly scopes: readonly AdminScope[];
  readonly label?: string;
  readonly expiresAt?: Date | null;
  /** Who asks, for the audit event (`cli:tokens-create` by default). */
  readonly actor?: string;
}

/** Display names and labels: the database's bounds, checked first so a bad one is a clear refusal. */
function checkName(value: string, what: string, min = 1): string {
  if (value.length < min || value.length > 200) throw new AdminError('invalid_request', `The ${what} must be ${min} to 200 characters.`);
  return value;
}

async function requireVendor(tx: SqlClient, vendorId: string): Promise<void> {
  const vendor = isHexId(vendorId, 16) ? await createSqlVendorStore(tx).getVendor(vendorId) : undefined;
  if (vendor === undefined) throw new AdminError('not_found', `No vendor ${vendorId}.`);
}

async function insertToken(tx: SqlClient, context: AdminProvisioningContext, options: CreateAdminTokenOptions, now: Date): Promise<MintedAdminToken> {
  const token = mintAdminToken(context.tokenPrefix);
  const scopes = adminScopes.filter((scope) => options.scopes.includes(scope));
  const record = await createSqlAdminTokenStore(tx).create({
    tokenId: randomId(),
    vendorId: options.vendorId,
    tokenHash: adminTokenHash(deriveLicenseAdminKeys(context.masterKey).tokenHash, token),
    label: options.label ?? '',
    scopes,
    createdAt: now,
    expiresAt: options.expiresAt ?? null,
  });
  await context.audit.append(
    tx,
    {
      vendorId: options.vendorId,
      actor: options.actor ?? 'cli:tokens-create',
      action: 'admin_token.create',
      targetType: 'admin_token',
      targetId: record.tokenId,
      summary: { scopes: [...scopes], label: record.label, expires_at: record.expiresAt?.toISOString() ?? null },
    },
    now.getTime(),
  );
  return { record, token };
}

/**
 * Mints an Admin token for an existing vendor (the `tokens create` command: no HTTP route mints tokens).
 * The token is returned once; only its keyed hash is stored. The creation is audited in the same
 * transaction.
 *
 * @param context - Database, master key, prefix, audit log, clock.
 * @param options - Vendor, scopes, label, expiry.
 * @returns The record and the plaintext token.
 * @throws AdminError `not_found` when the vendor does not exist; `invalid_request` for no scopes or a label over 200 characters.
 * @example
 * ```ts
 * import { createAdminToken } from '@tollgate/core/license';
 * const { token } = await createAdminToken(context, { vendorId, scopes: ['licenses:rw'] });
 * ```
 */
export function createAdminToken(context: AdminProvisioningContext, options: CreateAdminTokenOptions): Promise<MintedAdminToken> {
  if (options.scopes.length === 0) throw new AdminError('invalid_request', 'A token needs at least one scope.');
  checkName(options.label ?? '', 'label', 0);
  return context.sql.transaction(async (tx) => {
    await requireVendor(tx, options.vendorId);
    return insertToken(tx, context, options, new Date(context.clock.now()));
  });
}

/** What {@link bootstrapVendor} created. */
export interface BootstrappedVendor {
  readonly vendorId: string;
  readonly productId: string;
  readonly tokenId: string;
  /** The all-scopes token, shown once. */
  readonly token: string;
}

/**
 * Creates a vendor, its first product and an all-scopes Admin token in one transaction (the
 * `bootstrap` command), audited as `cli:bootstrap`.
 *
 * @param context - Database, master key, prefix, audit log, clock.
 * @param names - The vendor's and the product's display names (1 to 200 characters).
 * @returns The ids and the token.
 * @throws AdminError `invalid_request` for a name outside 1 to 200 characters.
 * @example
 * ```ts
 * import { bootstrapVendor } from '@tollgate/core';
 * const { vendorId, productId, token } = await bootstrapVendor(context, { vendor: 'Acme', product: 'Acme Editor' });
 * ```
 */
export function bootstrapVendor(context: AdminProvisioningContext, names: { vendor: string; product: string }): Promise<BootstrappedVendor> {
  checkName(names.vendor, 'vendor name');
  checkName(names.product, 'product name');
  return context.sql.transaction(async (tx) => {
    const now = new Date(context.clock.now());
    const vendors = createSqlVendorStore(tx);
    const vendor = await vendors.createVendor({ vendorId: randomId(), name: names.vendor, createdAt: now });
    const product = await vendors.createProduct({ productId: randomId(), vendorId: vendor.vendorId, name: names.product, createdAt: now });
    const actor = 'cli:bootstrap';
    await context.audit.append(
      tx,
      { vendorId: vendor.vendorId, actor, action: 'vendor.create', targetType: 'vendor', targetId: vendor.vendorId, summary: { name: vendor.name, product_id: product.productId, product_name: product.name } },
      now.getTime(),
    );
    const { record, token } = await insertToken(tx, context, { vendorId: vendor.vendorId, scopes: adminScopes, label: 'bootstrap', actor }, now);
    return { vendorId: vendor.vendorId, productId: product.productId, tokenId: record.tokenId, token };
  });
}

/**
 * Creates a further product of an existing vendor (the `products create` command), audited as
 * `cli:products-create` in the same transaction.
 *
 * @param context - Database, master key, prefix, audit log, clock.
 * @param options - The vendor and the product's display name (1 to 200 characters).
 * @returns The product.
 * @throws AdminError `not_found` when the vendor does not exist; `invalid_request` for a bad name.
 * @example
 * ```ts
 * import { createProduct } from '@tollgate/core/license';
 * const { productId } = await createProduct(context, { vendorId, name: 'Acme Viewer' });
 * ```
 */
export function createProduct(context: AdminProvisioningContext, options: { vendorId: string; name: string; actor?: string }): Promise<ProductRecord> {
  checkName(options.name, 'product name');
  return context.sql.transaction(async (tx) => {
    await requireVendor(tx, options.vendorId);
    const now = new Date(context.clock.now());
    const product = await createSqlVendorStore(tx).createProduct({ productId: randomId(), vendorId: options.vendorId, name: options.name, createdAt: now });
    await context.audit.append(
      tx,
      { vendorId: options.vendorId, actor: options.actor ?? 'cli:products-create', action: 'product.create', targetType: 'product', targetId: product.productId, summary: { name: product.name } },
      now.getTime(),
    );
    return product;
  });
}

/**
 * Lists Admin tokens, oldest first: every vendor's, or one vendor's (the `tokens list` command). Records
 * hold no token and no hash.
 *
 * @param context - The database.
 * @param vendorId - Only this vendor's tokens.
 * @returns The records.
 * @example
 * ```ts
 * import { listAdminTokens } from '@tollgate/core/license';
 * const tokens = await listAdminTokens(context, vendorId);
 * ```
 */
export function listAdminTokens(context: Pick<AdminProvisioningContext, 'sql'>, vendorId?: string): Promise<AdminTokenRecord[]> {
  return createSqlAdminTokenStore(context.sql).list(vendorId);
}

/** What {@link revokeAdminToken} did. */
export interface RevokedAdminToken {
  readonly record: AdminTokenRecord;
  /** True when the token had been revoked before (nothing changed, nothing audited). */
  readonly alreadyRevoked: boolean;
}

/**
 * Revokes an Admin token (the `tokens revoke` command): from the next request on it is answered 401
 * `invalid_token`. Idempotent: a revoked token keeps its first revocation time. A new revocation is
 * audited as `cli:tokens-revoke` in the same transaction.
 *
 * @param context - Database, audit log, clock.
 * @param tokenId - The token's id (32 hex).
 * @returns The record and whether it was already revoked.
 * @throws AdminError `not_found` when no such token exists.
 * @example
 * ```ts
 * import { revokeAdminToken } from '@tollgate/core/license';
 * const { alreadyRevoked } = await revokeAdminToken(context, tokenId);
 * ```
 */
export function revokeAdminToken(context: Pick<AdminProvisioningContext, 'sql' | 'audit' | 'clock'>, tokenId: string, options: { actor?: string } = {}): Promise<RevokedAdminToken> {
  if (!isHexId(tokenId, 16)) return Promise.reject(new AdminError('not_found', `No token ${tokenId}.`));
  return context.sql.transaction(async (tx) => {
    const now = new Date(context.clock.now());
    const record = await createSqlAdminTokenStore(tx).revoke(tokenId, now);
    if (record === undefined) throw new AdminError('not_found', `No token ${tokenId}.`);
    const alreadyRevoked = record.revokedAt !== null && record.revokedAt.getTime() !== now.getTime();
    if (!alreadyRevoked) {
      await context.audit.append(
        tx,
        { vendorId: record.vendorId, actor: options.actor ?? 'cli:tokens-revoke', action: 'admin_token.revoke', targetType: 'admin_token', targetId: record.tokenId, summary: { label: record.label } },
        now.getTime(),
      );
    }
    return { record, alreadyRevoked };
  });
}
