/**
 * A map that keeps at most `capacity` entries, evicting the least recently used one: for caches whose
 * key space is unbounded (negotiation caches per ref and amount, and open refs accept any amount; the
 * dev facilitator's memos per payment).
 */
export interface BoundedCache<Value> {
  get(key: string): Value | undefined;
  set(key: string, value: Value): void;
  delete(key: string): void;
  /** A snapshot of the entries, least recently used first (reading it does not change the order). */
  entries(): [string, Value][];
  readonly size: number;
}

/**
 * Creates a {@link BoundedCache} (a `Map` in recency order: reads move the key to the end).
 *
 * @param capacity - Most entries kept (≥ 1).
 * @returns The cache.
 * @throws RangeError when `capacity` is not a positive integer.
 *
 * @example
 * ```ts
 * import { createBoundedCache } from '@tollgate/core/gateway';
 * const cache = createBoundedCache<string>(2);
 * cache.set('a', '1'); cache.set('b', '2'); cache.get('a'); cache.set('c', '3');
 * cache.get('b'); // undefined: the least recently used entry was evicted
 * ```
 */
export function createBoundedCache<Value>(capacity: number): BoundedCache<Value> {
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer.');
  const entries = new Map<string, Value>();
  // The most recently used key: reading it again needs no reordering (a hot key is read on every
  // request, and a Map delete + set per read churns its table).
  let newest: string | undefined;
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined && key !== newest) {
        entries.delete(key);
        entries.set(key, value);
        newest = key;
      }
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      newest = key;
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    },
    delete(key) {
      entries.delete(key);
      if (key === newest) newest = undefined;
    },
    entries() {
      return [...entries];
    },
    get size() {
      return entries.size;
    },
  };
}
