import * as v from 'valibot';
import { isHexId } from '../../../crypto/random';
import { AdminError } from '../../../errors/admin';
import type { AdminPage } from '../page';

/** The three kinds of catalog item. */
export type CatalogKind = 'feature' | 'group' | 'tier';

/** Catalog item ids: operator-chosen slugs, unique per product and kind, immutable once created. */
export const catalogItemIdPattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Bounds of catalog items (docs/policies.md "Catalog"). */
export const catalogLimits = { nameLength: 200, descriptionLength: 2000, members: 1000 } as const;

/** An Admin `product_id`: 32 lowercase hex digits (the client protocol's product slugs are `productIdSchema`). */
export const hexProductIdSchema = v.pipe(
  v.string('product_id must be a string'),
  v.check((id) => isHexId(id, 16), 'product_id must be 32 lowercase hex digits'),
);

/** A catalog item id (a slug). */
export const catalogItemIdSchema = v.pipe(
  v.string('catalog ids must be strings'),
  v.regex(catalogItemIdPattern, 'catalog ids are 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit'),
);

/** A list of catalog ids, returned sorted (by UTF-16 code unit, which is byte order for slugs) and without duplicates. */
export const catalogIdListSchema = v.pipe(
  v.array(catalogItemIdSchema, 'member lists must be arrays of catalog ids'),
  v.maxLength(catalogLimits.members, `member lists hold at most ${catalogLimits.members} ids`),
  v.transform((ids: string[]) => sortedCatalogIds(ids)),
);

/**
 * Sorts ids by code unit and drops duplicates: the one order every stored list and snapshot uses, so
 * equal sets always serialise to equal bytes (never `localeCompare`, which depends on the runtime).
 *
 * @param ids - Ids in any order.
 * @returns A new sorted, duplicate-free array.
 * @example
 * ```ts
 * import { sortedCatalogIds } from '@tollgate/core/license';
 * sortedCatalogIds(['b', 'a', 'b']); // ['a', 'b']
 * ```
 */
export function sortedCatalogIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const nameSchema = v.pipe(v.string('name must be a string'), v.minLength(1, 'name must not be empty'), v.maxLength(catalogLimits.nameLength, `name must be at most ${catalogLimits.nameLength} characters`));
const descriptionSchema = v.pipe(v.string('description must be a string'), v.maxLength(catalogLimits.descriptionLength, `description must be at most ${catalogLimits.descriptionLength} characters`));

const memberEntries = {
  feature: {},
  group: { features: v.optional(catalogIdListSchema, []) },
  tier: { features: v.optional(catalogIdListSchema, []), groups: v.optional(catalogIdListSchema, []) },
} as const;

const patchMemberEntries = {
  feature: {},
  group: { features: v.optional(catalogIdListSchema) },
  tier: { features: v.optional(catalogIdListSchema), groups: v.optional(catalogIdListSchema) },
} as const;

/**
 * The body of `POST /catalog/{kind}s`: `product_id`, `id`, `name`, `description` (default empty) and,
 * for groups, `features`; for tiers, `features` and `groups` (each default empty).
 *
 * @param kind - The item kind.
 * @returns The schema.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { catalogCreateSchema } from '@tollgate/core/license';
 * v.parse(catalogCreateSchema('group'), { product_id, id: 'export', name: 'Export', features: ['pdf', 'svg'] });
 * ```
 */
export function catalogCreateSchema(kind: CatalogKind) {
  return v.strictObject(
    { product_id: hexProductIdSchema, id: catalogItemIdSchema, name: nameSchema, description: v.optional(descriptionSchema, ''), ...memberEntries[kind] },
    `the body must be a ${kind} with product_id, id, name${kind === 'feature' ? '' : ', members'} and description, and nothing else`,
  );
}

/**
 * The body of `PATCH /catalog/{kind}s/:id`: `product_id` (which product's item; required because ids
 * are unique per product), optionally `id` (must equal the path), and at least one of `name`,
 * `description` and the member lists (replaced whole).
 *
 * @param kind - The item kind.
 * @returns The schema.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { catalogPatchSchema } from '@tollgate/core/license';
 * v.parse(catalogPatchSchema('tier'), { product_id, groups: ['export'] });
 * ```
 */
export function catalogPatchSchema(kind: CatalogKind) {
  return v.pipe(
    v.strictObject(
      { product_id: hexProductIdSchema, id: v.optional(catalogItemIdSchema), name: v.optional(nameSchema), description: v.optional(descriptionSchema), ...patchMemberEntries[kind] },
      `the body must be product_id and the ${kind} fields to change, and nothing else`,
    ),
    v.check((patch) => Object.keys(patch).some((key) => key !== 'product_id' && key !== 'id'), 'name the fields to change: name, description' + (kind === 'feature' ? '' : ' or members')),
  );
}

/** The query of `GET /catalog/{kind}s`: the required `product_id` plus paging (read by `parseAdminPage`). */
export const catalogListQuerySchema = v.object({ product_id: hexProductIdSchema }, 'product_id is required');

/** The body of `POST /catalog/resolve` (and the input of `resolveEntitlements`). */
export const resolveRequestSchema = v.strictObject(
  {
    product_id: hexProductIdSchema,
    tier: v.optional(v.nullable(catalogItemIdSchema), null),
    features: v.optional(catalogIdListSchema, []),
    groups: v.optional(catalogIdListSchema, []),
    overrides: v.optional(v.strictObject({ add: v.optional(catalogIdListSchema, []), remove: v.optional(catalogIdListSchema, []) }, 'overrides holds add and remove, and nothing else'), {
      add: [],
      remove: [],
    }),
  },
  'the body must be product_id with optionally tier, features, groups and overrides, and nothing else',
);

/**
 * Refuses a cursor whose time is past what a `Date` can hold: `parseAdminPage` accepts any 16-digit
 * position, and binding an invalid `Date` would be a 500 instead of a 400.
 *
 * @param page - A parsed page whose cursor position is a time in milliseconds.
 * @returns The same page.
 * @throws AdminError `invalid_request`.
 * @example
 * ```ts
 * import { parseAdminPage, timeOrderedPage } from '@tollgate/core/license';
 * const page = timeOrderedPage(parseAdminPage(call.query));
 * ```
 */
export function timeOrderedPage(page: AdminPage): AdminPage {
  if (page.after !== undefined && Number.isNaN(new Date(page.after.at).getTime())) throw new AdminError('invalid_request', 'cursor is not a cursor this API returned.');
  return page;
}
