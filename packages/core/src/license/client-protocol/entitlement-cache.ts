import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import type { EntitlementInput } from '../model/catalog/resolve-entitlements';
import type { Entitlements } from '../payloads/entitlements';
import { licenseEntitlements } from './license-standing';

/** Options of {@link createEntitlementCache}. */
export interface EntitlementCacheOptions {
  readonly clock: Clock;
  /** Most entries kept (default 10 000); past it the oldest are dropped. */
  readonly maxEntries?: number;
  /** Safety net on top of the catalog stamp (default 60 s): no entry is served older than this. */
  readonly ttlMs?: number;
}

/** Resolved wire entitlements, cached per vendor, product, tier, overrides and catalog version. */
export interface EntitlementCache {
  /**
   * The entitlements of `input`, resolved through `licenseEntitlements` on a miss.
   *
   * @param sql - The database, for a miss.
   * @param vendorId - The license's vendor.
   * @param input - Product, tier and overrides (as `licenseEntitlements`).
   * @param catalogStamp - The product catalog's version read in the same snapshot as the license
   *   (`SessionMachine.catalogStamp`): a different stamp is a different entry.
   */
  entitlements(sql: SqlClient, vendorId: string, input: EntitlementInput, catalogStamp: string): Promise<Entitlements>;
}

interface Entry {
  readonly entitlements: Entitlements;
  readonly storedAt: number;
}

/**
 * A per-process cache of resolved entitlements for validation, which otherwise reads the catalog on
 * every ticket.
 *
 * What invalidates an entry: its key holds everything the resolution reads (vendor, product, tier, the
 * license's overrides) and the catalog stamp that `readSessionMachine` reads in the same statement as the
 * license: the product's item count and the sum of `hashtext(kind:id=members)` over its items. Items are
 * never deleted, so every catalog change that can change a resolution (an item created, or the members
 * of a tier or group edited, through the Admin API of any instance or by hand) changes the stamp, and the
 * next validation misses the cache, with no extra round trip and no clock involved. A tier or override
 * change on the license or its policy changes the key itself. `ttlMs` (60 s) bounds the one blind spot,
 * two edits whose 32-bit hash changes cancel out in the sum.
 *
 * @param options - Clock, bounds, TTL.
 * @returns The cache.
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createEntitlementCache } from '@tollgate/core/license';
 * const cache = createEntitlementCache({ clock: systemClock });
 * const entitlements = await cache.entitlements(sql, machine.vendorId, { product_id, tier, overrides }, machine.catalogStamp);
 * ```
 */
export function createEntitlementCache(options: EntitlementCacheOptions): EntitlementCache {
  const { clock, maxEntries = 10_000, ttlMs = 60_000 } = options;
  const entries = new Map<string, Entry>();
  return {
    async entitlements(sql, vendorId, input, catalogStamp) {
      // JSON of an array: no separator inside an id or a stamp can make two keys collide.
      const key = JSON.stringify([vendorId, input.product_id, input.tier ?? null, input.overrides?.add ?? [], input.overrides?.remove ?? [], catalogStamp]);
      const now = clock.now();
      const hit = entries.get(key);
      if (hit !== undefined && now - hit.storedAt < ttlMs && now >= hit.storedAt) return hit.entitlements;
      const entitlements = await licenseEntitlements(sql, vendorId, input);
      entries.delete(key);
      entries.set(key, { entitlements, storedAt: now });
      // Insertion order: the first keys are the oldest stored.
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
      return entitlements;
    },
  };
}
