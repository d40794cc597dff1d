import * as v from 'valibot';
import type { SqlClient } from '../../../storage/sql-client';

const versionScopeSchema = v.nullable(v.object({ min: v.optional(v.string()), max_exclusive: v.optional(v.string()) }));

/**
 * The fields of a stored Policy document (docs/policies.md) that licenses read. The policies work
 * validates documents when they are stored; this only picks the fields, so a document stored by a newer
 * version with more fields still reads.
 */
const policyTermsSchema = v.object({
  seats: v.pipe(v.number(), v.integer(), v.minValue(1)),
  validation_grace_seconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
  offline_allowed: v.boolean(),
  version_scope: v.optional(versionScopeSchema, null),
  tier: v.optional(v.nullable(v.string()), null),
  duration_seconds: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), null),
  expiry_behavior: v.picklist(['deny', 'grace', 'fallback']),
  fallback_tier: v.optional(v.nullable(v.string()), null),
});

/** What a license takes from its policy. */
export type PolicyTerms = v.InferOutput<typeof policyTermsSchema>;

/** A policy as licenses see it: its product and its terms. */
export interface LicensePolicy {
  readonly policyId: string;
  readonly productId: string;
  readonly version: number;
  readonly terms: PolicyTerms;
}

/**
 * Reads the terms of a policy document. A stored document that lacks them is a server fault (the
 * policies work validates documents), so this throws rather than answering a client error.
 *
 * @param document - The stored JSON document.
 * @returns The terms.
 * @throws Error when the document lacks a field licenses need.
 * @example
 * ```ts
 * import { policyTerms } from '@tollgate/core/license';
 * const { seats } = policyTerms(row.document);
 * ```
 */
export function policyTerms(document: unknown): PolicyTerms {
  const result = v.safeParse(policyTermsSchema, document);
  if (!result.success) throw new Error(`A stored policy document lacks license terms (${v.getDotPath(result.issues[0]) ?? 'document'}).`);
  return result.output;
}

/**
 * A policy of the vendor, or `undefined` (another vendor's policy included).
 *
 * @param sql - The database or a transaction.
 * @param vendorId - The caller's vendor.
 * @param policyId - The policy.
 * @returns The policy.
 * @example
 * ```ts
 * import { readLicensePolicy } from '@tollgate/core/license';
 * const policy = await readLicensePolicy(sql, vendorId, policyId);
 * ```
 */
export async function readLicensePolicy(sql: SqlClient, vendorId: string, policyId: string): Promise<LicensePolicy | undefined> {
  const { rows } = await sql.query<{ policy_id: string; product_id: string; version: number; document: unknown }>(
    'SELECT policy_id, product_id, version, document FROM license_policies WHERE policy_id = $1 AND vendor_id = $2',
    [policyId, vendorId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { policyId: row.policy_id, productId: row.product_id, version: Number(row.version), terms: policyTerms(row.document) };
}
