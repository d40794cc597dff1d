import type { SqlClient } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../page';
import type { CatalogKind } from './catalog-schemas';

/** Feature and group ids an item holds (sorted, without duplicates; both empty for a feature). */
export interface CatalogMembers {
  readonly features: readonly string[];
  readonly groups: readonly string[];
}

/** A feature, group or tier of a product. */
export interface CatalogItem {
  readonly vendorId: string;
  readonly productId: string;
  readonly kind: CatalogKind;
  readonly itemId: string;
  readonly name: string;
  readonly description: string;
  readonly members: CatalogMembers;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What {@link CatalogStore.create} stores. */
export type NewCatalogItem = Omit<CatalogItem, 'updatedAt'>;

/** The fields {@link CatalogStore.update} may change; members are replaced whole (each list separately). */
export interface CatalogItemChanges {
  readonly name?: string;
  readonly description?: string;
  readonly features?: readonly string[];
  readonly groups?: readonly string[];
}

/** Members that do not exist in the product, as `feature:<id>` / `group:<id>`, sorted. */
export type UnknownMembers = { readonly kind: 'unknown_members'; readonly missing: readonly string[] };

/** The outcome of {@link CatalogStore.create}. */
export type CreateCatalogItemOutcome =
  | { readonly kind: 'created'; readonly item: CatalogItem }
  | { readonly kind: 'product_not_found' }
  | { readonly kind: 'exists' }
  | UnknownMembers;

/** The outcome of {@link CatalogStore.update}. */
export type UpdateCatalogItemOutcome = { readonly kind: 'updated'; readonly item: CatalogItem } | { readonly kind: 'not_found' } | UnknownMembers;

/**
 * The catalog of each product: features, groups of features, tiers of features and groups.
 *
 * Contract: every read and write names the vendor, and another vendor's product or item behaves exactly
 * like a missing one. Items are never deleted and their ids never change, so a member reference checked
 * once stays valid: `create` and `update` each check their members, the product and the target in the
 * one statement that writes, and write nothing when any check fails. Of concurrent creates of one id,
 * exactly one succeeds and the others report `exists`. `list` is in publication order (creation time,
 * ties by id), so cursors are stable under concurrent inserts.
 */
export interface CatalogStore {
  create(item: NewCatalogItem): Promise<CreateCatalogItemOutcome>;
  update(vendorId: string, productId: string, kind: CatalogKind, itemId: string, changes: CatalogItemChanges, at: Date): Promise<UpdateCatalogItemOutcome>;
  /** Whether any product of the vendor has an item of this kind and id (so a path names a target of the caller's). */
  hasItem(vendorId: string, kind: CatalogKind, itemId: string): Promise<boolean>;
  /** Which of `ids` the product has no item of this kind for (sorted); all of them for another vendor's product. */
  missingIds(vendorId: string, productId: string, kind: CatalogKind, ids: readonly string[]): Promise<string[]>;
  /** Whether the vendor has this product (lists of an unknown product are `not_found`, not empty). */
  hasProduct(vendorId: string, productId: string): Promise<boolean>;
  /** Up to `limit` items of one kind after `after`, in publication order. */
  list(vendorId: string, productId: string, kind: CatalogKind, page: { limit: number; after?: AdminCursorPosition }): Promise<CatalogItem[]>;
}

type ItemRow = {
  vendor_id: string;
  product_id: string;
  kind: CatalogKind;
  item_id: string;
  name: string;
  description: string;
  members: CatalogMembers;
  created_at: Date;
  updated_at: Date;
};

const columns = 'vendor_id, product_id, kind, item_id, name, description, members, created_at, updated_at';

function toItem(row: ItemRow): CatalogItem {
  return {
    vendorId: row.vendor_id,
    productId: row.product_id,
    kind: row.kind,
    itemId: row.item_id,
    name: row.name,
    description: row.description,
    members: { features: [...row.members.features], groups: [...row.members.groups] },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The member references among `$5` (feature ids) and `$6` (group ids) that the product `$2` of vendor
 * `$1` lacks. Shared by create and update so both check exactly the same way.
 */
const missingMembersCte = `missing AS (
  SELECT 'feature:' || ref AS ref FROM unnest($5::text[]) AS ref
   WHERE NOT EXISTS (SELECT 1 FROM license_catalog_items m WHERE m.vendor_id = $1 AND m.product_id = $2 AND m.kind = 'feature' AND m.item_id = ref)
  UNION ALL
  SELECT 'group:' || ref FROM unnest($6::text[]) AS ref
   WHERE NOT EXISTS (SELECT 1 FROM license_catalog_items m WHERE m.vendor_id = $1 AND m.product_id = $2 AND m.kind = 'group' AND m.item_id = ref)
)`;

type CheckedRow = Partial<ItemRow> & { missing: string[] | null };

const missingOf = (row: CheckedRow | undefined): string[] => [...(row?.missing ?? [])].sort();

/**
 * The SQL {@link CatalogStore} over `license_catalog_items` (license migration 005).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlCatalogStore } from '@tollgate/core/license';
 * const tiers = await createSqlCatalogStore(sql).list(vendorId, productId, 'tier', { limit: 50 });
 * ```
 */
export function createSqlCatalogStore(sql: SqlClient): CatalogStore {
  return {
    async create(item) {
      const { rows } = await sql.query<CheckedRow & { product_found: boolean }>(
        `WITH product AS (
           SELECT product_id FROM license_products WHERE product_id = $2 AND vendor_id = $1
         ), ${missingMembersCte}, inserted AS (
           INSERT INTO license_catalog_items (${columns})
           SELECT $1, product_id, $3, $4, $7, $8, $9::jsonb, $10, $10 FROM product
           WHERE NOT EXISTS (SELECT 1 FROM missing)
           ON CONFLICT (product_id, kind, item_id) DO NOTHING
           RETURNING ${columns}
         )
         SELECT EXISTS (SELECT 1 FROM product) AS product_found, ARRAY(SELECT ref FROM missing) AS missing, inserted.*
         FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`,
        [item.vendorId, item.productId, item.kind, item.itemId, item.members.features, item.members.groups, item.name, item.description, JSON.stringify(item.members), item.createdAt],
      );
      const row = rows[0];
      if (row === undefined || !row.product_found) return { kind: 'product_not_found' };
      const missing = missingOf(row);
      if (missing.length > 0) return { kind: 'unknown_members', missing };
      if (row.item_id === undefined || row.item_id === null) return { kind: 'exists' };
      return { kind: 'created', item: toItem(row as ItemRow) };
    },

    async update(vendorId, productId, kind, itemId, changes, at) {
      // A list left out keeps its stored value; the CHECKs of migration 005 refuse members on a kind
      // that cannot hold them, but the HTTP schemas never send those.
      const { rows } = await sql.query<CheckedRow & { found: boolean }>(
        `WITH target AS (
           SELECT members FROM license_catalog_items WHERE vendor_id = $1 AND product_id = $2 AND kind = $3 AND item_id = $4
         ), ${missingMembersCte}, updated AS (
           UPDATE license_catalog_items SET
             name = COALESCE($7, name),
             description = COALESCE($8, description),
             members = jsonb_build_object('features', COALESCE($9::jsonb, members -> 'features'), 'groups', COALESCE($10::jsonb, members -> 'groups')),
             updated_at = $11
           WHERE vendor_id = $1 AND product_id = $2 AND kind = $3 AND item_id = $4 AND NOT EXISTS (SELECT 1 FROM missing)
           RETURNING ${columns}
         )
         SELECT EXISTS (SELECT 1 FROM target) AS found, ARRAY(SELECT ref FROM missing) AS missing, updated.*
         FROM (VALUES (1)) AS one LEFT JOIN updated ON true`,
        [
          vendorId,
          productId,
          kind,
          itemId,
          changes.features ?? [],
          changes.groups ?? [],
          changes.name ?? null,
          changes.description ?? null,
          changes.features === undefined ? null : JSON.stringify(changes.features),
          changes.groups === undefined ? null : JSON.stringify(changes.groups),
          at,
        ],
      );
      const row = rows[0];
      if (row === undefined || !row.found) return { kind: 'not_found' };
      const missing = missingOf(row);
      if (missing.length > 0) return { kind: 'unknown_members', missing };
      return { kind: 'updated', item: toItem(row as ItemRow) };
    },

    async hasItem(vendorId, kind, itemId) {
      const { rows } = await sql.query('SELECT 1 FROM license_catalog_items WHERE vendor_id = $1 AND kind = $2 AND item_id = $3 LIMIT 1', [vendorId, kind, itemId]);
      return rows.length > 0;
    },

    async missingIds(vendorId, productId, kind, ids) {
      if (ids.length === 0) return [];
      const { rows } = await sql.query<{ ref: string }>(
        `SELECT ref FROM unnest($4::text[]) AS ref
         WHERE NOT EXISTS (SELECT 1 FROM license_catalog_items m WHERE m.vendor_id = $1 AND m.product_id = $2 AND m.kind = $3 AND m.item_id = ref)`,
        [vendorId, productId, kind, ids],
      );
      return rows.map((row) => row.ref).sort();
    },

    async hasProduct(vendorId, productId) {
      const { rows } = await sql.query('SELECT 1 FROM license_products WHERE product_id = $1 AND vendor_id = $2', [productId, vendorId]);
      return rows.length > 0;
    },

    async list(vendorId, productId, kind, page) {
      const { rows } = await sql.query<ItemRow>(
        `SELECT ${columns} FROM license_catalog_items
         WHERE vendor_id = $1 AND product_id = $2 AND kind = $3
           AND ($4::timestamptz IS NULL OR (created_at, item_id) > ($4, $5))
         ORDER BY created_at, item_id
         LIMIT $6`,
        [vendorId, productId, kind, page.after === undefined ? null : new Date(page.after.at), page.after?.id ?? '', page.limit],
      );
      return rows.map(toItem);
    },
  };
}
