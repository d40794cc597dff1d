/**
 * Seeds for the license and machine suites: vendors, products, policies, catalog items, licenses and
 * machines written straight to the tables (the policy and catalog routes belong to other suites).
 */
import type { SqlClient } from '@tollgate/core';
import { randomBytes, randomId } from '@tollgate/core/crypto';
import { createSqlVendorStore, policyDefaults } from '@tollgate/core/license';
import { createSqlLicenseStore, generateLicenseKey, hashLicenseKey, licenseKeyHint, type LicenseRecord } from '../../../src/license/model/licenses';
import { createSqlMachineStore, type MachineRecord } from '../../../src/license/model/machines';

/** The time every seed is dated. */
export const seedTime = new Date(Date.UTC(2026, 4, 1, 12));

/** The key-hash key of the suites. */
export const seedKeyHashKey = new Uint8Array(32).fill(11);

/** A Policy document: `POST /policies`'s defaults with 3 seats and offline allowed; `overrides` replace fields. */
export function policyDocument(policyId: string, productId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...policyDefaults, id: policyId, product_id: productId, name: 'Standard', seats: 3, offline_allowed: true, ...overrides };
}

/** Creates a vendor with one product. */
export async function seedVendor(sql: SqlClient, name = 'Acme'): Promise<{ vendorId: string; productId: string }> {
  const vendors = createSqlVendorStore(sql);
  const vendor = await vendors.createVendor({ vendorId: randomId(), name, createdAt: seedTime });
  const product = await vendors.createProduct({ productId: randomId(), vendorId: vendor.vendorId, name: `${name} app`, createdAt: seedTime });
  return { vendorId: vendor.vendorId, productId: product.productId };
}

/** Stores a policy of the product and returns its id. */
export async function seedPolicy(sql: SqlClient, vendorId: string, productId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const policyId = randomId();
  const document = policyDocument(policyId, productId, overrides);
  await sql.query('INSERT INTO license_policies (policy_id, vendor_id, product_id, version, document, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $5, $5)', [
    policyId,
    vendorId,
    productId,
    JSON.stringify(document),
    seedTime,
  ]);
  return policyId;
}

/** Publishes a catalog item (`members` for groups and tiers). */
export async function seedCatalogItem(
  sql: SqlClient,
  item: { vendorId: string; productId: string; kind: 'feature' | 'group' | 'tier'; id: string; features?: string[]; groups?: string[] },
): Promise<void> {
  await sql.query(
    `INSERT INTO license_catalog_items (vendor_id, product_id, kind, item_id, name, members, created_at, updated_at) VALUES ($1, $2, $3, $4, $4, $5, $6, $6)`,
    [item.vendorId, item.productId, item.kind, item.id, JSON.stringify({ features: item.features ?? [], groups: item.groups ?? [] }), seedTime],
  );
}

/** Issues one license through the store and returns it with its plaintext key. */
export async function seedLicense(
  sql: SqlClient,
  owner: { vendorId: string; productId: string; policyId: string },
  options: { expiresAt?: Date | null; createdAt?: Date; seatsOverride?: number } = {},
): Promise<{ license: LicenseRecord; key: string }> {
  const key = generateLicenseKey();
  const [license] = await createSqlLicenseStore(sql).insertMany([
    {
      licenseId: randomId(),
      ...owner,
      keyHash: hashLicenseKey(seedKeyHashKey, key) as string,
      keyHint: licenseKeyHint(key),
      accountId: null,
      seatsOverride: options.seatsOverride ?? null,
      expiresAt: options.expiresAt ?? null,
      metadata: {},
      createdAt: options.createdAt ?? seedTime,
    },
  ]);
  return { license: license as LicenseRecord, key };
}

/** Activates a machine on a license through the store (as the activation route will). */
export async function seedMachine(sql: SqlClient, license: { licenseId: string; vendorId: string }, options: { createdAt?: Date; name?: string } = {}): Promise<MachineRecord> {
  const outcome = await createSqlMachineStore(sql).insert({
    machineId: randomId(),
    licenseId: license.licenseId,
    vendorId: license.vendorId,
    fingerprintHash: randomId() + randomId(),
    devicePublicKey: randomBytes(32),
    name: options.name ?? 'Build box',
    platform: 'linux-x64',
    createdAt: options.createdAt ?? seedTime,
  });
  if (outcome.kind !== 'inserted') throw new Error(`seedMachine: ${outcome.kind}`);
  return outcome.machine;
}
