/**
 * The admin client's `releases`, `assetKeks` and `integrity` groups against a real license server:
 * every method once with its answer checked, destructive calls previewing (nothing changes) unless
 * `dryRun: false`, list pagination across pages, and a manifest signature that verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEd25519 } from '@tollgate/core/crypto';
import { integrityManifestSigningMessage } from '@tollgate/core/license';
import { createAdminClient, type AdminClient } from '@tollgate/admin-client';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedCatalog, snapshotTables } from '../admin/admin-license-fixtures';
import { randomHex32, seedReleaseMachines } from '../admin/admin-releases-fixtures';
import { serverEngines } from '../helpers';
import { manifestFor } from '../integrity/integrity-fixtures';

/** Every item of an async iterable (a paginated list). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

for (const engine of serverEngines) {
  describe(`admin client: releases, asset keys, integrity [${engine.name}]`, () => {
    let bench: AdminHarness;
    let admin: AdminClient;
    let productId: string;
    const registration = () => ({ productId, appVersion: '2.1.0', buildFingerprint: randomHex32(), channel: 'stable' });

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      admin = createAdminClient({ baseUrl: bench.url, token: bench.vendorA.token });
      productId = bench.vendorA.productId;
      await seedCatalog(bench, bench.vendorA, [{ kind: 'feature', id: 'export_pdf' }, { kind: 'feature', id: 'batch' }]);
    }, 90_000);
    afterAll(() => bench?.close());

    describe('releases', () => {
      it('registers a build once (the same build again answers already_registered) and reads it back', async () => {
        const input = { ...registration(), manifestRootHex: randomHex32() };
        const created = await admin.releases.create(input);
        expect(created).toMatchObject({ already_registered: false, release: { product_id: productId, app_version: '2.1.0', channel: 'stable', build_fingerprint: input.buildFingerprint, manifest_root_hex: input.manifestRootHex, state: 'registered' } });
        const again = await admin.releases.create(input);
        expect(again).toMatchObject({ already_registered: true, release: { release_id: created.release.release_id } });
        expect(await admin.releases.get(created.release.release_id)).toEqual(created.release);
      });

      it('lists releases page by page and through the async iterator, with filters', async () => {
        for (let index = 0; index < 3; index++) await admin.releases.create({ ...registration(), channel: 'beta' });
        const first = await admin.releases.list({ productId, channel: 'beta', limit: 2 }).page();
        expect(first.items).toHaveLength(2);
        expect(first.nextCursor).not.toBeNull();
        const all = await collect(admin.releases.list({ productId, channel: 'beta', limit: 2 }));
        expect(all).toHaveLength(3);
        expect(new Set(all.map((release) => release.release_id)).size).toBe(3);
        expect(all.every((release) => release.channel === 'beta')).toBe(true);
      });

      it('deprecates as a dry run by default (nothing changes) and for real with dryRun: false', async () => {
        const { release } = await admin.releases.create(registration());
        await seedReleaseMachines(bench, bench.vendorA, release.release_id, 2);
        const before = await snapshotTables(bench);
        const preview = await admin.releases.deprecate(release.release_id);
        expect(preview).toMatchObject({ dry_run: true, would_change: true, impacted_devices: 2, warnings: [] });
        expect(await snapshotTables(bench)).toBe(before);
        const done = await admin.releases.deprecate(release.release_id, {}, { dryRun: false });
        expect(done).toMatchObject({ dry_run: false, changed: true, impacted_devices: 2, release: { state: 'deprecated' } });
        const deprecated = await collect(admin.releases.list({ productId, state: 'deprecated' }));
        expect(deprecated.map((one) => one.release_id)).toEqual([release.release_id]);
      });

      it('marks a release compromised: preview without an action, acknowledgement needed for revoke, floor raised once', async () => {
        const { release } = await admin.releases.create(registration());
        const preview = await admin.releases.markCompromised(release.release_id);
        expect(preview).toMatchObject({ dry_run: true, action: null, changing_actions: ['warn', 'force_upgrade', 'revoke'], security_floor: { current: 0, next: 0 } });
        const unacknowledged = await admin.releases.markCompromised(release.release_id, { action: 'revoke' }, { dryRun: false }).catch((error: unknown) => error);
        expect(unacknowledged).toMatchObject({ name: 'AdminApiError', code: 'invalid_request', status: 400 });
        const done = await admin.releases.markCompromised(release.release_id, { action: 'revoke', acknowledgeRevoke: true, bumpSecurityFloor: true }, { dryRun: false });
        expect(done).toMatchObject({ dry_run: false, changed: true, security_floor: { previous: 0, current: 1 }, release: { state: 'compromised', compromise_action: 'revoke' } });
      });
    });

    describe('assetKeks', () => {
      it('generates a key (shown once), registers an uploaded one idempotently, lists, and deletes after a dry run', async () => {
        const { release } = await admin.releases.create(registration());
        const generated = await admin.assetKeks.create({ releaseId: release.release_id, featureId: 'export_pdf' });
        expect(generated).toMatchObject({ already_registered: false, asset_kek: { release_id: release.release_id, feature_id: 'export_pdf', source: 'generated' } });
        expect(generated.key_hex).toMatch(/^[0-9a-f]{64}$/);
        const upload = { releaseId: release.release_id, featureId: 'batch', keyHex: randomHex32() };
        const uploaded = await admin.assetKeks.create(upload);
        expect(uploaded).toMatchObject({ already_registered: false, asset_kek: { source: 'uploaded' } });
        expect(uploaded.key_hex).toBeUndefined();
        expect(await admin.assetKeks.create(upload)).toMatchObject({ already_registered: true, asset_kek: { fingerprint: uploaded.asset_kek.fingerprint } });
        const conflict = await admin.assetKeks.create({ releaseId: release.release_id, featureId: 'batch' }).catch((error: unknown) => error);
        expect(conflict).toMatchObject({ code: 'asset_kek_exists', status: 409 });

        const listed = await collect(admin.assetKeks.list({ releaseId: release.release_id, limit: 1 }));
        expect(listed.map((kek) => kek.feature_id)).toEqual(['export_pdf', 'batch']);

        const before = await snapshotTables(bench);
        const preview = await admin.assetKeks.delete(release.release_id, 'batch');
        expect(preview).toMatchObject({ dry_run: true, would_delete: true, asset_kek: { fingerprint: uploaded.asset_kek.fingerprint } });
        expect(await snapshotTables(bench)).toBe(before);
        expect(await admin.assetKeks.delete(release.release_id, 'batch', { dryRun: false })).toMatchObject({ dry_run: false, deleted: true });
        expect((await collect(admin.assetKeks.list({ releaseId: release.release_id }))).map((kek) => kek.feature_id)).toEqual(['export_pdf']);
      });
    });

    describe('integrity', () => {
      it('registers and lists signer keys, signs a manifest (raw signature + signer key), and revokes after a dry run', async () => {
        const key = await admin.integrity.keys.register({ productId, label: 'ci' });
        expect(key).toMatchObject({ product_id: productId, label: 'ci', status: 'registered', algorithm: 'ed25519' });
        const listed = await collect(admin.integrity.keys.list({ productId, status: 'registered' }));
        expect(listed.map((one) => one.fingerprint)).toContain(key.fingerprint);

        const manifest = manifestFor(productId, key.fingerprint);
        const { signature, signerKey } = await admin.integrity.sign(manifest);
        expect(signerKey).toBe(key.fingerprint);
        expect(signature).toHaveLength(64);
        const publicKey = Uint8Array.from(Buffer.from(key.public_key_hex, 'hex'));
        expect(verifyEd25519(publicKey, integrityManifestSigningMessage(manifest), signature)).toBe(true);

        const preview = await admin.integrity.keys.revoke(key.fingerprint, { reason: 'rotated' });
        expect(preview).toMatchObject({ dry_run: true, next_status: 'revoked', key: { status: 'registered' } });
        expect((await admin.integrity.sign(manifest)).signerKey).toBe(key.fingerprint);
        const revoked = await admin.integrity.keys.revoke(key.fingerprint, { reason: 'rotated', dryRun: false });
        expect(revoked).toMatchObject({ dry_run: false, key: { fingerprint: key.fingerprint, status: 'revoked' } });
        const refused = await admin.integrity.sign(manifest).catch((error: unknown) => error);
        expect(refused).toMatchObject({ name: 'AdminApiError', code: 'signer_key_not_registered', status: 403 });
        expect((await collect(admin.integrity.keys.list({ status: 'revoked' }))).map((one) => one.fingerprint)).toEqual([key.fingerprint]);
      });
    });
  });
}
