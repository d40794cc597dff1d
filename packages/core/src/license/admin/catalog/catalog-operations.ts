import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { adminOperation, type AdminCall, type AdminOperation } from '../admin-operation';
import { pageOf, parseAdminInput, parseAdminPage } from '../admin-input';
import { catalogCreateSchema, catalogItemIdPattern, catalogListQuerySchema, catalogPatchSchema, resolveRequestSchema, timeOrderedPage, type CatalogKind } from '../../model/catalog/catalog-schemas';
import { createSqlCatalogStore, type CatalogItem, type CatalogStore, type UnknownMembers } from '../../model/catalog/catalog-store';
import { resolveEntitlements } from '../../model/catalog/resolve-entitlements';

/** What the catalog operations are built from. */
export interface CatalogOperationsDeps {
  /** The catalog store over a database or transaction (`createSqlCatalogStore` by default). */
  readonly catalog?: (sql: SqlClient) => CatalogStore;
}

/** Every body field of any kind; each kind's schema admits a subset. */
type CatalogBody = { product_id: string; id?: string; name?: string; description?: string; features?: string[]; groups?: string[] };

const collections = { feature: 'features', group: 'groups', tier: 'tiers' } as const satisfies Record<CatalogKind, string>;

/** The Admin view of an item: members only on the kinds that hold them. */
function itemView(item: CatalogItem) {
  return {
    id: item.itemId,
    product_id: item.productId,
    name: item.name,
    description: item.description,
    ...(item.kind === 'feature' ? {} : { features: [...item.members.features] }),
    ...(item.kind === 'tier' ? { groups: [...item.members.groups] } : {}),
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
}

function unknownMembers(kind: CatalogKind, outcome: UnknownMembers): AdminError {
  const named = outcome.missing.slice(0, 10).join(', ');
  return new AdminError('invalid_entitlement', `A ${kind}'s members must exist in the same product; unknown: ${named}${outcome.missing.length > 10 ? ', …' : ''}.`);
}

// Item ids are unique per product only, so the audit target names the product too.
const auditTarget = (item: { productId: string; itemId: string }) => `${item.productId}/${item.itemId}`;

/** A malformed path id names nothing: `not_found`, like an id of another vendor. */
function pathItemId(value: string | undefined, kind: CatalogKind): string {
  if (value === undefined || !catalogItemIdPattern.test(value)) throw new AdminError('not_found', `No such ${kind}.`);
  return value;
}

function kindOperations(kind: CatalogKind, store: (sql: SqlClient) => CatalogStore): AdminOperation[] {
  const collection = collections[kind];
  const createSchema = catalogCreateSchema(kind);
  const patchSchema = catalogPatchSchema(kind);
  const patchItem = async (call: AdminCall, pathId: string | undefined) => {
    const itemId = pathItemId(pathId, kind);
    const catalog = store(call.sql);
    // The target first: an id none of the caller's products has is 404 whatever the body says, so a
    // request naming another vendor's item never learns more than "not found".
    if (!(await catalog.hasItem(call.actor.vendorId, kind, itemId))) throw new AdminError('not_found', `No such ${kind}.`);
    const { product_id: productId, id, ...changes } = parseAdminInput(patchSchema, call.body) as CatalogBody;
    if (id !== undefined && id !== itemId) throw new AdminError('invalid_request', `Catalog ids are immutable: the body id must equal the path id (${itemId}).`);
    const outcome = await catalog.update(call.actor.vendorId, productId, kind, itemId, changes, call.now);
    if (outcome.kind === 'not_found') throw new AdminError('not_found', `No such ${kind}.`);
    if (outcome.kind === 'unknown_members') throw unknownMembers(kind, outcome);
    await call.audit({ action: `catalog.${kind}.update`, targetType: `catalog_${kind}`, targetId: auditTarget(outcome.item), summary: { product_id: productId, id: itemId, changed: Object.keys(changes).sort() } });
    return { body: { [kind]: itemView(outcome.item) } };
  };
  // The path parameter names the target kind (`:featureId`, `:groupId`, `:tierId`): the isolation
  // matrix seeds another vendor's target by that name.
  const param = `${kind}Id`;
  const patch = adminOperation({
    method: 'PATCH',
    path: `/catalog/${collection}/:${param}`,
    docs: { summary: `Changes a catalog ${kind} (ids are immutable).`, body: patchSchema, errors: ['invalid_entitlement'] },
    scopes: ['catalog:rw'],
    kind: 'mutation',
    run: (call) => patchItem(call, (call.params as Readonly<Record<string, string>>)[param]),
  });
  return [
    adminOperation({
      method: 'GET',
      path: `/catalog/${collection}`,
      docs: { summary: `Lists the ${collection} of a product's catalog.`, query: catalogListQuerySchema, paged: true },
      scopes: ['catalog:rw'],
      kind: 'read',
      run: async (call) => {
        const { product_id: productId } = parseAdminInput(catalogListQuerySchema, call.query);
        const page = timeOrderedPage(parseAdminPage(call.query));
        const catalog = store(call.sql);
        if (!(await catalog.hasProduct(call.actor.vendorId, productId))) throw new AdminError('not_found', 'No such product.');
        const rows = await catalog.list(call.actor.vendorId, productId, kind, { limit: page.limit + 1, ...(page.after === undefined ? {} : { after: page.after }) });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.itemId }));
        return { body: { [collection]: items.map(itemView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: `/catalog/${collection}`,
      docs: { summary: `Adds a ${kind} to a product's catalog.`, body: createSchema, status: 201, errors: ['catalog_item_exists', 'invalid_entitlement'] },
      scopes: ['catalog:rw'],
      kind: 'mutation',
      run: async (call) => {
        const { product_id: productId, id, name, description, ...members } = parseAdminInput(createSchema, call.body) as Required<Pick<CatalogBody, 'id' | 'name' | 'description'>> & CatalogBody;
        const outcome = await store(call.sql).create({
          vendorId: call.actor.vendorId,
          productId,
          kind,
          itemId: id,
          name,
          description,
          members: { features: members.features ?? [], groups: members.groups ?? [] },
          createdAt: call.now,
        });
        if (outcome.kind === 'product_not_found') throw new AdminError('not_found', 'No such product.');
        if (outcome.kind === 'unknown_members') throw unknownMembers(kind, outcome);
        if (outcome.kind === 'exists') throw new AdminError('catalog_item_exists', `This product already has a ${kind} "${id}"; catalog ids are immutable and never reused, so PATCH it or choose another id.`);
        await call.audit({ action: `catalog.${kind}.create`, targetType: `catalog_${kind}`, targetId: auditTarget(outcome.item), summary: { product_id: productId, id, name, ...members } });
        return { status: 201, body: { [kind]: itemView(outcome.item) } };
      },
    }),
    patch,
  ];
}

/**
 * The catalog routes (scope `catalog:rw`), for each kind (`features`, `groups`, `tiers`):
 *
 * - `GET /catalog/{kind}s?product_id=…` lists a product's items in publication order (`limit`, `cursor`)
 *   → `{ features | groups | tiers, next_cursor }`;
 * - `POST /catalog/{kind}s` publishes an item → 201 `{ feature | group | tier }`; an id the product
 *   already has is 409 `catalog_item_exists`;
 * - `PATCH /catalog/{kind}s/:id` (body `product_id` plus the fields to change) edits name, description
 *   and members; a body `id` other than the path id is 400.
 *
 * Groups hold features and tiers hold features and groups of the same product (else 422
 * `invalid_entitlement`). There is no DELETE: published ids are permanent, and the route table answers
 * 405 `method_not_allowed`. `POST /catalog/resolve` (a read) answers `{ snapshot }` from
 * {@link resolveEntitlements}. Another vendor's product or item is 404 `not_found`.
 *
 * @param deps - The store factory (optional).
 * @returns The operations.
 * @example
 * ```ts
 * import { catalogOperations, createLicenseAdminApi } from '@tollgate/core/license';
 * const admin = createLicenseAdminApi({ ...options, operations: [...catalogOperations()] });
 * ```
 */
export function catalogOperations(deps: CatalogOperationsDeps = {}): AdminOperation[] {
  const store = deps.catalog ?? createSqlCatalogStore;
  return [
    ...kindOperations('feature', store),
    ...kindOperations('group', store),
    ...kindOperations('tier', store),
    adminOperation({
      method: 'POST',
      path: '/catalog/resolve',
      docs: { summary: 'Resolves a tier, groups and features into the entitlement snapshot a license would carry (changes nothing).', body: resolveRequestSchema, errors: ['invalid_entitlement'] },
      scopes: ['catalog:rw'],
      kind: 'read',
      run: async (call) => {
        const input = parseAdminInput(resolveRequestSchema, call.body);
        return { body: { snapshot: await resolveEntitlements(call.sql, call.actor.vendorId, input) } };
      },
    }),
  ];
}
