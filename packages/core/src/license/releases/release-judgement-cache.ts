import type { ReleaseJudgement } from './release-gate';

/** One product's cached answers: judgements by lookup key and the security floor, each with its expiry. */
interface ProductEntries {
  readonly judgements: Map<string, { readonly value: ReleaseJudgement; readonly expiresAt: number }>;
  floor?: { readonly value: number; readonly expiresAt: number };
}

/** Bounds of {@link ReleaseJudgementCache}. */
export interface ReleaseJudgementCacheLimits {
  /** How long an answer is served without asking the database, in milliseconds. */
  readonly ttlMs: number;
  /** Products kept; the least recently filled is dropped first. */
  readonly maxProducts: number;
  /** Lookups kept per product; a full product starts over. */
  readonly maxPerProduct: number;
}

/**
 * The release gate's short-lived memory of its answers, per product.
 *
 * Invalidated by: {@link invalidate} for one product (a release change announced on this instance, or
 * heard from another one through the PostgreSQL notice of license migration 009), for every product
 * (the notice connection was lost and notices may be missing), and by time (`ttlMs`: the staleness
 * bound when no notice arrives, e.g. while the notice connection is down). A read that was
 * already under way when an invalidation arrived may carry the old state, so it is not stored: every
 * read takes a {@link ticket} before asking the database and stores only if no invalidation happened
 * since.
 *
 * @example
 * ```ts
 * import { ReleaseJudgementCache } from '@tollgate/core/license';
 * const cache = new ReleaseJudgementCache({ ttlMs: 2000, maxProducts: 1000, maxPerProduct: 1000 });
 * const ticket = cache.ticket();
 * cache.storeFloor(productId, 3, ticket, Date.now());
 * cache.floor(productId, Date.now()); // 3
 * ```
 */
export class ReleaseJudgementCache {
  readonly #limits: ReleaseJudgementCacheLimits;
  readonly #products = new Map<string, ProductEntries>();
  /** Counts invalidations; a read's ticket is the count when it started. */
  #generation = 0;

  constructor(limits: ReleaseJudgementCacheLimits) {
    this.#limits = limits;
  }

  /** The ticket a read takes before asking the database. */
  ticket(): number {
    return this.#generation;
  }

  judgement(productId: string, lookupKey: string, now: number): ReleaseJudgement | undefined {
    const entry = this.#products.get(productId)?.judgements.get(lookupKey);
    return entry !== undefined && entry.expiresAt > now ? entry.value : undefined;
  }

  floor(productId: string, now: number): number | undefined {
    const entry = this.#products.get(productId)?.floor;
    return entry !== undefined && entry.expiresAt > now ? entry.value : undefined;
  }

  storeJudgement(productId: string, lookupKey: string, value: ReleaseJudgement, ticket: number, now: number): void {
    const entries = this.#entriesToFill(productId, ticket);
    if (entries === undefined) return;
    if (entries.judgements.size >= this.#limits.maxPerProduct) entries.judgements.clear();
    entries.judgements.set(lookupKey, { value, expiresAt: now + this.#limits.ttlMs });
  }

  storeFloor(productId: string, value: number, ticket: number, now: number): void {
    const entries = this.#entriesToFill(productId, ticket);
    if (entries !== undefined) entries.floor = { value, expiresAt: now + this.#limits.ttlMs };
  }

  /** Forgets everything about one product, or about every product when none is named. */
  invalidate(productId?: string): void {
    this.#generation += 1;
    if (productId === undefined) this.#products.clear();
    else this.#products.delete(productId);
  }

  #entriesToFill(productId: string, ticket: number): ProductEntries | undefined {
    if (this.#limits.ttlMs <= 0 || ticket !== this.#generation) return undefined;
    let entries = this.#products.get(productId);
    if (entries === undefined) {
      if (this.#products.size >= this.#limits.maxProducts) {
        const oldest = this.#products.keys().next();
        if (oldest.done !== true) this.#products.delete(oldest.value);
      }
      entries = { judgements: new Map() };
      this.#products.set(productId, entries);
    }
    return entries;
  }
}
