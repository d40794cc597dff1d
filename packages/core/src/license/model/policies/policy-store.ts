import type { SqlClient } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../page';
import { policyDocument, type PolicyDocument } from './policy-document';

/** A policy: its current document and version. */
export interface PolicyRecord {
  readonly policyId: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly version: number;
  readonly document: PolicyDocument;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One stored version of a policy (versions are immutable). */
export interface PolicyVersionRecord {
  readonly policyId: string;
  readonly version: number;
  readonly document: PolicyDocument;
  readonly createdAt: Date;
  /** The Admin token id (or `cli:…`) that stored it. */
  readonly actor: string;
}

/** The outcome of {@link PolicyStore.create}. */
export type CreatePolicyOutcome = { readonly kind: 'created'; readonly policy: PolicyRecord } | { readonly kind: 'product_not_found' } | { readonly kind: 'exists' };

/**
 * Policies and their versions.
 *
 * Contract: every read and write names the vendor; another vendor's policy or product behaves exactly
 * like a missing one. `create` stores the policy at version 1 and its version row in one statement
 * (of concurrent creates of one id exactly one succeeds, the others report `exists`). `replace` bumps
 * the version in SQL under the policy's row lock and stores the new version row in the same statement,
 * so concurrent replacements get distinct, consecutive versions and none is lost. It never changes
 * the product: a document of another product replaces nothing.
 */
export interface PolicyStore {
  create(vendorId: string, document: PolicyDocument, actor: string, at: Date): Promise<CreatePolicyOutcome>;
  /** The new current policy, or `undefined` when the vendor has no such policy of `document.product_id`. */
  replace(vendorId: string, document: PolicyDocument, actor: string, at: Date): Promise<PolicyRecord | undefined>;
  get(vendorId: string, policyId: string): Promise<PolicyRecord | undefined>;
  getVersion(vendorId: string, policyId: string, version: number): Promise<PolicyVersionRecord | undefined>;
  /** Newest first (creation time, ties by id), optionally of one product. */
  list(vendorId: string, query: { productId?: string; limit: number; after?: AdminCursorPosition }): Promise<PolicyRecord[]>;
  /** Newest version first, starting below `beforeVersion` when given. */
  listVersions(vendorId: string, policyId: string, query: { limit: number; beforeVersion?: number }): Promise<PolicyVersionRecord[]>;
}

type PolicyRow = { policy_id: string; vendor_id: string; product_id: string; version: number; document: PolicyDocument; created_at: Date; updated_at: Date };
type VersionRow = { policy_id: string; version: number; document: PolicyDocument; created_at: Date; actor: string };

const columns = 'policy_id, vendor_id, product_id, version, document, created_at, updated_at';

const toPolicy = (row: PolicyRow): PolicyRecord => ({
  policyId: row.policy_id,
  vendorId: row.vendor_id,
  productId: row.product_id,
  version: Number(row.version),
  document: policyDocument(row.document),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toVersion = (row: VersionRow): PolicyVersionRecord => ({
  policyId: row.policy_id,
  version: Number(row.version),
  document: policyDocument(row.document),
  createdAt: row.created_at,
  actor: row.actor,
});

/**
 * The SQL {@link PolicyStore} over `license_policies` and `license_policy_versions` (license migration 005).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlPolicyStore } from '@tollgate/core/license';
 * const policy = await createSqlPolicyStore(sql).get(vendorId, policyId);
 * ```
 */
export function createSqlPolicyStore(sql: SqlClient): PolicyStore {
  return {
    async create(vendorId, document, actor, at) {
      // The version row's foreign key is checked at the end of the statement, after both inserts.
      const { rows } = await sql.query<{ product_found: boolean } & Partial<PolicyRow>>(
        `WITH product AS (
           SELECT product_id FROM license_products WHERE product_id = $2 AND vendor_id = $1
         ), inserted AS (
           INSERT INTO license_policies (${columns})
           SELECT $3, $1, product_id, 1, $4::jsonb, $5, $5 FROM product
           ON CONFLICT (policy_id) DO NOTHING
           RETURNING ${columns}
         ), first_version AS (
           INSERT INTO license_policy_versions (policy_id, version, document, created_at, actor)
           SELECT policy_id, version, document, created_at, $6 FROM inserted
         )
         SELECT EXISTS (SELECT 1 FROM product) AS product_found, inserted.* FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`,
        [vendorId, document.product_id, document.id, JSON.stringify(document), at, actor],
      );
      const row = rows[0];
      if (row === undefined || !row.product_found) return { kind: 'product_not_found' };
      if (row.policy_id === undefined || row.policy_id === null) return { kind: 'exists' };
      return { kind: 'created', policy: toPolicy(row as PolicyRow) };
    },

    async replace(vendorId, document, actor, at) {
      // `version + 1` is computed by the UPDATE itself: a concurrent replacement waits for this row's
      // lock, then re-reads the committed version, so two replacements can never both store version n.
      const { rows } = await sql.query<PolicyRow>(
        `WITH updated AS (
           UPDATE license_policies SET version = version + 1, document = $4::jsonb, updated_at = $5
           WHERE policy_id = $1 AND vendor_id = $2 AND product_id = $3
           RETURNING ${columns}
         ), new_version AS (
           INSERT INTO license_policy_versions (policy_id, version, document, created_at, actor)
           SELECT policy_id, version, document, updated_at, $6 FROM updated
         )
         SELECT * FROM updated`,
        [document.id, vendorId, document.product_id, JSON.stringify(document), at, actor],
      );
      return rows[0] === undefined ? undefined : toPolicy(rows[0]);
    },

    async get(vendorId, policyId) {
      const { rows } = await sql.query<PolicyRow>(`SELECT ${columns} FROM license_policies WHERE policy_id = $1 AND vendor_id = $2`, [policyId, vendorId]);
      return rows[0] === undefined ? undefined : toPolicy(rows[0]);
    },

    async getVersion(vendorId, policyId, version) {
      const { rows } = await sql.query<VersionRow>(
        `SELECT v.policy_id, v.version, v.document, v.created_at, v.actor
         FROM license_policy_versions v JOIN license_policies p ON p.policy_id = v.policy_id
         WHERE v.policy_id = $1 AND p.vendor_id = $2 AND v.version = $3`,
        [policyId, vendorId, version],
      );
      return rows[0] === undefined ? undefined : toVersion(rows[0]);
    },

    async list(vendorId, query) {
      const { rows } = await sql.query<PolicyRow>(
        `SELECT ${columns} FROM license_policies
         WHERE vendor_id = $1
           AND ($2::text IS NULL OR product_id = $2)
           AND ($3::timestamptz IS NULL OR (created_at, policy_id) < ($3, $4))
         ORDER BY created_at DESC, policy_id DESC
         LIMIT $5`,
        [vendorId, query.productId ?? null, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(toPolicy);
    },

    async listVersions(vendorId, policyId, query) {
      const { rows } = await sql.query<VersionRow>(
        `SELECT v.policy_id, v.version, v.document, v.created_at, v.actor
         FROM license_policy_versions v JOIN license_policies p ON p.policy_id = v.policy_id
         WHERE v.policy_id = $1 AND p.vendor_id = $2 AND ($3::bigint IS NULL OR v.version < $3)
         ORDER BY v.version DESC
         LIMIT $4`,
        [policyId, vendorId, query.beforeVersion ?? null, query.limit],
      );
      return rows.map(toVersion);
    },
  };
}
