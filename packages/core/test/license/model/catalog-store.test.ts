import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@tollgate/core/testing';
import { raceCase } from '../../../src/testing/race-case';
import { catalogTestEngines, openCatalogTestDatabase, seedVendor, t0 } from '../../support/catalog-policies-fixture';
import { createSqlCatalogStore, type NewCatalogItem } from '../../../src/license/model/catalog/catalog-store';

const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

for (const engine of catalogTestEngines) {
  describe(`CatalogStore [${engine.name}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openCatalogTestDatabase(engine);
    });
    afterAll(() => database?.close());

    const item = (vendor: { vendorId: string; productId: string }, kind: NewCatalogItem['kind'], itemId: string, members: { features?: string[]; groups?: string[] } = {}, at = t0): NewCatalogItem => ({
      vendorId: vendor.vendorId,
      productId: vendor.productId,
      kind,
      itemId,
      name: itemId.toUpperCase(),
      description: '',
      members: { features: members.features ?? [], groups: members.groups ?? [] },
      createdAt: at,
    });

    it('creates items once per (product, kind, id) and reports a taken id as exists', async () => {
      const store = createSqlCatalogStore(database.sql);
      const vendor = await seedVendor(database.sql, 1);
      const created = await store.create(item(vendor, 'feature', 'pdf'));
      expect(created).toMatchObject({ kind: 'created', item: { itemId: 'pdf', kind: 'feature', members: { features: [], groups: [] } } });
      expect(await store.create({ ...item(vendor, 'feature', 'pdf'), name: 'Other' })).toEqual({ kind: 'exists' });
      // The same id is free in another kind and in another product.
      expect((await store.create(item(vendor, 'group', 'pdf'))).kind).toBe('created');
      expect((await store.create({ ...item(vendor, 'feature', 'pdf'), productId: vendor.more[0] as string })).kind).toBe('created');
    });

    it('refuses members the product lacks and writes nothing', async () => {
      const store = createSqlCatalogStore(database.sql);
      const vendor = await seedVendor(database.sql, 1);
      await store.create(item(vendor, 'feature', 'pdf'));
      await store.create({ ...item(vendor, 'feature', 'svg'), productId: vendor.more[0] as string });
      const outcome = await store.create(item(vendor, 'tier', 'pro', { features: ['pdf', 'svg'], groups: ['nope'] }));
      expect(outcome).toEqual({ kind: 'unknown_members', missing: ['feature:svg', 'group:nope'] });
      expect(await store.list(vendor.vendorId, vendor.productId, 'tier', { limit: 10 })).toEqual([]);
    });

    it('treats another vendor’s product and items as missing', async () => {
      const store = createSqlCatalogStore(database.sql);
      const owner = await seedVendor(database.sql);
      const other = await seedVendor(database.sql);
      await store.create(item(owner, 'feature', 'pdf'));
      expect(await store.create({ ...item(owner, 'feature', 'x'), vendorId: other.vendorId })).toEqual({ kind: 'product_not_found' });
      expect(await store.hasProduct(other.vendorId, owner.productId)).toBe(false);
      expect(await store.hasItem(other.vendorId, 'feature', 'pdf')).toBe(false);
      expect(await store.hasItem(owner.vendorId, 'feature', 'pdf')).toBe(true);
      expect(await store.list(other.vendorId, owner.productId, 'feature', { limit: 10 })).toEqual([]);
      expect(await store.update(other.vendorId, owner.productId, 'feature', 'pdf', { name: 'Stolen' }, later(1))).toEqual({ kind: 'not_found' });
      expect(await store.missingIds(other.vendorId, owner.productId, 'feature', ['pdf'])).toEqual(['pdf']);
      // A tier of the other vendor cannot reference the owner's feature either.
      await store.create(item(other, 'feature', 'own'));
      expect(await store.create({ ...item(other, 'group', 'g', { features: ['pdf'] }) })).toEqual({ kind: 'unknown_members', missing: ['feature:pdf'] });
    });

    it('updates name, description and members, keeping what the change leaves out', async () => {
      const store = createSqlCatalogStore(database.sql);
      const vendor = await seedVendor(database.sql);
      for (const id of ['a', 'b', 'c']) await store.create(item(vendor, 'feature', id));
      await store.create(item(vendor, 'group', 'g', { features: ['a'] }));
      await store.create(item(vendor, 'tier', 't', { features: ['a'], groups: ['g'] }));
      const renamed = await store.update(vendor.vendorId, vendor.productId, 'tier', 't', { name: 'Team', features: ['b', 'c'] }, later(5));
      expect(renamed).toMatchObject({ kind: 'updated', item: { name: 'Team', description: '', members: { features: ['b', 'c'], groups: ['g'] } } });
      if (renamed.kind !== 'updated') return;
      expect(renamed.item.updatedAt.getTime()).toBe(later(5).getTime());
      expect(renamed.item.createdAt.getTime()).toBe(t0.getTime());
      expect(await store.update(vendor.vendorId, vendor.productId, 'tier', 't', { groups: ['zzz'] }, later(6))).toEqual({ kind: 'unknown_members', missing: ['group:zzz'] });
      expect(await store.update(vendor.vendorId, vendor.productId, 'tier', 'nope', { name: 'x' }, later(6))).toEqual({ kind: 'not_found' });
      const [tier] = await store.list(vendor.vendorId, vendor.productId, 'tier', { limit: 5 });
      expect(tier?.members).toEqual({ features: ['b', 'c'], groups: ['g'] });
    });

    it('lists in publication order and continues after a position', async () => {
      const store = createSqlCatalogStore(database.sql);
      const vendor = await seedVendor(database.sql);
      await store.create(item(vendor, 'feature', 'z.late', {}, later(3)));
      await store.create(item(vendor, 'feature', 'b', {}, later(1)));
      await store.create(item(vendor, 'feature', 'a', {}, later(1)));
      const all = await store.list(vendor.vendorId, vendor.productId, 'feature', { limit: 10 });
      expect(all.map((row) => row.itemId)).toEqual(['a', 'b', 'z.late']);
      const rest = await store.list(vendor.vendorId, vendor.productId, 'feature', { limit: 10, after: { at: later(1).getTime(), id: 'a' } });
      expect(rest.map((row) => row.itemId)).toEqual(['b', 'z.late']);
    });

    it('refuses members on a feature in storage too', async () => {
      const vendor = await seedVendor(database.sql);
      await expect(
        database.sql.query(
          `INSERT INTO license_catalog_items (vendor_id, product_id, kind, item_id, name, members, created_at, updated_at) VALUES ($1, $2, 'feature', 'f', 'F', '{"features": ["x"], "groups": []}', $3, $3)`,
          [vendor.vendorId, vendor.productId, t0],
        ),
      ).rejects.toThrow();
    });

    raceCase('lets exactly one of 12 concurrent creates of one id through', () => database, async () => {
      const vendor = await seedVendor(database.sql);
      const clients = await Promise.all(Array.from({ length: 3 }, () => database.connect()));
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, index) => createSqlCatalogStore(clients[index % 3] ?? database.sql).create({ ...item(vendor, 'feature', 'race'), name: `N${index}` })));
      expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'exists')).toHaveLength(11);
    });
  });
}
