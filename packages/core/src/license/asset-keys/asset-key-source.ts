import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { releaseChangesOf, type ReleaseChanges } from '../releases/release-changes';
import { deriveAssetKeySealKey, openAssetKey } from './asset-key-seal';

/**
 * The asset keys of releases, as the client protocol reads them for credentials and tickets: the
 * opened keys of one release's features, from a cache so a validation of a product without asset keys
 * reads nothing (after the first validation of its release on this instance).
 */
export interface AssetKeySource {
  /**
   * The keys of `releaseId` for those of `features` that have one (an empty map for most products).
   * One indexed read on a cache miss, none on a hit.
   */
  keysFor(sql: SqlClient, releaseId: string, features: readonly string[]): Promise<Map<string, Uint8Array>>;
}

type Entry = { productId: string | undefined; keys: Map<string, Uint8Array>; loadedAt: number };

/** How long a release's keys are cached: a change made elsewhere without a notice is seen at most this late. */
export const assetKeyCacheTtlMs = 60_000;

/**
 * An {@link AssetKeySource} with a per-release cache, bounded (oldest release dropped first) and
 * invalidated by the release-change channel of the database handle: the Admin routes of this instance
 * announce their changes there, and migration 015's trigger notifies every other instance at commit
 * (the server's notice listener publishes those on the same channel). A read that raced a change (a
 * notice arrived while it ran) is used once but not cached. Entries also expire after
 * {@link assetKeyCacheTtlMs}, in case a notice was lost.
 *
 * @param deps - The master key (the keys are sealed under its subkey), the clock, the database handle
 *   whose change channel invalidates the cache, and optional bounds.
 * @returns The source.
 * @example
 * ```ts
 * import { createAssetKeySource } from '@tollgate/core/license';
 * const assetKeys = createAssetKeySource({ sql, masterKey, clock });
 * const keys = await assetKeys.keysFor(sql, releaseId, entitlements.features);
 * ```
 */
export function createAssetKeySource(deps: {
  sql: SqlClient;
  masterKey: Uint8Array;
  clock: Clock;
  changes?: ReleaseChanges;
  ttlMs?: number;
  maxReleases?: number;
}): AssetKeySource {
  const sealKey = deriveAssetKeySealKey(deps.masterKey);
  const ttlMs = deps.ttlMs ?? assetKeyCacheTtlMs;
  const maxReleases = deps.maxReleases ?? 10_000;
  const entries = new Map<string, Entry>();
  let generation = 0;
  (deps.changes ?? releaseChangesOf(deps.sql)).subscribe((productId) => {
    generation += 1;
    if (productId === undefined) entries.clear();
    else for (const [releaseId, entry] of entries) if (entry.productId === undefined || entry.productId === productId) entries.delete(releaseId);
  });

  async function load(sql: SqlClient, releaseId: string): Promise<Entry> {
    const startedAt = generation;
    const { rows } = await sql.query<{ product_id: string | null; feature_id: string | null; sealed_key: Uint8Array | null }>(
      `SELECT r.product_id, k.feature_id, k.sealed_key FROM license_releases r
       LEFT JOIN license_asset_keks k ON k.release_id = r.release_id WHERE r.release_id = $1`,
      [releaseId],
    );
    const keys = new Map<string, Uint8Array>();
    for (const row of rows) {
      if (row.feature_id !== null && row.sealed_key !== null) keys.set(row.feature_id, openAssetKey(sealKey, { releaseId, featureId: row.feature_id }, row.sealed_key));
    }
    const entry: Entry = { productId: rows[0]?.product_id ?? undefined, keys, loadedAt: deps.clock.now() };
    if (startedAt === generation) {
      if (entries.size >= maxReleases) entries.delete(entries.keys().next().value as string);
      entries.set(releaseId, entry);
    }
    return entry;
  }

  return {
    async keysFor(sql, releaseId, features) {
      let entry = entries.get(releaseId);
      if (entry === undefined || deps.clock.now() - entry.loadedAt >= ttlMs) entry = await load(sql, releaseId);
      const found = new Map<string, Uint8Array>();
      if (entry.keys.size === 0) return found;
      for (const feature of features) {
        const key = entry.keys.get(feature);
        if (key !== undefined) found.set(feature, key);
      }
      return found;
    },
  };
}
