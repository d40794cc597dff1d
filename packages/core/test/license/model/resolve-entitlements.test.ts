import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@tollgate/core/testing';
import { sha256 } from '../../../src/crypto/hash';
import { hexEncode } from '../../../src/crypto/hex';
import { utf8Encode } from '../../../src/crypto/utf8';
import { AdminError } from '../../../src/errors/admin';
import { catalogTestEngines, openCatalogTestDatabase, seedVendor, t0, type SeededVendor } from '../../support/catalog-policies-fixture';
import { createSqlCatalogStore } from '../../../src/license/model/catalog/catalog-store';
import { entitlementSnapshot, resolveEntitlements } from '../../../src/license/model/catalog/resolve-entitlements';

async function rejection(promise: Promise<unknown>): Promise<AdminError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AdminError)) throw new Error(`expected an AdminError, got ${String(error)}`);
  return error;
}

for (const engine of catalogTestEngines) {
  describe(`resolveEntitlements [${engine.name}]`, () => {
    let database: TestDatabase;
    let vendor: SeededVendor & { more: string[] };
    beforeAll(async () => {
      database = await openCatalogTestDatabase(engine);
      vendor = await seedVendor(database.sql, 1);
      const store = createSqlCatalogStore(database.sql);
      const add = async (kind: 'feature' | 'group' | 'tier', itemId: string, members: { features?: string[]; groups?: string[] } = {}, productId = vendor.productId) => {
        const outcome = await store.create({ vendorId: vendor.vendorId, productId, kind, itemId, name: itemId, description: '', members: { features: members.features ?? [], groups: members.groups ?? [] }, createdAt: t0 });
        expect(outcome.kind).toBe('created');
      };
      for (const id of ['edit', 'export.pdf', 'export.svg', 'sync', 'beta', 'zz-extra']) await add('feature', id);
      await add('group', 'export', { features: ['export.pdf', 'export.svg'] });
      await add('group', 'cloud', { features: ['sync'] });
      await add('tier', 'free', { features: ['edit'] });
      await add('tier', 'pro', { features: ['edit', 'beta'], groups: ['export', 'cloud'] });
      await add('feature', 'other-product-feature', {}, vendor.more[0]);
    });
    afterAll(() => database?.close());

    it('expands the tier, its groups, extra features and groups, then applies overrides', async () => {
      const pro = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'pro' });
      expect(pro).toEqual({ product_id: vendor.productId, tier: 'pro', features: ['beta', 'edit', 'export.pdf', 'export.svg', 'sync'], digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const custom = await resolveEntitlements(database.sql, vendor.vendorId, {
        product_id: vendor.productId,
        tier: 'free',
        groups: ['export'],
        features: ['sync'],
        overrides: { add: ['zz-extra'], remove: ['export.svg', 'beta'] },
      });
      // `beta` is not in the set: removing it is allowed and changes nothing.
      expect(custom.features).toEqual(['edit', 'export.pdf', 'sync', 'zz-extra']);
      const none = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId });
      expect(none).toMatchObject({ tier: null, features: [] });
    });

    it('lets a removal win over an addition of the same feature', async () => {
      const snapshot = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, overrides: { add: ['sync'], remove: ['sync'] } });
      expect(snapshot.features).toEqual([]);
    });

    it('answers byte-identically for equal inputs in any order, with the documented digest', async () => {
      const first = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'pro', features: ['zz-extra', 'edit'] });
      const second = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'pro', features: ['edit', 'zz-extra', 'edit'] });
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      expect(Object.keys(first)).toEqual(['product_id', 'tier', 'features', 'digest']);
      const canonical = canonicalize({ product_id: vendor.productId, tier: 'pro', features: first.features }) as string;
      expect(first.digest).toBe(hexEncode(sha256(utf8Encode(canonical))));
      expect(entitlementSnapshot(vendor.productId, 'pro', [...first.features].reverse())).toEqual(first);
      const other = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'free', features: first.features });
      expect(other.digest).not.toBe(first.digest);
    });

    it('refuses unknown ids, and ids of another product, with invalid_entitlement naming them', async () => {
      const error = await rejection(
        resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'gold', features: ['other-product-feature'], groups: ['nope'], overrides: { remove: ['ghost'] } }),
      );
      expect(error.code).toBe('invalid_entitlement');
      expect(error.status).toBe(422);
      expect(error.message).toContain('tier gold');
      expect(error.message).toContain('feature other-product-feature');
      expect(error.message).toContain('feature ghost');
      expect(error.message).toContain('group nope');
      // A group id is not a tier id.
      expect((await rejection(resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'export' }))).code).toBe('invalid_entitlement');
    });

    it('answers another vendor’s product, and a malformed product id, as not_found', async () => {
      const stranger = await seedVendor(database.sql);
      expect((await rejection(resolveEntitlements(database.sql, stranger.vendorId, { product_id: vendor.productId, tier: 'pro' }))).code).toBe('not_found');
      expect((await rejection(resolveEntitlements(database.sql, vendor.vendorId, { product_id: 'not-hex' }))).code).toBe('not_found');
      // The stranger's own product does not see the vendor's items.
      expect((await rejection(resolveEntitlements(database.sql, stranger.vendorId, { product_id: stranger.productId, tier: 'pro' }))).code).toBe('invalid_entitlement');
    });

    it('follows membership edits: a tier resolves to its current members', async () => {
      const store = createSqlCatalogStore(database.sql);
      await store.create({ vendorId: vendor.vendorId, productId: vendor.productId, kind: 'tier', itemId: 'team', name: 'Team', description: '', members: { features: ['edit'], groups: [] }, createdAt: t0 });
      const before = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'team' });
      await store.update(vendor.vendorId, vendor.productId, 'tier', 'team', { groups: ['cloud'] }, new Date(t0.getTime() + 1000));
      const after = await resolveEntitlements(database.sql, vendor.vendorId, { product_id: vendor.productId, tier: 'team' });
      expect(before.features).toEqual(['edit']);
      expect(after.features).toEqual(['edit', 'sync']);
    });
  });
}
