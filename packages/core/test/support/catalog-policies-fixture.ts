/**
 * Databases for the catalog and policy store tests: the license migrations on PGlite (and on the
 * PostgreSQL server when TOLLGATE_TEST_DATABASE_URL is set), and fresh vendors with a product each, so
 * tests never need to reset tables and never see each other's rows.
 */
import { coreMigrations, licenseMigrations, type SqlClient } from '@tollgate/core';
import { randomId } from '@tollgate/core/crypto';
import { createSqlVendorStore } from '@tollgate/core/license';
import { openTestDatabase, testDatabaseEngines, type TestDatabase, type TestEngine } from '@tollgate/core/testing';

/** The engines storage tests run on. */
export const catalogTestEngines: TestEngine[] = await testDatabaseEngines();

/** A vendor with one product. */
export interface SeededVendor {
  readonly vendorId: string;
  readonly productId: string;
}

/** A fixed clock reading for rows written by tests. */
export const t0 = new Date(Date.UTC(2026, 5, 1, 12));

/**
 * Opens a test database with every license migration.
 *
 * @param engine - The engine.
 * @returns The database; close it in `afterAll`.
 */
export function openCatalogTestDatabase(engine: TestEngine): Promise<TestDatabase> {
  return openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
}

/**
 * Creates a vendor with one product (and `extraProducts` more, returned in order).
 *
 * @param sql - The database.
 * @param extraProducts - How many more products.
 * @returns The vendor, its first product, and the extra products.
 */
export async function seedVendor(sql: SqlClient, extraProducts = 0): Promise<SeededVendor & { readonly more: string[] }> {
  const vendors = createSqlVendorStore(sql);
  const vendor = await vendors.createVendor({ vendorId: randomId(), name: 'Vendor', createdAt: t0 });
  const productIds = [];
  for (let index = 0; index <= extraProducts; index++) {
    productIds.push((await vendors.createProduct({ productId: randomId(), vendorId: vendor.vendorId, name: `Product ${index}`, createdAt: t0 })).productId);
  }
  return { vendorId: vendor.vendorId, productId: productIds[0] as string, more: productIds.slice(1) };
}
