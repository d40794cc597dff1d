import { describe, expect, it } from 'vitest';
import { createBoundedCache } from '@tollgate/core/gateway';

describe('createBoundedCache', () => {
  it('evicts the least recently used entry beyond its capacity; reads count as use', () => {
    const cache = createBoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
    cache.set('a', 4);
    cache.set('d', 5);
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([4, undefined, 5]);
    cache.delete('a');
    expect(cache.size).toBe(1);
  });

  it('keeps the recency order when the newest key is read again, deleted, or set anew', () => {
    const cache = createBoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.entries()).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    cache.delete('c');
    cache.set('c', 4);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 5);
    expect(cache.entries()).toEqual([
      ['a', 1],
      ['d', 5],
    ]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) expect(() => createBoundedCache(capacity)).toThrow(RangeError);
  });
});
