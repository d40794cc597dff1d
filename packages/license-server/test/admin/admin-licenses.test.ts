import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64Decode, keyedHash, keyedHashLabels, utf8Encode, verifyEd25519 } from '@tollgate/core/crypto';
import { decodeProtectedHeader, decodeSign1, deriveLicenseAdminKeys, sigStructure, verifyEpochCertificate } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { hexOf, issueLicenses, readFeed, seedCatalog, seedMachines, seedPolicy, seedSubscription, snapshotTables } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

const keyPattern = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){5}$/;

for (const engine of serverEngines) {
  describe(`Admin licenses [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyId: string;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      policyId = await seedPolicy(bench, bench.vendorA);
      await seedCatalog(bench, bench.vendorA, [
        { kind: 'feature', id: 'sync' },
        { kind: 'feature', id: 'export.pdf' },
        { kind: 'tier', id: 'basic', features: ['sync'] },
        { kind: 'tier', id: 'pro', features: ['export.pdf', 'sync'] },
      ]);
    });
    afterAll(() => bench?.close());

    it('issues licenses with their plaintext keys once and stores only keyed hashes', async () => {
      const answer = await bench.call('POST', '/licenses', { body: { policy_id: policyId, count: 3, metadata: { crm: 'acct-7' } }, key: freshKey() });
      expect(answer.status).toBe(201);
      const licenses = answer.body.licenses as { license_id: string; key: string; key_hint: string }[];
      expect(licenses).toHaveLength(3);
      expect(licenses[0]).toMatchObject({ status: 'active', policy_id: policyId, product_id: bench.vendorA.productId, seats: 3, expires_at: null, metadata: { crm: 'acct-7' } });
      const hashKey = deriveLicenseAdminKeys(bench.server.context.adminProvisioning.masterKey).licenseKeyHash;
      const tables = await snapshotTables(bench);
      for (const { license_id, key, key_hint } of licenses) {
        expect(key).toMatch(keyPattern);
        expect(key_hint).toBe(key.slice(-4));
        const canonical = key.replace(/-/g, '');
        // Nowhere in any table, in either spelling; the stored hash is the keyed hash of the canonical key.
        expect(tables).not.toContain(key);
        expect(tables).not.toContain(canonical);
        const { rows } = await bench.sql.query<{ key_hash: string }>('SELECT key_hash FROM license_licenses WHERE license_id = $1', [license_id]);
        expect(rows[0]?.key_hash).toBe(keyedHash(hashKey, canonical, keyedHashLabels.licenseKey));
        const read = await bench.call('GET', `/licenses/${license_id}`);
        expect(read.status).toBe(200);
        expect(read.body.license.key).toBeUndefined();
        expect(read.text).not.toContain(canonical.slice(0, 10));
      }
      expect(new Set(licenses.map((license) => license.key)).size).toBe(3);
    });

    it('dates expiry from the policy duration unless told, and refuses bad issue requests', async () => {
      const timed = await seedPolicy(bench, bench.vendorA, { duration_seconds: 86_400 });
      const [defaulted] = await issueLicenses(bench, timed);
      expect(Date.parse(defaulted?.expires_at as string) - Date.now()).toBeGreaterThan(86_000_000);
      const [perpetual] = await issueLicenses(bench, timed, { expires_at: null, seats_override: 7 });
      expect(perpetual).toMatchObject({ expires_at: null, seats: 7, seats_override: 7 });
      const refuse = async (body: Record<string, unknown>, status: number, code: string) => {
        const answer = await bench.call('POST', '/licenses', { body: { policy_id: policyId, count: 1, ...body }, key: freshKey() });
        expect(answer.status, JSON.stringify(body)).toBe(status);
        expect(answer.body.error.code).toBe(code);
      };
      await refuse({ count: 101 }, 400, 'invalid_request');
      await refuse({ expires_at: '2001-01-01T00:00:00Z' }, 400, 'invalid_request');
      await refuse({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, n) => [`k${n}`, 'v'])) }, 400, 'invalid_request');
      await refuse({ policy_id: await seedPolicy(bench, bench.vendorB) }, 404, 'not_found');
      await refuse({ account_id: 'ab'.repeat(16) }, 404, 'not_found');
      const account = await bench.call('POST', '/accounts', { body: { product_id: bench.vendorA.productId, email: `l-${Date.now()}@example.com`, password: 'long enough pw' }, key: freshKey() });
      const [owned] = await issueLicenses(bench, policyId, { account_id: account.body.account.account_id });
      expect(owned?.account_id).toBe(account.body.account.account_id);
    });

    it('lists a product’s licenses by shown status with cursors, and never another vendor’s', async () => {
      const listPolicy = await seedPolicy(bench, bench.vendorA);
      await issueLicenses(bench, listPolicy, { count: 5 });
      const [suspended] = await issueLicenses(bench, listPolicy);
      await bench.call('PATCH', `/licenses/${suspended?.license_id}`, { body: { status: 'suspended' }, key: freshKey() });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bench.call('GET', '/licenses', { query: { product_id: bench.vendorA.productId, limit: '4', ...(cursor ? { cursor } : {}) } });
        expect(page.status).toBe(200);
        seen.push(...page.body.licenses.map((license: { license_id: string }) => license.license_id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      const suspendedOnly = await bench.call('GET', '/licenses', { query: { product_id: bench.vendorA.productId, status: 'suspended' } });
      expect(suspendedOnly.body.licenses.map((license: { license_id: string }) => license.license_id)).toContain(suspended?.license_id);
      expect(suspendedOnly.body.licenses.every((license: { status: string }) => license.status === 'suspended')).toBe(true);
      expect((await bench.call('GET', '/licenses')).status).toBe(400);
      const asB = await bench.call('GET', '/licenses', { token: bench.vendorB.token, query: { product_id: bench.vendorA.productId } });
      expect(asB.status).toBe(404);
      expect(asB.body.error.code).toBe('not_found');
    });

    it('patches status, expiry, seats and overrides, and refuses revoked licenses and revocation by PATCH', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      const patched = await bench.call('PATCH', `/licenses/${id}`, {
        body: { status: 'suspended', seats_override: 9, expires_at: '2040-01-01T00:00:00Z', entitlement_overrides: { add: ['export.pdf'] }, version_scope_override: { min: '2.0.0' } },
        key: freshKey(),
      });
      expect(patched.status).toBe(200);
      expect(patched.body.license).toMatchObject({ status: 'suspended', seats: 9, expires_at: '2040-01-01T00:00:00.000Z', entitlement_overrides: { add: ['export.pdf'], remove: [] }, version_scope_override: { min: '2.0.0' } });
      const unknownFeature = await bench.call('PATCH', `/licenses/${id}`, { body: { entitlement_overrides: { add: ['teleport'] } }, key: freshKey() });
      expect([unknownFeature.status, unknownFeature.body.error.code]).toEqual([422, 'invalid_entitlement']);
      const byPatch = await bench.call('PATCH', `/licenses/${id}`, { body: { status: 'revoked' }, key: freshKey() });
      expect(byPatch.status).toBe(400);
      expect(byPatch.body.error.message).toMatch(/revoke/);
      await bench.call('POST', `/licenses/${id}/revoke`, { query: { dry_run: 'false' }, body: {}, key: freshKey() });
      const afterRevoke = await bench.call('PATCH', `/licenses/${id}`, { body: { status: 'active' }, key: freshKey() });
      expect([afterRevoke.status, afterRevoke.body.error.code]).toEqual([409, 'already_revoked']);
      const tierAfterRevoke = await bench.call('POST', `/licenses/${id}/change-tier`, { body: { tier: 'pro' }, key: freshKey() });
      expect([tierAfterRevoke.status, tierAfterRevoke.body.error.code]).toEqual([409, 'already_revoked']);
    });

    it('changes the tier to one of the product and answers the new entitlements', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const changed = await bench.call('POST', `/licenses/${license?.license_id}/change-tier`, { body: { tier: 'pro' }, key: freshKey() });
      expect(changed.status).toBe(200);
      expect(changed.body.license.tier).toBe('pro');
      expect(changed.body.entitlements).toMatchObject({ product_id: bench.vendorA.productId, tier: 'pro', features: ['export.pdf', 'sync'], digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const unknown = await bench.call('POST', `/licenses/${license?.license_id}/change-tier`, { body: { tier: 'platinum' }, key: freshKey() });
      expect([unknown.status, unknown.body.error.code]).toEqual([422, 'invalid_entitlement']);
    });

    it('previews the subscription fallback: 404 without one, else what lapsing would grant', async () => {
      const fallbackPolicy = await seedPolicy(bench, bench.vendorA, { tier: 'pro', expiry_behavior: 'fallback', fallback_tier: 'basic' });
      const [license] = await issueLicenses(bench, fallbackPolicy);
      const id = license?.license_id as string;
      const none = await bench.call('GET', `/licenses/${id}/preview-fallback`);
      expect([none.status, none.body.error.code]).toEqual([404, 'not_found']);
      await seedSubscription(bench, bench.vendorA, id);
      const preview = await bench.call('GET', `/licenses/${id}/preview-fallback`);
      expect(preview.status).toBe(200);
      expect(preview.body).toMatchObject({
        license_id: id,
        subscription: { provider: 'stripe', status: 'active' },
        expiry_behavior: 'fallback',
        current: { tier: 'pro', features: ['export.pdf', 'sync'] },
        on_lapse: { access: 'fallback', tier: 'basic', entitlements: { tier: 'basic', features: ['sync'] } },
      });
      const [denied] = await issueLicenses(bench, await seedPolicy(bench, bench.vendorA, { expiry_behavior: 'deny' }));
      await seedSubscription(bench, bench.vendorA, denied?.license_id as string);
      expect((await bench.call('GET', `/licenses/${denied?.license_id}/preview-fallback`)).body.on_lapse).toEqual({ access: 'denied', entitlements: null });
    });

    it('lists at most 1000 machines of a license', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      await seedMachines(bench, bench.vendorA, id, 1001);
      const answer = await bench.call('GET', `/licenses/${id}/machines`);
      expect(answer.status).toBe(200);
      expect(answer.body.machines).toHaveLength(1000);
      expect(answer.body.truncated).toBe(true);
      expect(answer.body.machines[0]).toEqual({
        machine_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        license_id: id,
        status: 'active',
        name: 'Box 1001',
        platform: 'linux-x64',
        created_at: expect.any(String),
        last_seen_at: expect.any(String),
        deactivated_at: null,
        revoked_at: null,
        revocation_seq: null,
      });
    });

    it('mints signed offline keys for active licenses whose policy allows them', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      const body = { release_id: 'cd'.repeat(16), bound_fingerprint_hex: 'ef'.repeat(32), max_seats: 2 };
      const minted = await bench.call('POST', `/licenses/${id}/offline-key`, { body, key: freshKey() });
      expect(minted.status).toBe(201);
      const bundle = minted.body.offline_key;
      expect(bundle).toMatchObject({ license_id: id, release_id: body.release_id, bound_fingerprint_hex: body.bound_fingerprint_hex, max_seats: 2, kind: 'offline-key' });
      const epoch = verifyEpochCertificate(base64Decode(bundle.certificate_base64), { pinnedRoots: bench.server.context.pinnedRoots });
      expect(epoch.epochIdHex).toBe(bundle.epoch_id);
      const parts = decodeSign1(base64Decode(bundle.envelope_base64));
      expect(decodeProtectedHeader(parts.protectedBytes)).toMatchObject({ contentType: 'application/vnd.tollgate.offline-key+cbor', productId: bench.vendorA.productId });
      const aad = utf8Encode(`tollgate/license/v1/offline-key\0${bench.vendorA.productId}`);
      expect(verifyEd25519(epoch.publicKey, sigStructure(parts.protectedBytes, aad, parts.payload), parts.signature)).toBe(true);
      expect(hexOf(parts.payload)).toContain(id);

      expect((await bench.call('POST', `/licenses/${id}/offline-key`, { body: { ...body, max_seats: 4 }, key: freshKey() })).status).toBe(400);
      const closed = await seedPolicy(bench, bench.vendorA, { offline_allowed: false });
      const [online] = await issueLicenses(bench, closed);
      const refused = await bench.call('POST', `/licenses/${online?.license_id}/offline-key`, { body, key: freshKey() });
      expect([refused.status, refused.body.error.code]).toEqual([422, 'olk_not_allowed']);
      await bench.call('PATCH', `/licenses/${id}`, { body: { status: 'suspended' }, key: freshKey() });
      const inactive = await bench.call('POST', `/licenses/${id}/offline-key`, { body, key: freshKey() });
      expect([inactive.status, inactive.body.error.code]).toEqual([409, 'license_not_active']);
      await bench.call('PATCH', `/licenses/${id}`, { body: { status: 'active', expires_at: new Date(Date.now() - 1000).toISOString() }, key: freshKey() });
      const expired = await bench.call('POST', `/licenses/${id}/offline-key`, { body, key: freshKey() });
      expect([expired.status, expired.body.error.code]).toEqual([409, 'license_not_active']);
    });

    it('answers every license route of vendor A’s license as not found to vendor B', async () => {
      const [license] = await issueLicenses(bench, policyId);
      const id = license?.license_id as string;
      const rowOf = async () => (await bench.sql.query<{ row: string }>('SELECT l::text AS row FROM license_licenses l WHERE license_id = $1', [id])).rows[0]?.row;
      const before = await rowOf();
      const feedBefore = await readFeed(bench);
      const asB = { token: bench.vendorB.token, key: freshKey() };
      for (const [method, path, body] of [
        ['GET', `/licenses/${id}`, undefined],
        ['PATCH', `/licenses/${id}`, { status: 'suspended' }],
        ['POST', `/licenses/${id}/change-tier`, { tier: 'pro' }],
        ['GET', `/licenses/${id}/preview-fallback`, undefined],
        ['GET', `/licenses/${id}/machines`, undefined],
        ['POST', `/licenses/${id}/offline-key`, { release_id: 'cd'.repeat(16) }],
        ['POST', `/licenses/${id}/revoke`, {}],
      ] as const) {
        for (const query of (method === 'POST' && path.endsWith('/revoke') ? [{}, { dry_run: 'false' }] : [{}]) as Record<string, string>[]) {
          const answer = await bench.call(method, path, { ...asB, key: freshKey(), query, ...(body === undefined ? {} : { body }) });
          expect([answer.status, answer.body.error.code], `${method} ${path}`).toEqual([404, 'not_found']);
          expect(answer.text).not.toContain(id);
        }
      }
      expect(await rowOf()).toBe(before);
      expect(await readFeed(bench)).toHaveLength(feedBefore.length);
    });
  });
}
