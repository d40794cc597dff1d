import * as v from 'valibot';
import type { AdminList, AdminTransport, MutationOptions, ReadOptions } from '../transport-types';

const policyDocumentEntries = {
  id: v.string(),
  product_id: v.string(),
  name: v.string(),
  seats: v.number(),
  validation_interval_seconds: v.number(),
  validation_grace_seconds: v.number(),
  heartbeat_window_seconds: v.nullable(v.number()),
  offline_allowed: v.boolean(),
  version_scope: v.nullable(v.looseObject({ min: v.optional(v.string()), max_exclusive: v.optional(v.string()) })),
  tier: v.nullable(v.string()),
  telemetry: v.picklist(['off', 't1']),
  duration_seconds: v.nullable(v.number()),
  expiry_behavior: v.picklist(['deny', 'grace', 'fallback']),
  fallback_tier: v.nullable(v.string()),
};
/**
 * A Policy document: the rules licenses are issued under, in the server's snake_case (docs/policies.md
 * defines every field). `policies.update` takes the full document, as `policies.get` answers it.
 */
export const policyDocumentSchema = v.looseObject(policyDocumentEntries);
/** A Policy document (snake_case, as on the wire): exactly its fields, so a typo is a type error. */
export type PolicyDocument = v.InferOutput<v.ObjectSchema<typeof policyDocumentEntries, undefined>>;

/** What `policies.create` takes: `product_id` and `name`; every other field defaults (docs/policies.md), `id` is assigned when absent. */
export type PolicyCreateInput = Partial<Omit<PolicyDocument, 'product_id' | 'name'>> & Pick<PolicyDocument, 'product_id' | 'name'>;

/** Warnings: legal but risky settings, each `"<code>: <message>"`; they never refuse a document. */
const warningsSchema = v.array(v.string());

/** A stored policy as listed: its current document and version. */
export const policySummarySchema = v.looseObject({ policy: policyDocumentSchema, version: v.number(), created_at: v.string(), updated_at: v.string() });
/** A listed policy. */
export type PolicySummary = v.InferOutput<typeof policySummarySchema>;

/** The answer of `create` and `update`: the stored document, its version and its warnings. */
export const policyWriteSchema = v.looseObject({ policy: policyDocumentSchema, version: v.number(), warnings: warningsSchema });
/** The answer of `create` and `update`. */
export type PolicyWrite = v.InferOutput<typeof policyWriteSchema>;

/**
 * The answer of `get`: the current version (with `updated_at`) or, with `{ version }`, that stored
 * version (with the `actor` that wrote it).
 */
export const policyReadSchema = v.looseObject({
  policy: policyDocumentSchema,
  version: v.number(),
  created_at: v.string(),
  updated_at: v.optional(v.string()),
  actor: v.optional(v.string()),
  warnings: warningsSchema,
});
/** The answer of `get`. */
export type PolicyRead = v.InferOutput<typeof policyReadSchema>;

/** One stored version of a policy. */
export const policyVersionSchema = v.looseObject({ version: v.number(), created_at: v.string(), actor: v.string(), policy: policyDocumentSchema });
/** One stored version of a policy. */
export type PolicyVersion = v.InferOutput<typeof policyVersionSchema>;

/** The query of `policies.list`. */
export interface PolicyListQuery {
  readonly productId?: string;
  /** Page size, 1 to 200 (server default 50). */
  readonly limit?: number;
}

/** The `policies` group. */
export interface PoliciesResource {
  /**
   * Lists the vendor's policies, newest first (`GET /policies`), every page on demand.
   *
   * @example `for await (const { policy, version } of admin.policies.list({ productId })) console.log(policy.name, version);`
   */
  list(query?: PolicyListQuery, options?: ReadOptions): AdminList<PolicySummary>;
  /**
   * Stores version 1 of a policy (`POST /policies`, 201); an id in use is 409 `policy_exists`, a tier outside
   * the product's catalog 422 `invalid_entitlement`.
   *
   * @example `const { policy } = await admin.policies.create({ product_id: productId, name: 'Pro', seats: 3, tier: 'pro' });`
   */
  create(document: PolicyCreateInput, options?: MutationOptions): Promise<PolicyWrite>;
  /**
   * Reads a policy's current version, or a stored one with `{ version }` (`GET /policies/:policyId`).
   *
   * @example `const { policy, version } = await admin.policies.get(policyId, { version: 1 });`
   */
  get(policyId: string, query?: { readonly version?: number }, options?: ReadOptions): Promise<PolicyRead>;
  /**
   * Stores the next version (`PATCH /policies/:policyId`): the full document, same `id` and `product_id`.
   *
   * @example `await admin.policies.update(policyId, { ...policy, seats: 5 });`
   */
  update(policyId: string, document: PolicyDocument, options?: MutationOptions): Promise<PolicyWrite>;
  /**
   * Lists a policy's stored versions, newest first (`GET /policies/:policyId/versions`).
   *
   * @example `for await (const { version, actor } of admin.policies.versions(policyId)) console.log(version, actor);`
   */
  versions(policyId: string, query?: { readonly limit?: number }, options?: ReadOptions): AdminList<PolicyVersion>;
}

/**
 * Builds the `policies` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const policies = createPoliciesResource(transport);
 * const { policy } = await policies.get(policyId);
 * await policies.update(policyId, { ...policy, seats: policy.seats + 1 });
 * ```
 */
export function createPoliciesResource(transport: AdminTransport): PoliciesResource {
  const policyPath = (policyId: string) => `/policies/${encodeURIComponent(policyId)}`;
  return {
    list: (query = {}, options) =>
      transport.list({ path: '/policies', query: { product_id: query.productId, limit: query.limit }, itemsKey: 'policies', itemSchema: policySummarySchema, options }),
    create: async (document, options) => (await transport.request({ method: 'POST', path: '/policies', kind: 'mutation', body: document, schema: policyWriteSchema, options })).body,
    get: async (policyId, query = {}, options) =>
      (await transport.request({ method: 'GET', path: policyPath(policyId), kind: 'read', query: { version: query.version }, schema: policyReadSchema, options })).body,
    update: async (policyId, document, options) =>
      (await transport.request({ method: 'PATCH', path: policyPath(policyId), kind: 'mutation', body: document, schema: policyWriteSchema, options })).body,
    versions: (policyId, query = {}, options) =>
      transport.list({ path: `${policyPath(policyId)}/versions`, query: { limit: query.limit }, itemsKey: 'versions', itemSchema: policyVersionSchema, options }),
  };
}
