import * as v from 'valibot';
import { randomId } from '../../../crypto/random';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { adminOperation, type AdminCall, type AdminOperation } from '../admin-operation';
import { adminPathId, pageOf, parseAdminInput, parseAdminPage } from '../admin-input';
import { hexProductIdSchema, sortedCatalogIds, timeOrderedPage } from '../../model/catalog/catalog-schemas';
import { createSqlCatalogStore, type CatalogStore } from '../../model/catalog/catalog-store';
import { policyCreateSchema, policyDocument, policyReplaceSchema, type PolicyDocument } from '../../model/policies/policy-document';
import { createSqlPolicyStore, type PolicyRecord, type PolicyStore } from '../../model/policies/policy-store';
import { policyWarnings } from '../../model/policies/policy-warnings';

/** What the policy operations are built from (each defaults to its SQL store). */
export interface PolicyOperationsDeps {
  readonly policies?: (sql: SqlClient) => PolicyStore;
  /** Where `tier` and `fallback_tier` are looked up. */
  readonly catalog?: (sql: SqlClient) => CatalogStore;
}

const listQuerySchema = v.object({ product_id: v.optional(hexProductIdSchema) });
const getQuerySchema = v.object({
  version: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/, 'version must be a whole number from 1'), v.transform(Number))),
});

function policyView(policy: PolicyRecord) {
  return { policy: policy.document, version: policy.version, created_at: policy.createdAt.toISOString(), updated_at: policy.updatedAt.toISOString() };
}

const warningCodes = (warnings: readonly string[]) => warnings.map((warning) => warning.slice(0, warning.indexOf(':')));

/**
 * The policy routes (scope `policies:rw`); the Policy document is defined in docs/policies.md.
 *
 * - `GET /policies` lists the vendor's policies newest first (`product_id` filter, `limit`, `cursor`)
 *   → `{ policies: [{ policy, version, created_at, updated_at }], next_cursor }`.
 * - `POST /policies` stores version 1 → 201 `{ policy, version: 1, warnings }`; `id` is assigned when
 *   absent, an id in use is 409 `policy_exists`.
 * - `GET /policies/:policyId` → `{ policy, version, created_at, updated_at, warnings }`;
 *   `?version=N` reads a stored version → `{ policy, version, created_at, actor, warnings }` (404 when absent).
 * - `PATCH /policies/:policyId` takes the full document (`id` equal to the path, same `product_id`, else
 *   400) and stores the next version → `{ policy, version, warnings }`.
 * - `GET /policies/:policyId/versions` lists versions newest first → `{ versions, next_cursor }`.
 *
 * `tier` and `fallback_tier` must be tiers of the product's catalog (422 `invalid_entitlement`).
 * Another vendor's policy or product is 404 `not_found`.
 *
 * @param deps - Store factories (optional).
 * @returns The operations.
 * @example
 * ```ts
 * import { policyOperations, createLicenseAdminApi } from '@tollgate/core/license';
 * const admin = createLicenseAdminApi({ ...options, operations: [...policyOperations()] });
 * ```
 */
export function policyOperations(deps: PolicyOperationsDeps = {}): AdminOperation[] {
  const policies = deps.policies ?? createSqlPolicyStore;
  const catalog = deps.catalog ?? createSqlCatalogStore;

  async function requireTiers(call: AdminCall, document: PolicyDocument): Promise<void> {
    const named = sortedCatalogIds([document.tier, document.fallback_tier].filter((tier): tier is string => tier !== null));
    const missing = await catalog(call.sql).missingIds(call.actor.vendorId, document.product_id, 'tier', named);
    if (missing.length > 0) throw new AdminError('invalid_entitlement', `Not a tier of this product's catalog: ${missing.join(', ')}.`);
  }

  async function requirePolicy(call: AdminCall, pathId: string | undefined): Promise<PolicyRecord> {
    const policy = await policies(call.sql).get(call.actor.vendorId, adminPathId(pathId, 'policy'));
    if (policy === undefined) throw new AdminError('not_found', 'No such policy.');
    return policy;
  }

  return [
    adminOperation({
      method: 'GET',
      path: '/policies',
      docs: { summary: 'Lists policies, newest first.', query: listQuerySchema, paged: true },
      scopes: ['policies:rw'],
      kind: 'read',
      run: async (call) => {
        const { product_id: productId } = parseAdminInput(listQuerySchema, call.query);
        const page = timeOrderedPage(parseAdminPage(call.query));
        if (productId !== undefined && !(await catalog(call.sql).hasProduct(call.actor.vendorId, productId))) throw new AdminError('not_found', 'No such product.');
        const rows = await policies(call.sql).list(call.actor.vendorId, {
          limit: page.limit + 1,
          ...(productId === undefined ? {} : { productId }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.policyId }));
        return { body: { policies: items.map(policyView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/policies',
      docs: { summary: 'Creates a policy (version 1); see docs/policies.md.', body: policyCreateSchema, status: 201, errors: ['policy_exists', 'invalid_entitlement'] },
      scopes: ['policies:rw'],
      kind: 'mutation',
      run: async (call) => {
        const body = parseAdminInput(policyCreateSchema, call.body);
        const document = policyDocument({ ...body, id: body.id ?? randomId() });
        if (!(await catalog(call.sql).hasProduct(call.actor.vendorId, document.product_id))) throw new AdminError('not_found', 'No such product.');
        await requireTiers(call, document);
        const outcome = await policies(call.sql).create(call.actor.vendorId, document, call.actor.tokenId, call.now);
        if (outcome.kind === 'product_not_found') throw new AdminError('not_found', 'No such product.');
        if (outcome.kind === 'exists') throw new AdminError('policy_exists', 'A policy with this id already exists; PATCH it, or leave id out to have one assigned.');
        const warnings = policyWarnings(document);
        await call.audit({ action: 'policy.create', targetType: 'policy', targetId: document.id, summary: { product_id: document.product_id, name: document.name, version: 1, warnings: warningCodes(warnings) } });
        return { status: 201, body: { policy: outcome.policy.document, version: outcome.policy.version, warnings } };
      },
    }),
    adminOperation({
      method: 'GET',
      path: '/policies/:policyId',
      docs: { summary: 'Reads a policy, or one stored version of it (?version=N).', query: getQuerySchema },
      scopes: ['policies:rw'],
      kind: 'read',
      run: async (call) => {
        const policy = await requirePolicy(call, call.params.policyId);
        const { version } = parseAdminInput(getQuerySchema, call.query);
        if (version === undefined) return { body: { ...policyView(policy), warnings: policyWarnings(policy.document) } };
        const stored = await policies(call.sql).getVersion(call.actor.vendorId, policy.policyId, version);
        if (stored === undefined) throw new AdminError('not_found', `Policy ${policy.policyId} has no version ${version}.`);
        return { body: { policy: stored.document, version: stored.version, created_at: stored.createdAt.toISOString(), actor: stored.actor, warnings: policyWarnings(stored.document) } };
      },
    }),
    adminOperation({
      method: 'PATCH',
      path: '/policies/:policyId',
      docs: { summary: 'Replaces a policy with the full document, storing the next version.', body: policyReplaceSchema, errors: ['invalid_entitlement'] },
      scopes: ['policies:rw'],
      kind: 'mutation',
      run: async (call) => {
        // The target first: another vendor's policy is 404 whatever the body says.
        const current = await requirePolicy(call, call.params.policyId);
        const document = policyDocument(parseAdminInput(policyReplaceSchema, call.body));
        if (document.id !== current.policyId) throw new AdminError('invalid_request', `The document id must equal the path id (${current.policyId}).`);
        if (document.product_id !== current.productId) throw new AdminError('invalid_request', `A policy's product_id cannot change (it is ${current.productId}); create a new policy instead.`);
        await requireTiers(call, document);
        const replaced = await policies(call.sql).replace(call.actor.vendorId, document, call.actor.tokenId, call.now);
        if (replaced === undefined) throw new AdminError('not_found', 'No such policy.');
        const warnings = policyWarnings(document);
        await call.audit({
          action: 'policy.update',
          targetType: 'policy',
          targetId: document.id,
          summary: { product_id: document.product_id, name: document.name, version: replaced.version, warnings: warningCodes(warnings) },
        });
        return { body: { policy: replaced.document, version: replaced.version, warnings } };
      },
    }),
    adminOperation({
      method: 'GET',
      path: '/policies/:policyId/versions',
      docs: { summary: 'Lists the stored versions of a policy, newest first.', paged: true },
      scopes: ['policies:rw'],
      kind: 'read',
      run: async (call) => {
        const policy = await requirePolicy(call, call.params.policyId);
        const page = parseAdminPage(call.query);
        // Versions page by number, newest first: the cursor's position is the last version shown.
        const rows = await policies(call.sql).listVersions(call.actor.vendorId, policy.policyId, { limit: page.limit + 1, ...(page.after === undefined ? {} : { beforeVersion: page.after.at }) });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.version, id: row.policyId }));
        return { body: { versions: items.map((row) => ({ version: row.version, created_at: row.createdAt.toISOString(), actor: row.actor, policy: row.document })), next_cursor: nextCursor } };
      },
    }),
  ];
}
