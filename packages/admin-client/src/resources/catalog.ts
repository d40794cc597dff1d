import * as v from 'valibot';
import type { AdminList, AdminTransport, MutationOptions, ReadOptions } from '../transport-types';

/** A catalog feature as the server shows it (`id` is the operator-chosen slug, immutable once created). */
export const catalogFeatureSchema = v.looseObject({
  id: v.string(),
  product_id: v.string(),
  name: v.string(),
  description: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
});
/** A catalog feature. */
export type CatalogFeature = v.InferOutput<typeof catalogFeatureSchema>;

/** A catalog group: a named set of features of the same product. */
export const catalogGroupSchema = v.looseObject({ ...catalogFeatureSchema.entries, features: v.array(v.string()) });
/** A catalog group. */
export type CatalogGroup = v.InferOutput<typeof catalogGroupSchema>;

/** A catalog tier: features and groups of the same product. */
export const catalogTierSchema = v.looseObject({ ...catalogGroupSchema.entries, groups: v.array(v.string()) });
/** A catalog tier. */
export type CatalogTier = v.InferOutput<typeof catalogTierSchema>;

/** A resolved entitlement: the tier and the sorted feature ids, with their digest (also in licenses' answers). */
export const entitlementSnapshotSchema = v.looseObject({
  product_id: v.string(),
  tier: v.nullable(v.string()),
  features: v.array(v.string()),
  /** Hex SHA-256 of the canonical `{ product_id, tier, features }`. */
  digest: v.string(),
});
/** A resolved entitlement snapshot. */
export type EntitlementSnapshot = v.InferOutput<typeof entitlementSnapshotSchema>;

/** The query of a catalog list. */
export interface CatalogListQuery {
  readonly productId: string;
  /** Page size, 1 to 200 (server default 50). */
  readonly limit?: number;
}

/** The members a group (`features`) or a tier (`features`, `groups`) holds; ids of the same product. */
export interface CatalogMembers {
  readonly features?: readonly string[];
  readonly groups?: readonly string[];
}

/** A new catalog item: `id` is a slug (`[a-z0-9][a-z0-9._-]{0,63}`), permanent and never reused. */
export interface CatalogCreateInput {
  readonly productId: string;
  readonly id: string;
  readonly name: string;
  readonly description?: string;
}

/** The fields to change on a catalog item (`productId` names whose item; ids are unique per product). */
export interface CatalogUpdateInput {
  readonly productId: string;
  readonly name?: string;
  readonly description?: string;
}

/** One kind of catalog item (`features`, `groups`, `tiers`): list, create, update; there is no delete. */
export interface CatalogKindResource<Item, Members extends object> {
  /**
   * Lists a product's items in publication order (`GET /catalog/{kind}s`).
   *
   * @example `for await (const feature of admin.catalog.features.list({ productId })) console.log(feature.id);`
   */
  list(query: CatalogListQuery, options?: ReadOptions): AdminList<Item>;
  /**
   * Publishes an item (`POST /catalog/{kind}s`, 201); an id the product already has is 409 `catalog_item_exists`.
   *
   * @example `const pdf = await admin.catalog.features.create({ productId, id: 'export.pdf', name: 'PDF export' });`
   */
  create(input: CatalogCreateInput & Members, options?: MutationOptions): Promise<Item>;
  /**
   * Changes name, description or members (member lists are replaced whole) (`PATCH /catalog/{kind}s/:id`).
   *
   * @example `await admin.catalog.tiers.update('pro', { productId, groups: ['export'] });`
   */
  update(itemId: string, input: CatalogUpdateInput & Members, options?: MutationOptions): Promise<Item>;
}

/** What `resolve` takes: a tier and/or features and groups, plus overrides applied last (a removal wins). */
export interface CatalogResolveInput {
  readonly productId: string;
  readonly tier?: string | null;
  readonly features?: readonly string[];
  readonly groups?: readonly string[];
  readonly overrides?: { readonly add?: readonly string[]; readonly remove?: readonly string[] };
}

/** The `catalog` group: features, groups and tiers of a product's entitlement catalog. */
export interface CatalogResource {
  readonly features: CatalogKindResource<CatalogFeature, Record<never, never>>;
  readonly groups: CatalogKindResource<CatalogGroup, Pick<CatalogMembers, 'features'>>;
  readonly tiers: CatalogKindResource<CatalogTier, CatalogMembers>;
  /**
   * Resolves an entitlement without storing anything (`POST /catalog/resolve`, a read): every id named must
   * exist in the product's catalog (else `invalid_entitlement`).
   *
   * @example `const { features, digest } = await admin.catalog.resolve({ productId, tier: 'pro' });`
   */
  resolve(input: CatalogResolveInput, options?: ReadOptions): Promise<EntitlementSnapshot>;
}

type Kind = { readonly collection: string; readonly singular: string };

/** The member keys as the server spells them (identical names; only copied when given). */
function membersBody(input: CatalogMembers): Record<string, readonly string[] | undefined> {
  return { features: input.features, groups: input.groups };
}

function kindResource<Item, Members extends object>(transport: AdminTransport, kind: Kind, itemSchema: v.GenericSchema<unknown, Item>): CatalogKindResource<Item, Members> {
  // The answer of create and update names the item by its kind: `{ feature }`, `{ group }`, `{ tier }`.
  const answerSchema = v.pipe(
    v.looseObject({ [kind.singular]: itemSchema }),
    v.transform((answer) => answer[kind.singular] as Item),
  );
  return {
    list: (query, options) =>
      transport.list({ path: `/catalog/${kind.collection}`, query: { product_id: query.productId, limit: query.limit }, itemsKey: kind.collection, itemSchema, options }),
    create: async (input, options) => {
      const members = membersBody(input as CatalogMembers);
      const body = { product_id: input.productId, id: input.id, name: input.name, description: input.description, ...members };
      return (await transport.request({ method: 'POST', path: `/catalog/${kind.collection}`, kind: 'mutation', body, schema: answerSchema, options })).body;
    },
    update: async (itemId, input, options) => {
      const members = membersBody(input as CatalogMembers);
      const body = { product_id: input.productId, name: input.name, description: input.description, ...members };
      const path = `/catalog/${kind.collection}/${encodeURIComponent(itemId)}`;
      return (await transport.request({ method: 'PATCH', path, kind: 'mutation', body, schema: answerSchema, options })).body;
    },
  };
}

const resolveAnswerSchema = v.pipe(
  v.looseObject({ snapshot: entitlementSnapshotSchema }),
  v.transform((answer) => answer.snapshot),
);

/**
 * Builds the `catalog` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const catalog = createCatalogResource(transport);
 * await catalog.groups.create({ productId, id: 'export', name: 'Export', features: ['export.pdf'] });
 * ```
 */
export function createCatalogResource(transport: AdminTransport): CatalogResource {
  return {
    features: kindResource(transport, { collection: 'features', singular: 'feature' }, catalogFeatureSchema),
    groups: kindResource(transport, { collection: 'groups', singular: 'group' }, catalogGroupSchema),
    tiers: kindResource(transport, { collection: 'tiers', singular: 'tier' }, catalogTierSchema),
    resolve: async (input, options) => {
      const body = { product_id: input.productId, tier: input.tier, features: input.features, groups: input.groups, overrides: input.overrides };
      return (await transport.request({ method: 'POST', path: '/catalog/resolve', kind: 'read', body, schema: resolveAnswerSchema, options })).body;
    },
  };
}
