import type { SqlClient, SqlParam } from '../../storage/sql-client';
import type { AdminCursorPosition } from '../admin/admin-input';
import type { CompromiseAction, ReleaseState } from './release-gate';
import { releaseColumns, releaseFromRow, type ReleaseRecord, type ReleaseRow } from './release-record';

/** What registering needs: the record's identity and build fields; the state starts at `registered`. */
export type NewRelease = Pick<
  ReleaseRecord,
  'releaseId' | 'vendorId' | 'productId' | 'appVersion' | 'channel' | 'buildFingerprint' | 'variantId' | 'hasVariantSeed' | 'manifestRoot' | 'moduleDigest' | 'createdAt'
>;

/** The outcome of {@link ReleaseStore.register}. */
export type RegisterReleaseOutcome =
  | { readonly kind: 'registered'; readonly release: ReleaseRecord; readonly variantReused: boolean }
  | { readonly kind: 'exists'; readonly release: ReleaseRecord }
  | { readonly kind: 'product_not_found' };

/** The outcome of a state change: whether this call changed the row, and the row afterwards. */
export type ReleaseTransition = { readonly kind: 'not_found' } | { readonly kind: 'done'; readonly changed: boolean; readonly release: ReleaseRecord };

/**
 * Releases of each product and the product's security floor.
 *
 * Contract: every read and write names the vendor; another vendor's release or product behaves exactly
 * like a missing one. `register` inserts in one statement guarded by the `(product, build fingerprint)`
 * unique key: of concurrent registrations of one build exactly one inserts, the others get `exists` with
 * the committed row. State changes are single guarded `UPDATE`s, so concurrent calls serialise on the
 * row and each sees the committed state: `deprecate` moves only `registered`, `markCompromised` only
 * raises the action's rank (never lowers it); `changed: false` means the release already was there.
 * `bumpSecurityFloor` adds one in SQL (a trigger refuses any decrease).
 */
export interface ReleaseStore {
  register(release: NewRelease): Promise<RegisterReleaseOutcome>;
  get(vendorId: string, releaseId: string): Promise<ReleaseRecord | undefined>;
  /** Like `get`, locking the row (`FOR NO KEY UPDATE`) until the transaction ends: the state read is the one changed. */
  getForUpdate(vendorId: string, releaseId: string): Promise<ReleaseRecord | undefined>;
  /** Newest first (registration time, ties by id), optionally of one product, channel or state. */
  list(vendorId: string, query: { productId?: string; channel?: string; state?: ReleaseState; limit: number; after?: AdminCursorPosition }): Promise<ReleaseRecord[]>;
  deprecate(vendorId: string, releaseId: string, at: Date): Promise<ReleaseTransition>;
  markCompromised(vendorId: string, releaseId: string, action: CompromiseAction, at: Date): Promise<ReleaseTransition>;
  /** Active machines that last reported this release. */
  countActiveDevices(releaseId: string): Promise<number>;
  securityFloor(vendorId: string, productId: string): Promise<number | undefined>;
  /** The floor after raising it by one. */
  bumpSecurityFloor(vendorId: string, productId: string): Promise<number | undefined>;
}

const rankSql = (value: string) => `array_position(ARRAY['warn', 'force_upgrade', 'revoke'], ${value})`;

/**
 * The SQL {@link ReleaseStore} over `license_releases` and `license_products.security_floor` (license
 * migration 009).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlReleaseStore } from '@tollgate/core/license';
 * const release = await createSqlReleaseStore(sql).get(vendorId, releaseId);
 * ```
 */
export function createSqlReleaseStore(sql: SqlClient): ReleaseStore {
  async function transition(vendorId: string, releaseId: string, update: string, params: readonly SqlParam[]): Promise<ReleaseTransition> {
    const { rows } = await sql.query<ReleaseRow>(`${update} RETURNING ${releaseColumns}`, [releaseId, vendorId, ...params]);
    if (rows[0] !== undefined) return { kind: 'done', changed: true, release: releaseFromRow(rows[0]) };
    // Nothing to change (or no such release): the committed row says which. The guarded UPDATE waited
    // for any concurrent change of the row, so this read sees its outcome.
    const current = await createSqlReleaseStore(sql).get(vendorId, releaseId);
    return current === undefined ? { kind: 'not_found' } : { kind: 'done', changed: false, release: current };
  }

  return {
    async register(release) {
      const { rows } = await sql.query<{ product_found: boolean; variant_reused: boolean | null } & Partial<ReleaseRow>>(
        `WITH product AS (
           SELECT product_id FROM license_products WHERE product_id = $3 AND vendor_id = $2
         ), inserted AS (
           INSERT INTO license_releases (release_id, vendor_id, product_id, app_version, channel, build_fingerprint, variant_id, has_variant_seed, manifest_root, module_digest, created_at, updated_at)
           SELECT $1, $2, product_id, $4, $5, $6, $7, $8, $9, $10, $11, $11 FROM product
           ON CONFLICT (product_id, build_fingerprint) DO NOTHING
           RETURNING ${releaseColumns}
         )
         SELECT EXISTS (SELECT 1 FROM product) AS product_found,
                EXISTS (SELECT 1 FROM license_releases WHERE product_id = $3 AND variant_id = $7) AS variant_reused,
                inserted.*
         FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`,
        [
          release.releaseId,
          release.vendorId,
          release.productId,
          release.appVersion,
          release.channel,
          release.buildFingerprint,
          release.variantId,
          release.hasVariantSeed,
          release.manifestRoot,
          release.moduleDigest,
          release.createdAt,
        ],
      );
      const row = rows[0];
      if (row === undefined || !row.product_found) return { kind: 'product_not_found' };
      if (row.release_id !== undefined && row.release_id !== null) return { kind: 'registered', release: releaseFromRow(row as ReleaseRow), variantReused: row.variant_reused === true };
      // The build is registered already (this statement's snapshot may predate a concurrent insert it
      // waited for, so the row is read by a new statement).
      const existing = await sql.query<ReleaseRow>(`SELECT ${releaseColumns} FROM license_releases WHERE product_id = $1 AND build_fingerprint = $2 AND vendor_id = $3`, [
        release.productId,
        release.buildFingerprint,
        release.vendorId,
      ]);
      if (existing.rows[0] === undefined) throw new Error('A release conflicted on (product, build fingerprint) but cannot be read.');
      return { kind: 'exists', release: releaseFromRow(existing.rows[0]) };
    },

    async get(vendorId, releaseId) {
      const { rows } = await sql.query<ReleaseRow>(`SELECT ${releaseColumns} FROM license_releases WHERE release_id = $1 AND vendor_id = $2`, [releaseId, vendorId]);
      return rows[0] === undefined ? undefined : releaseFromRow(rows[0]);
    },

    async getForUpdate(vendorId, releaseId) {
      const { rows } = await sql.query<ReleaseRow>(`SELECT ${releaseColumns} FROM license_releases WHERE release_id = $1 AND vendor_id = $2 FOR NO KEY UPDATE`, [releaseId, vendorId]);
      return rows[0] === undefined ? undefined : releaseFromRow(rows[0]);
    },

    async list(vendorId, query) {
      const { rows } = await sql.query<ReleaseRow>(
        `SELECT ${releaseColumns} FROM license_releases
         WHERE vendor_id = $1
           AND ($2::text IS NULL OR product_id = $2)
           AND ($3::text IS NULL OR channel = $3)
           AND ($4::text IS NULL OR state = $4)
           AND ($5::timestamptz IS NULL OR (created_at, release_id) < ($5, $6))
         ORDER BY created_at DESC, release_id DESC
         LIMIT $7`,
        [vendorId, query.productId ?? null, query.channel ?? null, query.state ?? null, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(releaseFromRow);
    },

    deprecate(vendorId, releaseId, at) {
      return transition(
        vendorId,
        releaseId,
        `UPDATE license_releases SET state = 'deprecated', deprecated_at = $3, updated_at = $3
         WHERE release_id = $1 AND vendor_id = $2 AND state = 'registered'`,
        [at],
      );
    },

    markCompromised(vendorId, releaseId, action, at) {
      // A release is compromised once (compromised_at keeps the first time); later calls may only raise
      // the action (warn → force_upgrade → revoke), decided by the guarded UPDATE on the committed row.
      return transition(
        vendorId,
        releaseId,
        `UPDATE license_releases
         SET state = 'compromised', compromise_action = $3, compromised_at = COALESCE(compromised_at, $4), updated_at = $4
         WHERE release_id = $1 AND vendor_id = $2
           AND (state <> 'compromised' OR ${rankSql('compromise_action')} < ${rankSql('$3::text')})`,
        [action, at],
      );
    },

    async countActiveDevices(releaseId) {
      const { rows } = await sql.query<{ devices: string }>(`SELECT count(*) AS devices FROM license_machines WHERE release_id = $1 AND status = 'active'`, [releaseId]);
      return Number(rows[0]?.devices ?? 0);
    },

    async securityFloor(vendorId, productId) {
      const { rows } = await sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1 AND vendor_id = $2', [productId, vendorId]);
      return rows[0]?.security_floor;
    },

    async bumpSecurityFloor(vendorId, productId) {
      const { rows } = await sql.query<{ security_floor: number }>(
        'UPDATE license_products SET security_floor = security_floor + 1 WHERE product_id = $1 AND vendor_id = $2 RETURNING security_floor',
        [productId, vendorId],
      );
      return rows[0]?.security_floor;
    },
  };
}
