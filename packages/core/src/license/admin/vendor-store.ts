import type { SqlClient } from '../../storage/sql-client';

/** A vendor: the tenant every Admin query is scoped to. */
export interface VendorRecord {
  readonly vendorId: string;
  readonly name: string;
  readonly createdAt: Date;
}

/** The suspicion-alert webhook of a product (delivery arrives with the client protocol). */
export interface AlertWebhookConfig {
  readonly url: string;
  readonly threshold: number;
}

/** A product of a vendor. */
export interface ProductRecord {
  readonly productId: string;
  readonly vendorId: string;
  readonly name: string;
  readonly alertWebhook: AlertWebhookConfig | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * Vendors and their products.
 *
 * Contract: every product read or write names the vendor, and a product of another vendor behaves
 * exactly like a missing one (`undefined`), so callers cannot leak its existence. Each method is one
 * statement; run several in one transaction by creating the store over the transaction's client.
 */
export interface VendorStore {
  createVendor(vendor: VendorRecord): Promise<VendorRecord>;
  getVendor(vendorId: string): Promise<VendorRecord | undefined>;
  listVendors(): Promise<VendorRecord[]>;
  createProduct(product: { productId: string; vendorId: string; name: string; createdAt: Date }): Promise<ProductRecord>;
  getProduct(vendorId: string, productId: string): Promise<ProductRecord | undefined>;
  /** Sets (or clears, with `null`) a product's alert webhook; `undefined` when the vendor has no such product. */
  setAlertWebhook(vendorId: string, productId: string, config: AlertWebhookConfig | null, at: Date): Promise<ProductRecord | undefined>;
}

type ProductRow = {
  product_id: string;
  vendor_id: string;
  name: string;
  alert_webhook_url: string | null;
  alert_threshold: number | null;
  created_at: Date;
  updated_at: Date;
};

const productColumns = 'product_id, vendor_id, name, alert_webhook_url, alert_threshold, created_at, updated_at';

function toProduct(row: ProductRow): ProductRecord {
  return {
    productId: row.product_id,
    vendorId: row.vendor_id,
    name: row.name,
    alertWebhook: row.alert_webhook_url === null ? null : { url: row.alert_webhook_url, threshold: Number(row.alert_threshold) },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type VendorRow = { vendor_id: string; name: string; created_at: Date };
const toVendor = (row: VendorRow): VendorRecord => ({ vendorId: row.vendor_id, name: row.name, createdAt: row.created_at });

/**
 * The SQL {@link VendorStore} over `license_vendors` and `license_products` (license migration 003).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlVendorStore } from '@tollgate/core/license';
 * const product = await createSqlVendorStore(sql).getProduct(vendorId, productId);
 * ```
 */
export function createSqlVendorStore(sql: SqlClient): VendorStore {
  return {
    async createVendor(vendor) {
      const { rows } = await sql.query<VendorRow>('INSERT INTO license_vendors (vendor_id, name, created_at) VALUES ($1, $2, $3) RETURNING vendor_id, name, created_at', [
        vendor.vendorId,
        vendor.name,
        vendor.createdAt,
      ]);
      return toVendor(rows[0] as VendorRow);
    },
    async getVendor(vendorId) {
      const { rows } = await sql.query<VendorRow>('SELECT vendor_id, name, created_at FROM license_vendors WHERE vendor_id = $1', [vendorId]);
      return rows[0] === undefined ? undefined : toVendor(rows[0]);
    },
    async listVendors() {
      const { rows } = await sql.query<VendorRow>('SELECT vendor_id, name, created_at FROM license_vendors ORDER BY created_at, vendor_id');
      return rows.map(toVendor);
    },
    async createProduct(product) {
      const { rows } = await sql.query<ProductRow>(
        `INSERT INTO license_products (product_id, vendor_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING ${productColumns}`,
        [product.productId, product.vendorId, product.name, product.createdAt],
      );
      return toProduct(rows[0] as ProductRow);
    },
    async getProduct(vendorId, productId) {
      const { rows } = await sql.query<ProductRow>(`SELECT ${productColumns} FROM license_products WHERE product_id = $1 AND vendor_id = $2`, [productId, vendorId]);
      return rows[0] === undefined ? undefined : toProduct(rows[0]);
    },
    async setAlertWebhook(vendorId, productId, config, at) {
      const { rows } = await sql.query<ProductRow>(
        `UPDATE license_products SET alert_webhook_url = $3, alert_threshold = $4, updated_at = $5
         WHERE product_id = $1 AND vendor_id = $2 RETURNING ${productColumns}`,
        [productId, vendorId, config?.url ?? null, config?.threshold ?? null, at],
      );
      return rows[0] === undefined ? undefined : toProduct(rows[0]);
    },
  };
}
