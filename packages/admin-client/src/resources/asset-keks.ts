import * as v from 'valibot';
import type { AdminList, AdminTransport, DestructiveOptions, MutationOptions, ReadOptions } from '../transport-types';

/** An asset key-encryption key as the Admin API shows it: its fingerprint, never the key. */
export const AssetKekSchema = v.looseObject({
  release_id: v.string(),
  feature_id: v.string(),
  product_id: v.string(),
  fingerprint: v.string(),
  /** `generated` (by the server) or `uploaded`. */
  source: v.string(),
  created_at: v.string(),
});
/** An asset key's registration. */
export type AssetKek = v.InferOutput<typeof AssetKekSchema>;

/**
 * The answer of `POST /asset-keks`: 201 new, or 200 `already_registered` for the same uploaded key again.
 * A generated key is shown in this answer only (`key_hex`, `key_base64`); an uploaded one is never echoed.
 */
export const AssetKekCreateResultSchema = v.looseObject({
  asset_kek: AssetKekSchema,
  already_registered: v.boolean(),
  key_hex: v.optional(v.string()),
  key_base64: v.optional(v.string()),
});
/** The answer of `assetKeks.create()`. */
export type AssetKekCreateResult = v.InferOutput<typeof AssetKekCreateResultSchema>;

const deleteCommon = { asset_kek: v.nullable(AssetKekSchema), impacted_devices: v.number(), warnings: v.array(v.string()) };

/** The answer of `DELETE /asset-keks/:releaseId/:featureId`: narrow on `dry_run`. */
export const AssetKekDeleteResultSchema = v.variant('dry_run', [
  v.looseObject({ dry_run: v.literal(true), ...deleteCommon, would_delete: v.boolean() }),
  v.looseObject({ dry_run: v.literal(false), ...deleteCommon, deleted: v.boolean() }),
]);
/** The answer of `assetKeks.delete()`. */
export type AssetKekDeleteResult = v.InferOutput<typeof AssetKekDeleteResultSchema>;

/** Filters of `assetKeks.list()` (oldest first). */
export interface AssetKekListQuery {
  readonly productId?: string;
  readonly releaseId?: string;
  /** Page size, 1 to 200 (default 50). */
  readonly limit?: number;
}

/** What `assetKeks.create()` registers: the key of (release, feature), generated when neither key field is given. */
export interface AssetKekCreateInput {
  readonly releaseId: string;
  /** A feature of the catalog of the release's product. */
  readonly featureId: string;
  /** The 32-byte key as 64 hex digits (or give `keyBase64`, not both). */
  readonly keyHex?: string;
  /** The 32-byte key as base64 or base64url. */
  readonly keyBase64?: string;
}

/** The `assetKeks` group: per-(release, feature) asset keys (scope `releases:rw`). */
export interface AssetKeksResource {
  /** `GET /asset-keks`: paginated fingerprints. */
  list(query?: AssetKekListQuery, options?: ReadOptions): AdminList<AssetKek>;
  /** `POST /asset-keks`: registers (or generates) a key; a second, different key for the pair is 409 `asset_kek_exists`. */
  create(input: AssetKekCreateInput, options?: MutationOptions): Promise<AssetKekCreateResult>;
  /** `DELETE /asset-keks/:releaseId/:featureId` (destructive: a dry run unless `dryRun: false`). */
  delete(releaseId: string, featureId: string, options?: DestructiveOptions): Promise<AssetKekDeleteResult>;
}

/**
 * Builds the `assetKeks` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const { key_hex } = await admin.assetKeks.create({ releaseId, featureId: 'export_pdf' });
 * ```
 */
export function createAssetKeksResource(transport: AdminTransport): AssetKeksResource {
  return {
    list: (query = {}, options) =>
      transport.list({ path: '/asset-keks', query: { product_id: query.productId, release_id: query.releaseId, limit: query.limit }, itemsKey: 'asset_keks', itemSchema: AssetKekSchema, options }),
    create: async (input, options) => {
      const body = { release_id: input.releaseId, feature_id: input.featureId, key_hex: input.keyHex, key_base64: input.keyBase64 };
      return (await transport.request({ method: 'POST', path: '/asset-keks', kind: 'mutation', body, schema: AssetKekCreateResultSchema, options })).body;
    },
    delete: async (releaseId, featureId, options) =>
      (
        await transport.request({
          method: 'DELETE',
          path: `/asset-keks/${encodeURIComponent(releaseId)}/${encodeURIComponent(featureId)}`,
          kind: 'destructive',
          schema: AssetKekDeleteResultSchema,
          options,
        })
      ).body,
  };
}
