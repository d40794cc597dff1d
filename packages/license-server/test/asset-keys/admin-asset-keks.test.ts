/**
 * The asset-key Admin routes over HTTP: a generated key is shown once (and again only in a replay of the
 * same Idempotency-Key), an uploaded key is never echoed, a second key for a pair is 409, lists and
 * audit events carry fingerprints only, DELETE runs dry first, another vendor's release is 404, and
 * fuzzed bodies and queries never get a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '@tollgate/core';
import { base64Encode, randomBytes } from '@tollgate/core/crypto';
import { assetKeyFingerprintHex, deriveAssetKeySealKey, openAssetKey } from '@tollgate/core/license';
import { loadLicenseConfig, resolveMasterKey } from '@tollgate/license-server';
import { seededRandom } from '@tollgate/core/testing';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin /asset-keks [${engine.name}]`, () => {
    let bench: AdminHarness;
    let releaseId: string;
    let otherReleaseId: string;
    const post = (body: unknown, key = freshKey()) => bench.call('POST', '/asset-keks', { body, key });

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      await seedCatalog(bench, bench.vendorA, [
        { kind: 'feature', id: 'export.pdf' },
        { kind: 'feature', id: 'export.svg' },
        { kind: 'feature', id: 'pro.model' },
      ]);
      releaseId = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id;
      otherReleaseId = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id;
    }, 60_000);
    afterAll(() => bench?.close());

    it('generates a key shown once, seals it at rest, and lists only its fingerprint', async () => {
      const key = freshKey();
      const created = await post({ release_id: releaseId, feature_id: 'export.pdf' }, key);
      expect(created.status).toBe(201);
      const shown = hexDecode(created.body.key_hex);
      expect(shown).toHaveLength(32);
      expect(created.body.key_base64).toBe(base64Encode(shown));
      expect(created.body.asset_kek).toMatchObject({ release_id: releaseId, feature_id: 'export.pdf', fingerprint: assetKeyFingerprintHex(shown), source: 'generated' });

      // The same request again (a lost answer) is the journal's replay; a new request is 409 and shows nothing.
      const replay = await post({ release_id: releaseId, feature_id: 'export.pdf' }, key);
      expect(replay.body.key_hex).toBe(created.body.key_hex);
      const again = await post({ release_id: releaseId, feature_id: 'export.pdf' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('asset_kek_exists');
      expect(again.body.error.message).toContain('DELETE /v1/admin/asset-keks/');
      expect(again.text).not.toContain(created.body.key_hex);

      const listed = await bench.call('GET', '/asset-keks', { query: { release_id: releaseId } });
      expect(listed.status).toBe(200);
      expect(listed.body.asset_keks).toEqual([created.body.asset_kek]);
      expect(listed.text).not.toContain(created.body.key_hex);
      expect(listed.text).not.toContain(created.body.key_base64);

      const { rows } = await bench.sql.query<{ sealed_key: Uint8Array }>('SELECT sealed_key FROM license_asset_keks WHERE release_id = $1', [releaseId]);
      const sealed = new Uint8Array(rows[0]?.sealed_key as Uint8Array);
      expect(hexEncode(sealed)).not.toContain(created.body.key_hex);
      const masterKey = resolveMasterKey(loadLicenseConfig(bench.sandbox.env)).key;
      expect(openAssetKey(deriveAssetKeySealKey(masterKey), { releaseId, featureId: 'export.pdf' }, sealed)).toEqual(shown);

      const audit = await bench.sql.query<{ summary: unknown }>("SELECT summary FROM license_audit_events WHERE action LIKE 'asset_kek.%'");
      expect(audit.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(audit.rows)).not.toContain(created.body.key_hex);
    });

    it('takes an uploaded key as hex or base64, never echoes it, and accepts the same key again', async () => {
      const key = randomBytes(32);
      const created = await post({ release_id: releaseId, feature_id: 'export.svg', key_hex: hexEncode(key) });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('key_hex');
      expect(created.text).not.toContain(hexEncode(key));
      expect(created.body.asset_kek).toMatchObject({ source: 'uploaded', fingerprint: assetKeyFingerprintHex(key) });
      const same = await post({ release_id: releaseId, feature_id: 'export.svg', key_base64: base64Encode(key) });
      expect(same.status).toBe(200);
      expect(same.body.already_registered).toBe(true);
      const other = await post({ release_id: releaseId, feature_id: 'export.svg', key_hex: hexEncode(randomBytes(32)) });
      expect(other.status).toBe(409);
    });

    it('refuses bad bodies, unknown features and releases, and another vendor’s release', async () => {
      for (const body of [
        {},
        { release_id: releaseId },
        { release_id: releaseId, feature_id: 'pro.model', key_hex: 'ab' },
        { release_id: releaseId, feature_id: 'pro.model', key_hex: hexEncode(randomBytes(32)), key_base64: base64Encode(randomBytes(32)) },
        { release_id: releaseId, feature_id: 'pro.model', key_base64: base64Encode(randomBytes(31)) },
        { release_id: releaseId, feature_id: 'pro.model', extra: 1 },
      ]) {
        const answer = await post(body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
      }
      expect((await post({ release_id: releaseId, feature_id: 'no.such.feature' })).status).toBe(404);
      expect((await post({ release_id: 'ab'.repeat(16), feature_id: 'pro.model' })).status).toBe(404);
      const foreign = await bench.call('POST', '/asset-keks', { token: bench.vendorB.token, key: freshKey(), body: { release_id: otherReleaseId, feature_id: 'pro.model' } });
      expect(foreign.status).toBe(404);
      const foreignList = await bench.call('GET', '/asset-keks', { token: bench.vendorB.token });
      expect(foreignList.body.asset_keks).toEqual([]);
    });

    it('deletes only when confirmed: the dry run reports and changes nothing', async () => {
      const created = await post({ release_id: otherReleaseId, feature_id: 'pro.model' });
      expect(created.status).toBe(201);
      const path = `/asset-keks/${otherReleaseId}/pro.model`;
      const dry = await bench.call('DELETE', path);
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ dry_run: true, would_delete: true, asset_kek: { fingerprint: created.body.asset_kek.fingerprint } });
      expect((await bench.call('GET', '/asset-keks', { query: { release_id: otherReleaseId } })).body.asset_keks).toHaveLength(1);
      expect((await bench.call('DELETE', path, { token: bench.vendorB.token, query: { dry_run: 'false' }, key: freshKey() })).status).toBe(404);
      const confirmed = await bench.call('DELETE', path, { query: { dry_run: 'false' }, key: freshKey() });
      expect(confirmed.body).toMatchObject({ dry_run: false, deleted: true });
      expect((await bench.call('GET', '/asset-keks', { query: { release_id: otherReleaseId } })).body.asset_keks).toEqual([]);
      const twice = await bench.call('DELETE', path, { query: { dry_run: 'false' }, key: freshKey() });
      expect(twice.body).toMatchObject({ deleted: false });
      expect(twice.body.warnings[0]).toMatch(/^no_asset_kek/);
      // Deleted, a new key may be registered for the pair.
      expect((await post({ release_id: otherReleaseId, feature_id: 'pro.model' })).status).toBe(201);
    });

    it.runIf(engine.name === 'postgres')('gives a pair exactly one key when requests race (PostgreSQL)', async () => {
      const raced = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id;
      const answers = await Promise.all(Array.from({ length: 6 }, () => post({ release_id: raced, feature_id: 'export.pdf' })));
      const created = answers.filter((answer) => answer.status === 201);
      expect(created).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
      const listed = await bench.call('GET', '/asset-keks', { query: { release_id: raced } });
      expect(listed.body.asset_keks.map((kek: { fingerprint: string }) => kek.fingerprint)).toEqual([assetKeyFingerprintHex(hexDecode(created[0]?.body.key_hex))]);
    });

    it('pages the list with a cursor', async () => {
      const first = await bench.call('GET', '/asset-keks', { query: { limit: '1' } });
      expect(first.body.asset_keks).toHaveLength(1);
      const second = await bench.call('GET', '/asset-keks', { query: { limit: '1', cursor: first.body.next_cursor } });
      expect(second.body.asset_keks).toHaveLength(1);
      expect(second.body.asset_keks[0]).not.toEqual(first.body.asset_keks[0]);
    });

    it('never answers fuzzed bodies, paths and queries with a 5xx', async () => {
      const random = seededRandom(1405);
      const pick = random.pick;
      const values: unknown[] = [null, true, 0, -1, 1.5, '', 'x'.repeat(300), '\u0000', [], {}, releaseId, 'export.pdf', 'ab'.repeat(32), base64Encode(randomBytes(32)), '../..'];
      const fields = ['release_id', 'feature_id', 'key_hex', 'key_base64', 'product_id'];
      for (let n = 0; n < 60; n += 1) {
        const body: Record<string, unknown> = {};
        for (let k = 0; k < 1 + random.int(4); k += 1) body[pick(fields)] = pick(values);
        const created = await post(n % 7 === 0 ? pick(values) : body);
        expect(created.status, JSON.stringify(body)).toBeLessThan(500);
        const segment = () => encodeURIComponent(String(pick([...values, releaseId, 'export.pdf', '%', '..'])));
        const deleted = await bench.call('DELETE', `/asset-keks/${segment()}/${segment()}`, { query: { dry_run: pick(['true', 'false', 'x']) }, key: freshKey() });
        expect(deleted.status).toBeLessThan(500);
        const listed = await bench.call('GET', '/asset-keks', { query: { [pick(['product_id', 'release_id', 'limit', 'cursor'])]: String(pick(values)) } });
        expect(listed.status).toBeLessThan(500);
      }
    }, 120_000);
  });
}
