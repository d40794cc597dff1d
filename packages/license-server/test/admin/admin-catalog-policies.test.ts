/**
 * The catalog (features, groups, tiers, resolve) and policies over a real license server: envelopes,
 * id immutability, refused deletes, vendor isolation, idempotent replays, versions and warnings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '@tollgate/core/crypto';
import { createSqlVendorStore } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin catalog [${engine.name}]`, () => {
    let bench: AdminHarness;
    let productA: string;
    let productB: string;
    /** A second product of vendor A: its catalog is separate. */
    let productA2: string;
    const post = (path: string, body: unknown, token?: string) => bench.call('POST', path, { body, key: freshKey(), ...(token ? { token } : {}) });

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      productA = bench.vendorA.productId;
      productB = bench.vendorB.productId;
      productA2 = randomId();
      await createSqlVendorStore(bench.sql).createProduct({ productId: productA2, vendorId: bench.vendorA.vendorId, name: 'Product A2', createdAt: new Date() });
      for (const id of ['edit', 'export.pdf', 'export.svg', 'sync']) expect((await post('/catalog/features', { product_id: productA, id, name: id })).status).toBe(201);
      expect((await post('/catalog/groups', { product_id: productA, id: 'export', name: 'Export', features: ['export.svg', 'export.pdf'] })).status).toBe(201);
      expect((await post('/catalog/tiers', { product_id: productA, id: 'free', name: 'Free', features: ['edit'] })).status).toBe(201);
      expect((await post('/catalog/tiers', { product_id: productA, id: 'pro', name: 'Pro', features: ['edit', 'sync'], groups: ['export'] })).status).toBe(201);
      expect((await post('/catalog/features', { product_id: productA2, id: 'a2-only', name: 'A2' })).status).toBe(201);
    }, 60_000);
    afterAll(() => bench?.close());

    it('publishes items with 201 and lists them per product in publication order', async () => {
      const created = await post('/catalog/groups', { product_id: productA, id: 'cloud', name: 'Cloud', description: 'Sync and backup', features: ['sync', 'sync'] });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        ok: true,
        group: { id: 'cloud', product_id: productA, name: 'Cloud', description: 'Sync and backup', features: ['sync'], created_at: expect.any(String), updated_at: expect.any(String) },
      });
      const features = await bench.call('GET', '/catalog/features', { query: { product_id: productA } });
      expect(features.body.features.map((item: { id: string }) => item.id)).toEqual(['edit', 'export.pdf', 'export.svg', 'sync']);
      expect(features.body.features[0]).not.toHaveProperty('features');
      const tiers = await bench.call('GET', '/catalog/tiers', { query: { product_id: productA } });
      expect(tiers.body.tiers.find((tier: { id: string }) => tier.id === 'pro')).toMatchObject({ features: ['edit', 'sync'], groups: ['export'] });
      expect((await bench.call('GET', '/catalog/features', { query: { product_id: productA2 } })).body.features.map((item: { id: string }) => item.id)).toEqual(['a2-only']);
    });

    it('pages lists with cursors, dotted ids included', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; text: string; body: { features: { id: string }[]; next_cursor: string | null } } = await bench.call('GET', '/catalog/features', {
          query: { product_id: productA, limit: '1', ...(cursor === null ? {} : { cursor }) },
        });
        expect(page.status, `the page after ${seen.at(-1)}: ${page.text}`).toBe(200);
        seen.push(...page.body.features.map((item) => item.id));
        cursor = page.body.next_cursor;
      } while (cursor !== null && seen.length < 10);
      expect(seen).toEqual(['edit', 'export.pdf', 'export.svg', 'sync']);
    });

    it('needs product_id on lists and answers an unknown product as not_found', async () => {
      expect((await bench.call('GET', '/catalog/tiers')).status).toBe(400);
      expect((await bench.call('GET', '/catalog/tiers', { query: { product_id: randomId() } })).status).toBe(404);
    });

    it('keeps ids immutable: a taken id is 409, a different body id is 400, an unknown id is 404', async () => {
      const again = await post('/catalog/features', { product_id: productA, id: 'edit', name: 'Edit again' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('catalog_item_exists');
      const renamed = await bench.call('PATCH', '/catalog/features/edit', { body: { product_id: productA, id: 'edit2', name: 'Edit' }, key: freshKey() });
      expect(renamed.status).toBe(400);
      expect(renamed.body.error.code).toBe('invalid_request');
      expect((await bench.call('PATCH', '/catalog/features/nope', { body: { product_id: productA, name: 'x' }, key: freshKey() })).status).toBe(404);
      expect((await bench.call('PATCH', '/catalog/features/Bad%20Id', { body: { product_id: productA, name: 'x' }, key: freshKey() })).status).toBe(404);
      // The same id in another product of the vendor is another item.
      expect((await bench.call('PATCH', '/catalog/features/edit', { body: { product_id: productA2, name: 'x' }, key: freshKey() })).status).toBe(404);
      expect((await post('/catalog/features', { product_id: productA2, id: 'edit', name: 'Edit in A2' })).status).toBe(201);
    });

    it('patches name, description and members; the body id may repeat the path id', async () => {
      const patched = await bench.call('PATCH', '/catalog/tiers/free', { body: { product_id: productA, id: 'free', description: 'Starter', features: ['edit', 'export.pdf'] }, key: freshKey() });
      expect(patched.status).toBe(200);
      expect(patched.body.tier).toMatchObject({ id: 'free', name: 'Free', description: 'Starter', features: ['edit', 'export.pdf'], groups: [] });
      expect((await bench.call('PATCH', '/catalog/tiers/free', { body: { product_id: productA }, key: freshKey() })).status).toBe(400);
      expect((await bench.call('PATCH', '/catalog/features/sync', { body: { product_id: productA, features: ['edit'] }, key: freshKey() })).status).toBe(400);
    });

    it('refuses members outside the product with 422 invalid_entitlement', async () => {
      for (const [path, body] of [
        ['/catalog/groups', { product_id: productA, id: 'bad-group', name: 'x', features: ['ghost'] }],
        ['/catalog/tiers', { product_id: productA, id: 'bad-tier', name: 'x', groups: ['ghost'] }],
        ['/catalog/tiers', { product_id: productA, id: 'cross-tier', name: 'x', features: ['a2-only'] }],
      ] as const) {
        const answer = await post(path, body);
        expect(answer.status, JSON.stringify(body)).toBe(422);
        expect(answer.body.error.code).toBe('invalid_entitlement');
      }
      const patch = await bench.call('PATCH', '/catalog/groups/export', { body: { product_id: productA, features: ['export.pdf', 'ghost'] }, key: freshKey() });
      expect(patch.status).toBe(422);
      expect(patch.body.error.message).toContain('feature:ghost');
      expect((await bench.call('GET', '/catalog/groups', { query: { product_id: productA } })).body.groups.find((g: { id: string }) => g.id === 'export').features).toEqual(['export.pdf', 'export.svg']);
    });

    it('has no DELETE: 405 method_not_allowed, and the item stays', async () => {
      for (const path of ['/catalog/features/edit', '/catalog/groups/export', '/catalog/tiers/pro', '/catalog/features']) {
        const answer = await bench.call('DELETE', path, { key: freshKey() });
        expect(answer.status, path).toBe(405);
        expect(answer.body).toEqual({ ok: false, error: { code: 'method_not_allowed', message: expect.any(String) } });
      }
      expect((await bench.call('GET', '/catalog/features', { query: { product_id: productA } })).text).toContain('"edit"');
    });

    it('resolves a snapshot deterministically, byte for byte', async () => {
      const body = { product_id: productA, tier: 'pro', features: ['export.pdf'], overrides: { remove: ['sync'] } };
      const first = await bench.call('POST', '/catalog/resolve', { body });
      const second = await bench.call('POST', '/catalog/resolve', { body: { overrides: { remove: ['sync'] }, features: ['export.pdf', 'export.pdf'], tier: 'pro', product_id: productA } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ ok: true, snapshot: { product_id: productA, tier: 'pro', features: ['edit', 'export.pdf', 'export.svg'], digest: expect.stringMatching(/^[0-9a-f]{64}$/) } });
      expect(second.text).toBe(first.text);
      // A read: no Idempotency-Key needed, nothing journaled or audited.
      expect(first.headers.get('idempotent-replayed')).toBeNull();
    });

    it('answers unknown entitlements with 422 and bad resolve bodies with 400', async () => {
      const unknown = await bench.call('POST', '/catalog/resolve', { body: { product_id: productA, tier: 'gold' } });
      expect(unknown.status).toBe(422);
      expect(unknown.body).toEqual({ ok: false, error: { code: 'invalid_entitlement', message: expect.stringContaining('tier gold') } });
      expect((await bench.call('POST', '/catalog/resolve', { body: { product_id: productA, tier: 'export' } })).status).toBe(422);
      for (const body of [undefined, {}, { product_id: productA, tier: 'Pro' }, { product_id: productA, features: 'edit' }, { product_id: productA, extra: true }]) {
        expect((await bench.call('POST', '/catalog/resolve', { body })).status, JSON.stringify(body)).toBe(400);
      }
    });

    it('isolates vendors: B gets 404 for A’s items and products and never sees them', async () => {
      const tokenB = bench.vendorB.token;
      expect((await bench.call('GET', '/catalog/features', { token: tokenB, query: { product_id: productA } })).status).toBe(404);
      for (const path of ['/catalog/features/edit', '/catalog/groups/export', '/catalog/tiers/pro']) {
        // 404 before the body is even read: B learns nothing from a body it could not have gotten right.
        for (const body of [{}, { product_id: productA, name: 'Mine now' }, { product_id: productB, name: 'Mine now' }]) {
          const answer = await bench.call('PATCH', path, { token: tokenB, body, key: freshKey() });
          expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(404);
          expect(answer.body.error.code).toBe('not_found');
        }
      }
      expect((await post('/catalog/features', { product_id: productA, id: 'b-was-here', name: 'x' }, tokenB)).status).toBe(404);
      expect((await bench.call('POST', '/catalog/resolve', { token: tokenB, body: { product_id: productA, tier: 'pro' } })).status).toBe(404);
      // B's own catalog cannot reference A's items, and B's lists hold only B's.
      expect((await post('/catalog/features', { product_id: productB, id: 'b-feature', name: 'B' }, tokenB)).status).toBe(201);
      expect((await post('/catalog/tiers', { product_id: productB, id: 'pro', name: 'B Pro', features: ['edit'] }, tokenB)).status).toBe(422);
      const listB = await bench.call('GET', '/catalog/features', { token: tokenB, query: { product_id: productB } });
      expect(listB.body.features.map((item: { id: string }) => item.id)).toEqual(['b-feature']);
      expect(listB.text).not.toContain(productA);
      expect((await bench.call('GET', '/catalog/features', { query: { product_id: productA } })).text).not.toContain('b-feature');
    });

    it('replays a keyed create verbatim and refuses the key with another body', async () => {
      const key = freshKey();
      const body = { product_id: productA, id: 'replayed', name: 'Replayed' };
      const first = await bench.call('POST', '/catalog/features', { body, key });
      const replay = await bench.call('POST', '/catalog/features', { body: { name: 'Replayed', id: 'replayed', product_id: productA }, key });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const conflict = await bench.call('POST', '/catalog/features', { body: { ...body, name: 'Other' }, key });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('idempotency_conflict');
    });

    it('audits creates and patches with the product in the target id', async () => {
      await bench.call('PATCH', '/catalog/features/sync', { body: { product_id: productA, name: 'Cloud sync' }, key: freshKey() });
      const events = await bench.call('GET', '/audit', { query: { target_type: 'catalog_feature', target_id: `${productA}/sync` } });
      expect(events.body.events.map((event: { action: string }) => event.action)).toEqual(['catalog.feature.update', 'catalog.feature.create']);
    });
  });
}
