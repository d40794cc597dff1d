/**
 * Asset keys on the wire: machine credentials (online and offline) and validation tickets carry the keys
 * of the device's entitled features for the device's release, wrapped to its KEM key. Only that device
 * unwraps them (through the client SDK); another device's key, a changed byte or a wrap moved into
 * another artifact fails; a deleted key stops being carried (on this instance at once, and on another
 * instance of a shared PostgreSQL through the change notice); a release without keys carries none.
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, sealAsset } from '@tollgate/core';
import type { ClientInfo, MachineCredential, ValidationTicket } from '@tollgate/core/license';
import { assetKeyFeatures, openAsset, readAssetHeader, unwrapAssetKey } from '@tollgate/client-sdk';
import { freshKey } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import {
  defaultClientInfo,
  issueClientLicense,
  newDevice,
  openClientBench,
  postCbor,
  startSecondInstance,
  validateBody,
  verifyAsClient,
  verifyOfflineAnswer,
  type ClientBench,
  type Device,
  type Seat,
} from '../client/client-harness';
import { serverEngines } from '../helpers';

type Release = { release_id: string; build_fingerprint: string; app_version: string };

/** A device with a real X25519 KEM key pair (the harness's devices send random bytes). */
function kemDevice(): Device & { kemSecret: Uint8Array } {
  const kemSecret = x25519.utils.randomSecretKey();
  return { ...newDevice(), kemKey: x25519.getPublicKey(kemSecret), kemSecret };
}

const buildOf = (release: Release): ClientInfo => ({ ...defaultClientInfo, appVersion: release.app_version, buildFingerprint: hexDecode(release.build_fingerprint) });

for (const engine of serverEngines) {
  describe(`asset keys in credentials and tickets [${engine.name}]`, () => {
    let bench: ClientBench;
    let licenseKey: string;
    let release: Release;
    let bareRelease: Release;
    let svgRelease: Release;
    let pdfKey: Uint8Array;
    const svgKey = x25519.utils.randomSecretKey();

    const activate = async (device: Device, on: Release) => {
      const answer = await bench.activate(device, { licenseKey }, { clientInfo: buildOf(on) });
      expect(answer.status).toBe(200);
      return verifyAsClient(bench, answer.bytes, 'machine-credential');
    };
    const validate = async (device: Device, seat: Seat, on: Release, url = bench.url) => {
      const answer = await postCbor(url, '/v1/validate', await validateBody(device, seat, bench.productId, { clientInfo: buildOf(on) }));
      expect(answer.status).toBe(200);
      return verifyAsClient(bench, answer.bytes, 'validation-ticket');
    };
    const credentialArtifact = (payload: MachineCredential) => ({ kind: 'machine-credential' as const, productId: bench.productId, payload });
    const ticketArtifact = (payload: ValidationTicket) => ({ kind: 'validation-ticket' as const, productId: bench.productId, payload });

    beforeAll(async () => {
      bench = await openClientBench(engine);
      const admin = bench.admin;
      await seedCatalog(admin, admin.vendorA, [
        { kind: 'feature', id: 'export.pdf' },
        { kind: 'feature', id: 'export.svg' },
        { kind: 'feature', id: 'pro.model' },
        { kind: 'tier', id: 'basic', features: ['export.pdf', 'export.svg'] },
      ]);
      licenseKey = (await issueClientLicense(bench, { tier: 'basic', seats: 50 })).key;
      release = (await registerRelease(admin, releaseBody(admin.vendorA))).body.release;
      bareRelease = (await registerRelease(admin, releaseBody(admin.vendorA))).body.release;
      const generated = await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: release.release_id, feature_id: 'export.pdf' } });
      pdfKey = hexDecode(generated.body.key_hex);
      // Not entitled (pro.model), and entitled but on the other release only (export.svg).
      await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: release.release_id, feature_id: 'pro.model' } });
      svgRelease = (await registerRelease(admin, releaseBody(admin.vendorA))).body.release;
      await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: svgRelease.release_id, feature_id: 'export.svg', key_base64: Buffer.from(svgKey).toString('base64') } });
    }, 60_000);
    afterAll(() => bench?.close());

    it('activation carries the entitled features’ keys of the device’s release, which only that device unwraps', async () => {
      const device = kemDevice();
      const credential = await activate(device, release);
      expect(assetKeyFeatures(credentialArtifact(credential))).toEqual({ features: ['export.pdf'], releaseId: hexDecode(release.release_id) });
      expect(unwrapAssetKey(credentialArtifact(credential), 'export.pdf', device.kemSecret)).toEqual(pdfKey);
      expect(() => unwrapAssetKey(credentialArtifact(credential), 'export.pdf', kemDevice().kemSecret)).toThrow(/does not unwrap/);
      expect(() => unwrapAssetKey(credentialArtifact(credential), 'pro.model', device.kemSecret)).toThrow(/no asset key/);
      const tampered = structuredClone(credential);
      const ciphertext = (tampered.assetKeys?.keys[0] as { ciphertext: Uint8Array }).ciphertext;
      ciphertext[0] = (ciphertext[0] as number) ^ 1;
      expect(() => unwrapAssetKey(credentialArtifact(tampered), 'export.pdf', device.kemSecret)).toThrow(/does not unwrap/);

      // The vendor's pipeline seals an asset with the key; the device opens it with what it unwrapped.
      const asset = new TextEncoder().encode('a model only Pro devices may load');
      const sealed = sealAsset({ key: pdfKey, productId: bench.productId, releaseId: hexDecode(release.release_id), feature: 'export.pdf', asset });
      expect(readAssetHeader(sealed).feature).toBe('export.pdf');
      expect(openAsset(sealed, unwrapAssetKey(credentialArtifact(credential), 'export.pdf', device.kemSecret), { feature: 'export.pdf' })).toEqual(asset);
      expect(() => openAsset(sealed, pdfKey, { feature: 'export.svg' })).toThrow(/sealed for feature export.pdf/);
    });

    it('validation tickets carry the keys too, and a wrap moved into another artifact does not open', async () => {
      const device = kemDevice();
      const credential = await activate(device, release);
      const ticket = await validate(device, credential, release);
      expect(unwrapAssetKey(ticketArtifact(ticket), 'export.pdf', device.kemSecret)).toEqual(pdfKey);
      // The credential's wrap inside the ticket (or the ticket's inside a later ticket) is bound elsewhere.
      const moved: ValidationTicket = { ...ticket, assetKeys: credential.assetKeys as NonNullable<MachineCredential['assetKeys']> };
      expect(() => unwrapAssetKey(ticketArtifact(moved), 'export.pdf', device.kemSecret)).toThrow(/does not unwrap/);
      const later = await validate(device, credential, release);
      const replayed: ValidationTicket = { ...later, assetKeys: ticket.assetKeys as NonNullable<ValidationTicket['assetKeys']> };
      expect(() => unwrapAssetKey(ticketArtifact(replayed), 'export.pdf', device.kemSecret)).toThrow(/does not unwrap/);
      // Another device's wrap of the same key does not open with this device's key.
      const stranger = kemDevice();
      const strangerCredential = await activate(stranger, release);
      expect(() => unwrapAssetKey(credentialArtifact({ ...credential, assetKeys: strangerCredential.assetKeys as NonNullable<MachineCredential['assetKeys']> }), 'export.pdf', device.kemSecret)).toThrow(
        /does not unwrap/,
      );
    });

    it('carries the other release’s key on that release, none on a release without keys, and none to an unusable KEM key', async () => {
      const device = kemDevice();
      const onSvg = await activate(device, svgRelease);
      expect(assetKeyFeatures(credentialArtifact(onSvg)).features).toEqual(['export.svg']);
      expect(unwrapAssetKey(credentialArtifact(onSvg), 'export.svg', device.kemSecret)).toEqual(svgKey);
      // The same device later reports the release without keys: its tickets carry none.
      expect((await validate(device, onSvg, bareRelease)).assetKeys).toBeUndefined();
      const onBare = await activate(kemDevice(), bareRelease);
      expect(onBare.assetKeys).toBeUndefined();
      const lowOrder = { ...newDevice(), kemKey: new Uint8Array(32) };
      expect((await activate(lowOrder, release)).assetKeys).toBeUndefined();
    });

    it('offline credentials carry the keys', async () => {
      const device = kemDevice();
      const answer = await bench.offline(device, { licenseKey }, { clientInfo: buildOf(release) });
      expect(answer.status).toBe(200);
      const { credential } = verifyOfflineAnswer(bench, answer.bytes);
      expect(unwrapAssetKey(credentialArtifact(credential), 'export.pdf', device.kemSecret)).toEqual(pdfKey);
    });

    it('stops carrying a deleted key at the next validation', async () => {
      const admin = bench.admin;
      const fresh = (await registerRelease(admin, releaseBody(admin.vendorA))).body.release as Release;
      await admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: fresh.release_id, feature_id: 'export.pdf' } });
      const device = kemDevice();
      const credential = await activate(device, fresh);
      expect(assetKeyFeatures(ticketArtifact(await validate(device, credential, fresh))).features).toEqual(['export.pdf']);
      const second = engine.name === 'pglite' ? undefined : await startSecondInstance(bench);
      if (second !== undefined) expect((await validate(device, credential, fresh, second)).assetKeys).toBeDefined();
      const deleted = await admin.call('DELETE', `/asset-keks/${fresh.release_id}/export.pdf`, { query: { dry_run: 'false' }, key: freshKey() });
      expect(deleted.body.deleted).toBe(true);
      expect((await validate(device, credential, fresh)).assetKeys).toBeUndefined();
      if (second !== undefined) {
        // The other instance hears the commit on the release channel; poll until it has.
        let carried = true;
        for (let attempt = 0; attempt < 50 && carried; attempt += 1) {
          carried = (await validate(device, credential, fresh, second)).assetKeys !== undefined;
          if (carried) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(carried).toBe(false);
      }
    }, 60_000);
  });
}
