/**
 * Release registry routes through HTTP: register, list, get, errors, scopes, vendor isolation and
 * idempotent replays (deprecate and mark-compromised: admin-releases-states.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { snapshotTables } from './admin-license-fixtures';
import { randomHex32, registerRelease, releaseAuditActions, releaseBody } from './admin-releases-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin releases: registry [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
    });
    afterAll(() => bench?.close());

    it('registers a build: server-assigned ids, state registered, one audit event', async () => {
      const body = releaseBody(bench.vendorA, { app_version: '2.0.0-rc.1', channel: 'beta', manifest_root_hex: randomHex32(), module_digest_hex: randomHex32() });
      const answer = await registerRelease(bench, body);
      const release = answer.body.release;
      expect(answer.body).toMatchObject({ ok: true, already_registered: false, variant_reused: false });
      expect(release).toMatchObject({
        product_id: bench.vendorA.productId,
        app_version: '2.0.0-rc.1',
        channel: 'beta',
        build_fingerprint: body['build_fingerprint'],
        manifest_root_hex: body['manifest_root_hex'],
        module_digest_hex: body['module_digest_hex'],
        has_variant_seed: false,
        state: 'registered',
        compromise_action: null,
        release_status: 0,
        deprecated_at: null,
        compromised_at: null,
      });
      expect(release.release_id).toMatch(/^[0-9a-f]{32}$/);
      expect(release.variant_id).toMatch(/^[0-9a-f]{32}$/);
      expect(release.variant_id).not.toBe(release.release_id);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(await releaseAuditActions(bench, release.release_id)).toEqual(['release.register']);

      const fetched = await bench.call('GET', `/releases/${release.release_id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual({ ok: true, release });
    });

    it('answers the same build registered again with the stored release, and refuses it with other fields', async () => {
      const body = releaseBody(bench.vendorA);
      const first = await registerRelease(bench, body);
      const again = await bench.call('POST', '/releases', { body, key: freshKey() });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ok: true, release: first.body.release, already_registered: true, variant_reused: false });

      const changed = await bench.call('POST', '/releases', { body: { ...body, app_version: '1.4.1' }, key: freshKey() });
      expect(changed.status).toBe(409);
      expect(changed.body.error.code).toBe('idempotency_conflict');
      expect(changed.body.error.message).toContain(first.body.release.release_id);
      expect(changed.body.error.message).toContain('app_version');
      const seeded = await bench.call('POST', '/releases', { body: { ...body, variant_seed_hex: randomHex32() }, key: freshKey() });
      expect(seeded.status).toBe(409);
      expect(seeded.body.error.message).toContain('variant_seed_hex');

      const { rows } = await bench.sql.query('SELECT 1 FROM license_releases WHERE build_fingerprint = $1', [body['build_fingerprint'] as string]);
      expect(rows).toHaveLength(1);
      expect(await releaseAuditActions(bench, first.body.release.release_id)).toEqual(['release.register', 'release.register']);
    });

    it('replays a registration under the same Idempotency-Key and refuses the key with another body', async () => {
      const body = releaseBody(bench.vendorA);
      const key = freshKey();
      const first = await bench.call('POST', '/releases', { body, key });
      expect(first.status).toBe(201);
      const replay = await bench.call('POST', '/releases', { body, key });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      const other = await bench.call('POST', '/releases', { body: releaseBody(bench.vendorA), key });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_conflict');
      expect(await releaseAuditActions(bench, first.body.release.release_id)).toEqual(['release.register']);
      const missingKey = await bench.call('POST', '/releases', { body: releaseBody(bench.vendorA) });
      expect(missingKey.status).toBe(400);
      expect(missingKey.body.error.message).toMatch(/Idempotency-Key/);
    });

    it('shares a variant between builds of one seed and never stores the seed', async () => {
      const seed = randomHex32();
      const first = await registerRelease(bench, releaseBody(bench.vendorA, { variant_seed_hex: seed }));
      const second = await registerRelease(bench, releaseBody(bench.vendorA, { variant_seed_hex: seed, app_version: '1.5.0' }));
      const other = await registerRelease(bench, releaseBody(bench.vendorA, { variant_seed_hex: randomHex32() }));
      const unseeded = await registerRelease(bench, releaseBody(bench.vendorA));
      expect(first.body.release.has_variant_seed).toBe(true);
      expect(first.body.variant_reused).toBe(false);
      expect(second.body.variant_reused).toBe(true);
      expect(second.body.release.variant_id).toBe(first.body.release.variant_id);
      expect(other.body.release.variant_id).not.toBe(first.body.release.variant_id);
      expect(unseeded.body.release.variant_id).not.toBe(first.body.release.variant_id);
      // The same seed in another product is another variant.
      const foreign = await registerRelease(bench, releaseBody(bench.vendorB, { variant_seed_hex: seed }), bench.vendorB.token);
      expect(foreign.body.release.variant_id).not.toBe(first.body.release.variant_id);
      expect(await snapshotTables(bench)).not.toContain(seed);
    });

    it('refuses malformed registrations with 400 naming the field, and unknown or foreign products with 404', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ app_version: 'v1.2' }, /app_version.*SemVer/],
        [{ app_version: `1.0.0-${'a'.repeat(64)}` }, /app_version.*64/],
        [{ build_fingerprint: 'AB'.repeat(32) }, /build_fingerprint.*64 lowercase hex/],
        [{ build_fingerprint: 'ab'.repeat(16) }, /build_fingerprint/],
        [{ channel: 'Stable!' }, /channel/],
        [{ manifest_root_hex: 'zz' }, /manifest_root_hex/],
        [{ module_digest_hex: 7 }, /module_digest_hex/],
        [{ variant_seed_hex: '' }, /variant_seed_hex/],
        [{ release_id: randomHex32().slice(0, 32) }, /nothing else/],
        [{ product_id: 'nope' }, /product_id/],
      ];
      for (const [fields, message] of cases) {
        const answer = await bench.call('POST', '/releases', { body: releaseBody(bench.vendorA, fields), key: freshKey() });
        expect(answer.status, JSON.stringify(fields)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
        expect(answer.body.error.message, JSON.stringify(fields)).toMatch(message);
      }
      const { product_id: _product, ...withoutProduct } = releaseBody(bench.vendorA);
      expect((await bench.call('POST', '/releases', { body: withoutProduct, key: freshKey() })).status).toBe(400);
      expect((await bench.call('POST', '/releases', { rawBody: '[1,2]', key: freshKey() })).status).toBe(400);

      const unknown = await bench.call('POST', '/releases', { body: releaseBody(bench.vendorA, { product_id: randomHex32().slice(0, 32) }), key: freshKey() });
      expect(unknown.status).toBe(404);
      const foreign = await bench.call('POST', '/releases', { body: releaseBody(bench.vendorB), key: freshKey() });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('not_found');
    });

    it('lists newest first with cursor pagination and filters, scoped to the vendor', async () => {
      const created: string[] = [];
      for (let n = 0; n < 5; n += 1) created.push((await registerRelease(bench, releaseBody(bench.vendorA, { channel: 'paging' }))).body.release.release_id);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 3; page += 1) {
        const answer = await bench.call('GET', '/releases', { query: { channel: 'paging', limit: '2', ...(cursor === undefined ? {} : { cursor }) } });
        expect(answer.status).toBe(200);
        seen.push(...answer.body.releases.map((release: { release_id: string }) => release.release_id));
        cursor = answer.body.next_cursor ?? undefined;
        if (page < 2) expect(cursor).toEqual(expect.any(String));
      }
      expect(cursor).toBeUndefined();
      expect(seen).toEqual([...created].reverse());

      const byProduct = await bench.call('GET', '/releases', { query: { product_id: bench.vendorA.productId, state: 'registered', limit: '200' } });
      expect(byProduct.body.releases.length).toBeGreaterThanOrEqual(5);
      expect(byProduct.body.releases.every((release: { state: string }) => release.state === 'registered')).toBe(true);
      const none = await bench.call('GET', '/releases', { query: { state: 'compromised', channel: 'paging' } });
      expect(none.body).toEqual({ ok: true, releases: [], next_cursor: null });

      const fromB = await bench.call('GET', '/releases', { token: bench.vendorB.token, query: { limit: '200' } });
      expect(fromB.status).toBe(200);
      for (const id of created) expect(fromB.text).not.toContain(id);
      const foreignFilter = await bench.call('GET', '/releases', { token: bench.vendorB.token, query: { product_id: bench.vendorA.productId } });
      expect(foreignFilter.status).toBe(404);
      for (const query of [{ state: 'yanked' }, { limit: '0' }, { cursor: '!!' }, { product_id: 'x' }, { channel: 'A B' }] as Record<string, string>[]) {
        const refused = await bench.call('GET', '/releases', { query });
        expect(refused.status, JSON.stringify(query)).toBe(400);
      }
    });

    it('answers malformed, unknown and foreign release ids as 404 on every release route', async () => {
      const mine = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id as string;
      const targets = [
        { id: 'NOT-AN-ID', token: bench.vendorA.token },
        { id: randomHex32().slice(0, 32), token: bench.vendorA.token },
        { id: mine, token: bench.vendorB.token },
      ];
      for (const { id, token } of targets) {
        for (const [method, path, body] of [
          ['GET', `/releases/${id}`, undefined],
          ['POST', `/releases/${id}/deprecate`, {}],
          ['POST', `/releases/${id}/mark-compromised`, { action: 'warn' }],
        ] as const) {
          for (const dryRun of method === 'GET' ? ['true'] : ['true', 'false']) {
            const answer = await bench.call(method, path, { token, key: freshKey(), query: method === 'GET' ? {} : { dry_run: dryRun }, ...(body === undefined ? {} : { body }) });
            expect(answer.status, `${method} ${path} ${dryRun}`).toBe(404);
            expect(answer.body.error.code).toBe('not_found');
          }
        }
      }
    });

    it('needs releases:rw on every release route', async () => {
      const id = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id as string;
      const without = await bench.tokenWith(bench.vendorA, ['licenses:rw', 'products:rw', 'revoke', 'machines:rw']);
      const withScope = await bench.tokenWith(bench.vendorA, ['releases:rw']);
      const routes = [
        ['GET', '/releases', undefined],
        ['POST', '/releases', releaseBody(bench.vendorA)],
        ['GET', `/releases/${id}`, undefined],
        ['POST', `/releases/${id}/deprecate`, {}],
        ['POST', `/releases/${id}/mark-compromised`, { action: 'warn' }],
      ] as const;
      for (const [method, path, body] of routes) {
        const refused = await bench.call(method, path, { token: without, key: freshKey(), ...(body === undefined ? {} : { body }) });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.body.error.code).toBe('insufficient_scope');
        expect(refused.body.error.message).toContain('releases:rw');
        const allowed = await bench.call(method, path, { token: withScope, key: freshKey(), ...(body === undefined ? {} : { body }) });
        expect(allowed.status, `${method} ${path}`).toBeLessThan(300);
        const anonymous = await bench.call(method, path, { token: null, key: freshKey(), ...(body === undefined ? {} : { body }) });
        expect(anonymous.status).toBe(401);
      }
    });
  });
}
