import type { SqlClient } from '../../storage/sql-client';
import type { AdminCursorPosition } from '../admin/admin-input';

/** One stored asset key (KEK) as the Admin API shows it: never the key, only its fingerprint. */
export interface AssetKekRecord {
  readonly kekId: string;
  readonly releaseId: string;
  readonly featureId: string;
  readonly vendorId: string;
  readonly productId: string;
  /** 32 hex digits (`assetKeyFingerprintHex`). */
  readonly fingerprint: string;
  readonly source: 'generated' | 'uploaded';
  readonly createdAt: Date;
}

/** A new asset key: the record plus the sealed key. */
export interface NewAssetKek extends AssetKekRecord {
  readonly sealedKey: Uint8Array;
}

type Row = {
  kek_id: string;
  release_id: string;
  feature_id: string;
  vendor_id: string;
  product_id: string;
  fingerprint: string;
  source: 'generated' | 'uploaded';
  created_at: Date;
};

const columns = 'kek_id, release_id, feature_id, vendor_id, product_id, fingerprint, source, created_at';

function recordOf(row: Row): AssetKekRecord {
  return {
    kekId: row.kek_id,
    releaseId: row.release_id,
    featureId: row.feature_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    fingerprint: row.fingerprint,
    source: row.source,
    createdAt: row.created_at,
  };
}

/**
 * The JSON view of an asset key (the Admin list and answers): ids, fingerprint, source, time.
 *
 * @param record - The stored record.
 * @returns The view.
 * @example
 * ```ts
 * import { assetKekView } from '@tollgate/core/license';
 * return { body: { asset_kek: assetKekView(record) } };
 * ```
 */
export function assetKekView(record: AssetKekRecord): Record<string, unknown> {
  return {
    release_id: record.releaseId,
    feature_id: record.featureId,
    product_id: record.productId,
    fingerprint: record.fingerprint,
    source: record.source,
    created_at: record.createdAt.toISOString(),
  };
}

/** The SQL store of asset keys over `license_asset_keks` (license migration 015). */
export interface AssetKekStore {
  /** Inserts the key unless the (release, feature) has one: `inserted`, or the key already there. */
  insert(kek: NewAssetKek): Promise<{ kind: 'inserted'; record: AssetKekRecord } | { kind: 'exists'; record: AssetKekRecord }>;
  /** The vendor's key of (release, feature); `forUpdate` locks the row. */
  get(vendorId: string, releaseId: string, featureId: string, options?: { forUpdate?: boolean }): Promise<AssetKekRecord | undefined>;
  /** The vendor's keys oldest first, optionally of one product or release. */
  list(vendorId: string, query: { productId?: string; releaseId?: string; limit: number; after?: AdminCursorPosition }): Promise<AssetKekRecord[]>;
  /** Deletes the vendor's key of (release, feature); `true` when a row went. */
  delete(vendorId: string, releaseId: string, featureId: string): Promise<boolean>;
}

/**
 * The {@link AssetKekStore} over a database or a transaction.
 *
 * @param sql - A database with the license migrations applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlAssetKekStore } from '@tollgate/core/license';
 * const kek = await createSqlAssetKekStore(sql).get(vendorId, releaseId, 'export.pdf');
 * ```
 */
export function createSqlAssetKekStore(sql: SqlClient): AssetKekStore {
  const store: AssetKekStore = {
    async insert(kek) {
      const { rows } = await sql.query<Row>(
        `INSERT INTO license_asset_keks (kek_id, release_id, feature_id, vendor_id, product_id, fingerprint, sealed_key, source, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (release_id, feature_id) DO NOTHING RETURNING ${columns}`,
        [kek.kekId, kek.releaseId, kek.featureId, kek.vendorId, kek.productId, kek.fingerprint, kek.sealedKey, kek.source, kek.createdAt],
      );
      const inserted = rows[0];
      if (inserted !== undefined) return { kind: 'inserted', record: recordOf(inserted) };
      const existing = await store.get(kek.vendorId, kek.releaseId, kek.featureId);
      if (existing === undefined) throw new Error('an asset key conflicted on insert but cannot be read');
      return { kind: 'exists', record: existing };
    },
    async get(vendorId, releaseId, featureId, options = {}) {
      const { rows } = await sql.query<Row>(
        `SELECT ${columns} FROM license_asset_keks WHERE release_id = $1 AND feature_id = $2 AND vendor_id = $3${options.forUpdate === true ? ' FOR UPDATE' : ''}`,
        [releaseId, featureId, vendorId],
      );
      return rows[0] === undefined ? undefined : recordOf(rows[0]);
    },
    async list(vendorId, query) {
      const { rows } = await sql.query<Row>(
        `SELECT ${columns} FROM license_asset_keks
         WHERE vendor_id = $1
           AND ($2::text IS NULL OR product_id = $2)
           AND ($3::text IS NULL OR release_id = $3)
           AND ($4::timestamptz IS NULL OR (created_at, kek_id) > ($4, $5))
         ORDER BY created_at, kek_id
         LIMIT $6`,
        [vendorId, query.productId ?? null, query.releaseId ?? null, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(recordOf);
    },
    async delete(vendorId, releaseId, featureId) {
      const { rows } = await sql.query('DELETE FROM license_asset_keks WHERE release_id = $1 AND feature_id = $2 AND vendor_id = $3 RETURNING 1', [releaseId, featureId, vendorId]);
      return rows.length > 0;
    },
  };
  return store;
}
