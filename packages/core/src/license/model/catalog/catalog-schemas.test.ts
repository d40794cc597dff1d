import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../../../errors/admin';
import { catalogCreateSchema, catalogPatchSchema, catalogItemIdPattern, resolveRequestSchema, sortedCatalogIds, timeOrderedPage } from './catalog-schemas';

const productId = 'ab'.repeat(16);

describe('catalog item ids', () => {
  it.each(['a', '0', 'export.pdf', 'pro_2026', 'beta-sync', 'x'.repeat(64)])('accepts the slug %s', (id) => {
    expect(catalogItemIdPattern.test(id)).toBe(true);
  });

  it.each(['', 'Pro', '.hidden', '-x', '_x', 'x'.repeat(65), 'a b', 'ünï', 'a/b', 'a\n'])('refuses %j', (id) => {
    expect(catalogItemIdPattern.test(id)).toBe(false);
    expect(v.safeParse(catalogCreateSchema('feature'), { product_id: productId, id, name: 'N' }).success).toBe(false);
  });
});

describe('catalog bodies', () => {
  it('fills defaults and sorts member lists without duplicates', () => {
    expect(v.parse(catalogCreateSchema('feature'), { product_id: productId, id: 'pdf', name: 'PDF' })).toEqual({ product_id: productId, id: 'pdf', name: 'PDF', description: '' });
    expect(v.parse(catalogCreateSchema('tier'), { product_id: productId, id: 'pro', name: 'Pro', features: ['b', 'a', 'b'] })).toEqual({
      product_id: productId,
      id: 'pro',
      name: 'Pro',
      description: '',
      features: ['a', 'b'],
      groups: [],
    });
  });

  it('refuses members on kinds that cannot hold them, and unknown fields', () => {
    expect(v.safeParse(catalogCreateSchema('feature'), { product_id: productId, id: 'pdf', name: 'PDF', features: [] }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('group'), { product_id: productId, id: 'g', name: 'G', groups: [] }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('tier'), { product_id: productId, id: 't', name: 'T', extra: 1 }).success).toBe(false);
  });

  it('bounds names, descriptions and member lists', () => {
    const base = { product_id: productId, id: 'g', name: 'G' };
    expect(v.safeParse(catalogCreateSchema('group'), { ...base, name: '' }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('group'), { ...base, name: 'n'.repeat(201) }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('group'), { ...base, description: 'd'.repeat(2001) }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('group'), { ...base, features: Array.from({ length: 1001 }, (_, i) => `f${i}`) }).success).toBe(false);
    expect(v.safeParse(catalogCreateSchema('group'), { ...base, features: Array.from({ length: 1000 }, (_, i) => `f${i}`) }).success).toBe(true);
  });

  it('needs product_id and at least one change in a patch', () => {
    expect(v.safeParse(catalogPatchSchema('tier'), { product_id: productId }).success).toBe(false);
    expect(v.safeParse(catalogPatchSchema('tier'), { product_id: productId, id: 'pro' }).success).toBe(false);
    expect(v.safeParse(catalogPatchSchema('tier'), { name: 'Pro' }).success).toBe(false);
    expect(v.parse(catalogPatchSchema('tier'), { product_id: productId, groups: ['z', 'a'] })).toEqual({ product_id: productId, groups: ['a', 'z'] });
    expect(v.safeParse(catalogPatchSchema('feature'), { product_id: productId, features: ['a'] }).success).toBe(false);
  });

  it('normalises a resolve request', () => {
    expect(v.parse(resolveRequestSchema, { product_id: productId })).toEqual({ product_id: productId, tier: null, features: [], groups: [], overrides: { add: [], remove: [] } });
    expect(v.parse(resolveRequestSchema, { product_id: productId, overrides: { remove: ['b', 'a'] } }).overrides).toEqual({ add: [], remove: ['a', 'b'] });
    expect(v.safeParse(resolveRequestSchema, { product_id: productId, overrides: { drop: [] } }).success).toBe(false);
    expect(v.safeParse(resolveRequestSchema, { product_id: 'AB'.repeat(16) }).success).toBe(false);
  });
});

describe('sortedCatalogIds', () => {
  it('orders by code unit, not by locale', () => {
    expect(sortedCatalogIds(['b', 'a-b', 'a.b', 'a_b', 'A', 'a', 'b'])).toEqual(['A', 'a', 'a-b', 'a.b', 'a_b', 'b']);
  });
});

describe('timeOrderedPage', () => {
  it('refuses a cursor time no Date can hold', () => {
    expect(timeOrderedPage({ limit: 5, after: { at: 1, id: 'x' } }).after?.at).toBe(1);
    expect(() => timeOrderedPage({ limit: 5, after: { at: 9_999_999_999_999_999, id: 'x' } })).toThrow(AdminError);
  });
});
