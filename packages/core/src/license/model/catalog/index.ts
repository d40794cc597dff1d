export {
  catalogCreateSchema,
  catalogIdListSchema,
  catalogItemIdPattern,
  catalogItemIdSchema,
  catalogLimits,
  catalogListQuerySchema,
  catalogPatchSchema,
  resolveRequestSchema,
  sortedCatalogIds,
  timeOrderedPage,
  type CatalogKind,
} from './catalog-schemas';
export {
  createSqlCatalogStore,
  type CatalogItem,
  type CatalogItemChanges,
  type CatalogMembers,
  type CatalogStore,
  type CreateCatalogItemOutcome,
  type NewCatalogItem,
  type UnknownMembers,
  type UpdateCatalogItemOutcome,
} from './catalog-store';
export { entitlementSnapshot, resolveEntitlements, type EntitlementInput, type EntitlementSnapshot } from './resolve-entitlements';
