/**
 * Release gating at activation, with releases registered and changed through the Admin API: an unknown
 * build of a product that registers releases is 1007 (the message says how to register it), a version
 * outside the policy's scope 1008 (the registered release's version counts, not the client's claim), a
 * release compromised with action `revoke` 1009; other states activate, with the product's security floor.
 * Each engine gets its own bench: registering a release gates the whole product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import type { ClientInfo } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { randomHex32, registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { defaultClientInfo, expectClientError, issueClientLicense, newDevice, openClientBench, verifyAsClient, type ClientBench } from './client-harness';
import { serverEngines } from '../helpers';

const confirm = { dry_run: 'false' };

for (const engine of serverEngines) {
  describe(`POST /v1/activate: release gating [${engine.name}]`, () => {
    let bench: ClientBench;
    let licenseKey: string;
    const register = async (fields: Record<string, unknown> = {}) => (await registerRelease(bench.admin, releaseBody(bench.admin.vendorA, fields))).body.release;
    const build = (release: { build_fingerprint: string; app_version: string }, extra: Partial<ClientInfo> = {}): ClientInfo => ({
      ...defaultClientInfo,
      appVersion: release.app_version,
      buildFingerprint: hexDecode(release.build_fingerprint),
      ...extra,
    });

    beforeAll(async () => {
      bench = await openClientBench(engine);
      licenseKey = (await issueClientLicense(bench, { seats: 100 })).key;
    });
    afterAll(() => bench?.close());

    it('activates any build while the product registers no release', async () => {
      const answer = await bench.activate(
        newDevice(),
        { licenseKey },
        {
          clientInfo: {
            ...defaultClientInfo,
            buildFingerprint: hexDecode(randomHex32()),
          },
        },
      );
      expect(answer.status).toBe(200);
    });

    it('answers an unregistered build 1007 (403) with a message that says how to register it, once the product registers releases', async () => {
      const release = await register({ app_version: '1.4.0' });
      for (const clientInfo of [
        { ...defaultClientInfo, buildFingerprint: hexDecode(randomHex32()) },
        defaultClientInfo,
        {
          ...defaultClientInfo,
          releaseId: hexDecode(randomHex32().slice(0, 32)),
        },
      ]) {
        const refused = expectClientError(await bench.activate(newDevice(), { licenseKey }, { clientInfo }), 1007, 403);
        expect(refused.message).toContain('POST /v1/admin/releases');
        expect(refused.message).toContain('build_fingerprint');
      }
      // The registered build activates, by fingerprint or by release id, and the machine records the release.
      const byFingerprint = await bench.activate(newDevice(), { licenseKey }, { clientInfo: build(release) });
      expect(byFingerprint.status).toBe(200);
      const credential = await verifyAsClient(bench, byFingerprint.bytes, 'machine-credential');
      const { rows } = await bench.admin.sql.query<{ release_id: string }>('SELECT release_id FROM license_machines WHERE machine_id = $1', [
        Buffer.from(credential.machineId).toString('hex'),
      ]);
      expect(rows[0]?.release_id).toBe(release.release_id);
      const byReleaseId = await bench.activate(
        newDevice(),
        { licenseKey },
        {
          clientInfo: {
            ...defaultClientInfo,
            releaseId: hexDecode(release.release_id),
          },
        },
      );
      expect(byReleaseId.status).toBe(200);
    });

    it("answers 1008 (409) when the registered release's version is outside the scope, whatever version the client claims", async () => {
      const release = await register({ app_version: '1.9.0' });
      const scoped = await issueClientLicense(bench, {
        version_scope: { min: '2.0.0' },
      });
      expectClientError(await bench.activate(newDevice(), { licenseKey: scoped.key }, { clientInfo: build(release, { appVersion: '2.5.0' }) }), 1008, 409);
      const inScope = await register({ app_version: '2.1.0' });
      expect((await bench.activate(newDevice(), { licenseKey: scoped.key }, { clientInfo: build(inScope, { appVersion: '0.0.1' }) })).status).toBe(200);
    });

    it('activates deprecated and warn/force_upgrade-compromised releases, refuses revoke-compromised ones with 1009 (403), and carries the security floor', async () => {
      const release = await register();
      const activate = () => bench.activate(newDevice(), { licenseKey }, { clientInfo: build(release) });
      expect((await bench.admin.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() })).status).toBe(200);
      expect((await activate()).status).toBe(200);
      const warned = await bench.admin.call('POST', `/releases/${release.release_id}/mark-compromised`, {
        query: confirm,
        key: freshKey(),
        body: { action: 'warn', bump_security_floor: true },
      });
      expect(warned.status).toBe(200);
      const { rows } = await bench.admin.sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1', [bench.productId]);
      const floor = Number(rows[0]!.security_floor);
      expect(floor).toBeGreaterThanOrEqual(1);
      const warnedAnswer = await activate();
      expect(warnedAnswer.status).toBe(200);
      expect((await verifyAsClient(bench, warnedAnswer.bytes, 'machine-credential')).securityFloor).toBe(floor);
      await bench.admin.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } });
      expect((await activate()).status).toBe(200);
      const revoked = await bench.admin.call('POST', `/releases/${release.release_id}/mark-compromised`, {
        query: confirm,
        key: freshKey(),
        body: { action: 'revoke', acknowledge_revoke: true },
      });
      expect(revoked.status).toBe(200);
      const refused = expectClientError(await activate(), 1009, 403);
      expect(refused.message).toMatch(/compromised/);
      // Another registered release of the product still activates, with the raised floor.
      const current = await register();
      const fresh = await bench.activate(newDevice(), { licenseKey }, { clientInfo: build(current) });
      expect((await verifyAsClient(bench, fresh.bytes, 'machine-credential')).securityFloor).toBe(floor);
    });
  });
}
