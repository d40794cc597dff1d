// Asset keys through the license client: an entitled device opens an asset sealed for its release and
// feature, a feature it is not entitled to stays sealed, a changed byte is refused, and after a kill
// order the keys are gone with the stored record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, sealAsset } from '@tollgate/core';
import { freshKey } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { defaultClientInfo, issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;
let release: { release_id: string; build_fingerprint: string; app_version: string };
let pdfKey: Uint8Array;
let licenseKey: string;
let licenseId: string;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
  const admin = bench.admin;
  await seedCatalog(admin, admin.vendorA, [
    { kind: 'feature', id: 'export.pdf' },
    { kind: 'feature', id: 'pro.model' },
    { kind: 'tier', id: 'basic', features: ['export.pdf'] },
  ]);
  ({ key: licenseKey, licenseId } = await issueClientLicense(bench, { tier: 'basic', seats: 5 }));
  release = (await registerRelease(admin, releaseBody(admin.vendorA))).body.release;
  pdfKey = hexDecode((await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: release.release_id, feature_id: 'export.pdf' } })).body.key_hex);
  await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: release.release_id, feature_id: 'pro.model' } });
}, 60_000);
afterAll(() => bench?.close());

describe('asset keys through the license client', () => {
  it('opens an entitled asset, keeps others sealed, refuses a changed byte, and loses the keys on a kill order', async () => {
    const clientInfo = { ...defaultClientInfo, appVersion: release.app_version, buildFingerprint: hexDecode(release.build_fingerprint) };
    const rig = clientRig(bench, { overrides: { clientInfo } });
    expect(await rig.client.activate({ licenseKey })).toBe('active');
    const asset = new TextEncoder().encode('premium PDF templates');
    const sealed = sealAsset({ key: pdfKey, productId: bench.productId, releaseId: hexDecode(release.release_id), feature: 'export.pdf', asset });
    // From the credential, then from a ticket.
    expect(rig.client.openSealedAsset(sealed, 'export.pdf')).toEqual(asset);
    await rig.client.validateNow();
    expect(rig.client.openSealedAsset(sealed, 'export.pdf')).toEqual(asset);
    // Sealed for a feature the tier does not include: no key reached this device.
    const pro = sealAsset({ key: pdfKey, productId: bench.productId, releaseId: hexDecode(release.release_id), feature: 'pro.model', asset });
    expect(() => rig.client.openSealedAsset(pro, 'pro.model')).toThrow();
    const changed = sealed.slice();
    changed[changed.length - 1]! ^= 0x01;
    expect(() => rig.client.openSealedAsset(changed, 'export.pdf')).toThrow();
    // Asking for another feature than the asset was sealed for is refused too.
    expect(() => rig.client.openSealedAsset(sealed, 'pro.model')).toThrow();

    const revoked = await bench.admin.call('POST', `/licenses/${licenseId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
    expect(revoked.status, revoked.text).toBe(200);
    expect(await rig.client.validateNow()).toBe('revoked');
    expect(() => rig.client.openSealedAsset(sealed, 'export.pdf')).toThrow(/revoked/);
    expect(await rig.storage.load()).toBeUndefined();
    await rig.client.stop();
  });
});
