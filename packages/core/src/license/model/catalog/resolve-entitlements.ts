import canonicalize from 'canonicalize';
import { sha256 } from '../../../crypto/hash';
import { hexEncode } from '../../../crypto/hex';
import { isHexId } from '../../../crypto/random';
import { utf8Encode } from '../../../crypto/utf8';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { sortedCatalogIds } from './catalog-schemas';
import type { CatalogMembers } from './catalog-store';

/** What to resolve: a tier plus extra features and groups, then per-license overrides. */
export interface EntitlementInput {
  readonly product_id: string;
  readonly tier?: string | null;
  readonly features?: readonly string[];
  readonly groups?: readonly string[];
  readonly overrides?: { readonly add?: readonly string[]; readonly remove?: readonly string[] };
}

/**
 * The features a license is entitled to, with a digest that names exactly this set: equal inputs over an
 * unchanged catalog give byte-identical snapshots, so clients and caches can compare digests.
 */
export interface EntitlementSnapshot {
  readonly product_id: string;
  readonly tier: string | null;
  /** Feature ids, sorted by code unit, without duplicates. */
  readonly features: string[];
  /** Hex SHA-256 of the canonical JSON (RFC 8785) of `{ product_id, tier, features }`. */
  readonly digest: string;
}

type ReferencedRow = { product_found: boolean; kind: 'feature' | 'group' | 'tier' | null; item_id: string | null; members: CatalogMembers | null };

/**
 * Resolves an entitlement: the tier's features and the features of its groups, plus `features`, plus
 * the features of `groups`, plus `overrides.add`, minus `overrides.remove` (applied last, so a removal
 * always wins). Every id named must exist in the product's catalog; a removal of a feature the set does
 * not hold is allowed (it changes nothing). The catalog is read in one statement, so the snapshot is
 * consistent even while items are being edited.
 *
 * @param sql - The database (or a transaction on it).
 * @param vendorId - The caller's vendor: another vendor's product or items are never read.
 * @param input - The product, tier, extra features and groups, and overrides.
 * @returns The snapshot.
 * @throws AdminError `not_found` when the vendor has no such product; `invalid_entitlement` (422) naming
 *   every unknown tier, feature or group.
 * @example
 * ```ts
 * import { resolveEntitlements } from '@tollgate/core/license';
 * const snapshot = await resolveEntitlements(sql, vendorId, { product_id, tier: 'pro', overrides: { remove: ['beta-sync'] } });
 * snapshot.features; // ['export.pdf', 'export.svg', 'sync']
 * ```
 */
export async function resolveEntitlements(sql: SqlClient, vendorId: string, input: EntitlementInput): Promise<EntitlementSnapshot> {
  const tier = input.tier ?? null;
  const features = sortedCatalogIds(input.features ?? []);
  const groups = sortedCatalogIds(input.groups ?? []);
  const add = sortedCatalogIds(input.overrides?.add ?? []);
  const remove = sortedCatalogIds(input.overrides?.remove ?? []);
  if (!isHexId(input.product_id, 16)) throw new AdminError('not_found', 'No such product.');

  // One statement: the product check, the named items and the groups of the tier share one snapshot.
  const { rows } = await sql.query<ReferencedRow>(
    `WITH product AS (
       SELECT product_id FROM license_products WHERE product_id = $2 AND vendor_id = $1
     ), items AS (
       SELECT c.kind, c.item_id, c.members FROM license_catalog_items c JOIN product p ON p.product_id = c.product_id
       WHERE c.vendor_id = $1 AND (
         (c.kind = 'tier' AND c.item_id = $3)
         OR (c.kind = 'feature' AND c.item_id = ANY ($4::text[]))
         OR (c.kind = 'group' AND (c.item_id = ANY ($5::text[]) OR c.item_id IN (
           SELECT jsonb_array_elements_text(t.members -> 'groups') FROM license_catalog_items t
           WHERE t.vendor_id = $1 AND t.product_id = $2 AND t.kind = 'tier' AND t.item_id = $3)))
       )
     )
     SELECT EXISTS (SELECT 1 FROM product) AS product_found, items.kind, items.item_id, items.members
     FROM (VALUES (1)) AS one LEFT JOIN items ON true`,
    [vendorId, input.product_id, tier, sortedCatalogIds([...features, ...add, ...remove]), groups],
  );
  if (rows[0] === undefined || !rows[0].product_found) throw new AdminError('not_found', 'No such product.');

  const found = new Map<string, CatalogMembers>();
  for (const row of rows) if (row.kind !== null && row.item_id !== null && row.members !== null) found.set(`${row.kind}:${row.item_id}`, row.members);
  const unknown = [
    ...(tier === null || found.has(`tier:${tier}`) ? [] : [`tier ${tier}`]),
    ...sortedCatalogIds([...features, ...add, ...remove]).filter((id) => !found.has(`feature:${id}`)).map((id) => `feature ${id}`),
    ...groups.filter((id) => !found.has(`group:${id}`)).map((id) => `group ${id}`),
  ];
  if (unknown.length > 0) throw new AdminError('invalid_entitlement', `Not in this product's catalog: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', …' : ''}.`);

  const entitled = new Set([...features, ...add]);
  const tierMembers = tier === null ? undefined : found.get(`tier:${tier}`);
  for (const id of tierMembers?.features ?? []) entitled.add(id);
  for (const groupId of [...groups, ...(tierMembers?.groups ?? [])]) for (const id of found.get(`group:${groupId}`)?.features ?? []) entitled.add(id);
  for (const id of remove) entitled.delete(id);
  return entitlementSnapshot(input.product_id, tier, entitled);
}

/**
 * Builds a snapshot from a resolved feature set: sorts the features and computes the digest. Exposed so
 * a snapshot stored elsewhere can be re-checked (`entitlementSnapshot(s.product_id, s.tier, s.features).digest === s.digest`).
 *
 * @param productId - The product.
 * @param tier - The tier, or null.
 * @param features - The feature ids, in any order.
 * @returns The snapshot, its fields in a fixed order.
 * @example
 * ```ts
 * import { entitlementSnapshot } from '@tollgate/core/license';
 * entitlementSnapshot(productId, null, ['b', 'a']).features; // ['a', 'b']
 * ```
 */
export function entitlementSnapshot(productId: string, tier: string | null, features: Iterable<string>): EntitlementSnapshot {
  const sorted = sortedCatalogIds(features);
  const digest = hexEncode(sha256(utf8Encode(canonicalize({ product_id: productId, tier, features: sorted }) as string)));
  return { product_id: productId, tier, features: sorted, digest };
}
