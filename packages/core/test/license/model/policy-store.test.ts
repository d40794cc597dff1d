import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '@tollgate/core/testing';
import { randomId } from '../../../src/crypto/random';
import { raceCase } from '../../../src/testing/race-case';
import { catalogTestEngines, openCatalogTestDatabase, seedVendor, t0 } from '../../support/catalog-policies-fixture';
import { fullPolicy } from '../../support/policy-fixtures';
import type { PolicyDocument } from '../../../src/license/model/policies/policy-document';
import { createSqlPolicyStore } from '../../../src/license/model/policies/policy-store';

const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const actor = 'ef'.repeat(16);

for (const engine of catalogTestEngines) {
  describe(`PolicyStore [${engine.name}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openCatalogTestDatabase(engine);
    });
    afterAll(() => database?.close());

    const documentFor = (productId: string, changes: Partial<PolicyDocument> = {}): PolicyDocument => ({ ...fullPolicy, id: randomId(), product_id: productId, ...changes });

    it('creates version 1 with its version row, once per id', async () => {
      const store = createSqlPolicyStore(database.sql);
      const vendor = await seedVendor(database.sql);
      const document = documentFor(vendor.productId);
      const created = await store.create(vendor.vendorId, document, actor, t0);
      expect(created).toMatchObject({ kind: 'created', policy: { policyId: document.id, productId: vendor.productId, version: 1, document } });
      expect(await store.create(vendor.vendorId, { ...document, name: 'Again' }, actor, t0)).toEqual({ kind: 'exists' });
      expect(await store.getVersion(vendor.vendorId, document.id, 1)).toMatchObject({ version: 1, actor, document });
      // jsonb reorders keys; the store gives them back in the documented order.
      expect(JSON.stringify((await store.get(vendor.vendorId, document.id))?.document)).toBe(JSON.stringify(document));
    });

    it('treats another vendor’s product and policies as missing', async () => {
      const store = createSqlPolicyStore(database.sql);
      const owner = await seedVendor(database.sql);
      const other = await seedVendor(database.sql);
      expect(await store.create(other.vendorId, documentFor(owner.productId), actor, t0)).toEqual({ kind: 'product_not_found' });
      const document = documentFor(owner.productId);
      await store.create(owner.vendorId, document, actor, t0);
      expect(await store.get(other.vendorId, document.id)).toBeUndefined();
      expect(await store.getVersion(other.vendorId, document.id, 1)).toBeUndefined();
      expect(await store.listVersions(other.vendorId, document.id, { limit: 10 })).toEqual([]);
      expect(await store.list(other.vendorId, { limit: 10 })).toEqual([]);
      expect(await store.replace(other.vendorId, { ...document, name: 'Stolen' }, actor, later(1))).toBeUndefined();
      expect((await store.get(owner.vendorId, document.id))?.version).toBe(1);
    });

    it('replaces with the next version and keeps every version readable', async () => {
      const store = createSqlPolicyStore(database.sql);
      const vendor = await seedVendor(database.sql);
      const document = documentFor(vendor.productId);
      await store.create(vendor.vendorId, document, actor, t0);
      const second = await store.replace(vendor.vendorId, { ...document, seats: 10 }, 'cli:test', later(10));
      expect(second).toMatchObject({ version: 2, document: { seats: 10 } });
      expect(second?.createdAt.getTime()).toBe(t0.getTime());
      expect(second?.updatedAt.getTime()).toBe(later(10).getTime());
      await store.replace(vendor.vendorId, { ...document, seats: 20 }, actor, later(20));
      expect((await store.getVersion(vendor.vendorId, document.id, 1))?.document.seats).toBe(3);
      expect(await store.getVersion(vendor.vendorId, document.id, 2)).toMatchObject({ actor: 'cli:test', document: { seats: 10 } });
      expect(await store.getVersion(vendor.vendorId, document.id, 4)).toBeUndefined();
      const versions = await store.listVersions(vendor.vendorId, document.id, { limit: 2 });
      expect(versions.map((row) => row.version)).toEqual([3, 2]);
      expect((await store.listVersions(vendor.vendorId, document.id, { limit: 2, beforeVersion: 2 })).map((row) => row.version)).toEqual([1]);
    });

    it('never moves a policy to another product', async () => {
      const store = createSqlPolicyStore(database.sql);
      const vendor = await seedVendor(database.sql, 1);
      const document = documentFor(vendor.productId);
      await store.create(vendor.vendorId, document, actor, t0);
      expect(await store.replace(vendor.vendorId, { ...document, product_id: vendor.more[0] as string }, actor, later(1))).toBeUndefined();
      expect((await store.get(vendor.vendorId, document.id))?.productId).toBe(vendor.productId);
    });

    it('lists newest first, by product, after a position', async () => {
      const store = createSqlPolicyStore(database.sql);
      const vendor = await seedVendor(database.sql, 1);
      const old = documentFor(vendor.productId);
      const recent = documentFor(vendor.productId);
      const elsewhere = documentFor(vendor.more[0] as string);
      await store.create(vendor.vendorId, old, actor, later(1));
      await store.create(vendor.vendorId, recent, actor, later(2));
      await store.create(vendor.vendorId, elsewhere, actor, later(3));
      expect((await store.list(vendor.vendorId, { limit: 10 })).map((row) => row.policyId)).toEqual([elsewhere.id, recent.id, old.id]);
      expect((await store.list(vendor.vendorId, { limit: 10, productId: vendor.productId })).map((row) => row.policyId)).toEqual([recent.id, old.id]);
      expect((await store.list(vendor.vendorId, { limit: 10, after: { at: later(2).getTime(), id: recent.id } })).map((row) => row.policyId)).toEqual([old.id]);
    });

    raceCase('gives 10 concurrent replacements 10 distinct consecutive versions', () => database, async () => {
      const vendor = await seedVendor(database.sql);
      const document = documentFor(vendor.productId);
      await createSqlPolicyStore(database.sql).create(vendor.vendorId, document, actor, t0);
      const clients = await Promise.all(Array.from({ length: 3 }, () => database.connect()));
      const replaced = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (clients[index % 3] ?? database.sql).transaction((tx) => createSqlPolicyStore(tx).replace(vendor.vendorId, { ...document, seats: 100 + index }, actor, later(index))),
        ),
      );
      expect(replaced.map((policy) => policy?.version).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const current = await createSqlPolicyStore(database.sql).get(vendor.vendorId, document.id);
      expect(current?.version).toBe(11);
      // The current document is the one the last version stored.
      expect((await createSqlPolicyStore(database.sql).getVersion(vendor.vendorId, document.id, 11))?.document).toEqual(current?.document);
    });
  });
}
