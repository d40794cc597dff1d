/**
 * `POST /v1/activate` over real HTTP on each engine: the signed machine credential (every field, checked
 * as the SDK checks it), account tokens and their device limit, seat reuse by fingerprint, and the
 * credential and version-scope refusals. Replays and proofs: client-activate-replay.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { freshKey } from '../admin/admin-harness';
import { currentKeyset, seedCatalog } from '../admin/admin-license-fixtures';
import { errorCode, expectClientError, issueClientLicense, newDevice, openClientBench, signedInAccount, verifyAsClient, type ClientBench } from './client-harness';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`POST /v1/activate [${engine.name}]`, () => {
    let bench: ClientBench;
    const activeMachines = async (licenseId: string) =>
      (
        await bench.admin.sql.query<{ machine_id: string }>("SELECT machine_id FROM license_machines WHERE license_id = $1 AND status = 'active' ORDER BY machine_id", [licenseId])
      ).rows.map((row) => row.machine_id);

    beforeAll(async () => {
      bench = await openClientBench(engine);
      await seedCatalog(bench.admin, bench.admin.vendorA, [
        { kind: 'feature', id: 'export' },
        { kind: 'feature', id: 'batch' },
        { kind: 'tier', id: 'pro', features: ['export', 'batch'] },
      ]);
    });
    afterAll(() => bench?.close());

    it('answers a license key with a signed MachineCredential whose every field is right', async () => {
      const expiresAt = new Date(Date.now() + 30 * 86_400_000);
      const license = await issueClientLicense(
        bench,
        {
          tier: 'pro',
          validation_interval_seconds: 3_600,
          validation_grace_seconds: 7_200,
        },
        { expires_at: expiresAt.toISOString() },
      );
      const device = newDevice();
      const nonce = randomBytes(32);
      const before = Math.floor(Date.now() / 1000);
      const answer = await bench.activate(device, { licenseKey: license.key }, { nonce });
      const after = Math.ceil(Date.now() / 1000);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/cbor');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');

      const credential = await verifyAsClient(bench, answer.bytes, 'machine-credential');
      const [machineId] = await activeMachines(license.licenseId);
      const keys = await currentKeyset(bench.admin);
      expect(credential).toEqual({
        protoVersion: 1,
        licenseId: hexDecode(license.licenseId),
        machineId: hexDecode(machineId as string),
        fingerprint: device.fingerprint,
        devicePublicKey: device.publicKey,
        nonceEcho: nonce,
        issuedAt: expect.any(Number),
        refreshAfter: credential.issuedAt + 3_600,
        graceSeconds: 7_200,
        expiresAt: Math.floor(expiresAt.getTime() / 1000),
        entitlements: {
          features: ['batch', 'export'],
          limits: new Map(),
          tier: 'pro',
          catalogVersion: expect.any(Number),
        },
        revocationEpoch: keys.revocationEpoch,
        securityFloor: 0,
        mode: 0,
      });
      expect(credential.issuedAt).toBeGreaterThanOrEqual(before);
      expect(credential.issuedAt).toBeLessThanOrEqual(after);

      // The machine row: keys as sent, the fingerprint only as a keyed hash, an audit event naming it.
      const { rows } = await bench.admin.sql.query<{
        fingerprint_hash: string;
        device_public_key: Uint8Array;
        device_kem_key: Uint8Array;
        app_version: string;
        platform: string;
        offline: boolean;
      }>('SELECT fingerprint_hash, device_public_key, device_kem_key, app_version, platform, offline FROM license_machines WHERE machine_id = $1', [machineId]);
      const row = rows[0]!;
      expect(new Uint8Array(row.device_public_key)).toEqual(device.publicKey);
      expect(new Uint8Array(row.device_kem_key)).toEqual(device.kemKey);
      expect(row).toMatchObject({
        app_version: '1.0.0',
        platform: 'linux-x64',
        offline: false,
      });
      expect(row.fingerprint_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.fingerprint_hash).not.toBe(hexEncode(device.fingerprint));
      const audit = await bench.admin.sql.query<{
        action: string;
        actor: string;
      }>("SELECT action, actor FROM license_audit_events WHERE target_type = 'machine' AND target_id = $1", [machineId]);
      expect(audit.rows).toEqual([{ action: 'machine.activate', actor: `device:${machineId}` }]);
    });

    it('issues an online-enforced credential (mode 1) when the policy has a heartbeat window, without expires_at for a perpetual license', async () => {
      const license = await issueClientLicense(bench, {
        heartbeat_window_seconds: 600,
      });
      const credential = await verifyAsClient(bench, (await bench.activate(newDevice(), { licenseKey: license.key })).bytes, 'machine-credential');
      expect(credential.mode).toBe(1);
      expect(credential.expiresAt).toBeUndefined();
      expect(credential.entitlements.tier).toBe('_none');
    });

    it('reuses the seat of a fingerprint that activates again (a reinstall with a new device key), taking no other seat', async () => {
      const license = await issueClientLicense(bench, { seats: 1 });
      const first = newDevice();
      const one = await verifyAsClient(bench, (await bench.activate(first, { licenseKey: license.key })).bytes, 'machine-credential');
      const reinstalled = newDevice(first.fingerprint);
      const again = await bench.activate(reinstalled, {
        licenseKey: license.key,
      });
      expect(again.status).toBe(200);
      const two = await verifyAsClient(bench, again.bytes, 'machine-credential');
      expect(two.machineId).toEqual(one.machineId);
      expect(two.devicePublicKey).toEqual(reinstalled.publicKey);
      expect(await activeMachines(license.licenseId)).toEqual([hexEncode(one.machineId)]);
      // The seat now belongs to the new key; another fingerprint finds the license full.
      const { rows } = await bench.admin.sql.query<{
        device_public_key: Uint8Array;
      }>('SELECT device_public_key FROM license_machines WHERE machine_id = $1', [hexEncode(one.machineId)]);
      expect(new Uint8Array(rows[0]!.device_public_key)).toEqual(reinstalled.publicKey);
      expectClientError(await bench.activate(newDevice(), { licenseKey: license.key }), 1001, 409);
      const actions = await bench.admin.sql.query<{ action: string }>("SELECT action FROM license_audit_events WHERE target_type = 'machine' AND target_id = $1 ORDER BY seq", [
        hexEncode(one.machineId),
      ]);
      expect(actions.rows.map((row) => row.action)).toEqual(['machine.activate', 'machine.reactivate']);
    });

    it('answers 1001 (409) when every seat is taken', async () => {
      const license = await issueClientLicense(bench, { seats: 2 });
      for (let n = 0; n < 2; n += 1) expect((await bench.activate(newDevice(), { licenseKey: license.key })).status).toBe(200);
      const refused = expectClientError(await bench.activate(newDevice(), { licenseKey: license.key }), 1001, 409);
      expect(refused.message).toMatch(/seat/);
      expect(await activeMachines(license.licenseId)).toHaveLength(2);
    });

    it('activates with an account access token and enforces the account device limit (1001), not counting a device that comes back', async () => {
      const account = await signedInAccount(bench, { maxDevices: 2 });
      const license = await issueClientLicense(bench, { seats: 10 }, { account_id: account.accountId });
      const devices = [newDevice(), newDevice()];
      const credentials = [];
      for (const device of devices) {
        const answer = await bench.activate(device, {
          accountToken: account.accessToken,
        });
        expect(answer.status, String(errorCode(answer))).toBe(200);
        credentials.push(await verifyAsClient(bench, answer.bytes, 'machine-credential'));
      }
      expect(credentials.map((credential) => hexEncode(credential.licenseId))).toEqual([license.licenseId, license.licenseId]);
      const limit = expectClientError(
        await bench.activate(newDevice(), {
          accountToken: account.accessToken,
        }),
        1001,
        409,
      );
      expect(limit.message).toMatch(/device limit/);
      // The first device again: its seat is reused, the limit does not stand in its way.
      const back = await bench.activate(newDevice(devices[0]!.fingerprint), {
        accountToken: account.accessToken,
      });
      expect(back.status).toBe(200);
      expect((await verifyAsClient(bench, back.bytes, 'machine-credential')).machineId).toEqual(credentials[0]!.machineId);
      const { rows } = await bench.admin.sql.query<{ account_id: string }>("SELECT account_id FROM license_machines WHERE license_id = $1 AND status = 'active'", [
        license.licenseId,
      ]);
      expect(rows.map((row) => row.account_id)).toEqual([account.accountId, account.accountId]);
    });

    it('answers 1003 (401) to an unknown or other-product account token, and 1000 to an account without a usable license', async () => {
      expectClientError(await bench.activate(newDevice(), { accountToken: randomBytes(32) }), 1003, 401);
      const account = await signedInAccount(bench);
      expectClientError(
        await bench.activate(newDevice(), {
          accountToken: account.accessToken,
        }),
        1000,
        403,
      );
    });

    it('refuses unknown keys (401), revoked and suspended licenses (403), all with the generic 1000', async () => {
      expectClientError(
        await bench.activate(newDevice(), {
          licenseKey: 'NOPE-NOPE-NOPE-NOPE',
        }),
        1000,
        401,
      );
      const suspended = await issueClientLicense(bench);
      await bench.admin.call('PATCH', `/licenses/${suspended.licenseId}`, {
        body: { status: 'suspended' },
        key: freshKey(),
      });
      expectClientError(await bench.activate(newDevice(), { licenseKey: suspended.key }), 1000, 403);
      const revoked = await issueClientLicense(bench);
      const revoke = await bench.admin.call('POST', `/licenses/${revoked.licenseId}/revoke`, { query: { dry_run: 'false' }, body: {}, key: freshKey() });
      expect(revoke.status).toBe(200);
      expectClientError(await bench.activate(newDevice(), { licenseKey: revoked.key }), 1000, 403);
      const expired = await issueClientLicense(bench, {}, { expires_at: new Date(Date.now() + 60_000).toISOString() });
      await bench.admin.call('PATCH', `/licenses/${expired.licenseId}`, {
        body: { expires_at: new Date(Date.now() - 1000).toISOString() },
        key: freshKey(),
      });
      expectClientError(await bench.activate(newDevice(), { licenseKey: expired.key }), 1000, 403);
    });

    it('refuses a key presented for another product with the same 1000 (401) as an unknown key', async () => {
      const license = await issueClientLicense(bench);
      const other = await bench.activate(newDevice(), { licenseKey: license.key }, { productId: bench.admin.vendorB.productId });
      expectClientError(other, 1000, 401);
    });

    it('answers 1008 (409) to an app version outside the version scope (policy or license override)', async () => {
      const scoped = await issueClientLicense(bench, {
        version_scope: { min: '2.0.0', max_exclusive: '3.0.0' },
      });
      const clientInfo = (appVersion: string) => ({
        appVersion,
        sdkVersion: '0.1.0',
        os: 'linux',
        arch: 'x64',
      });
      expectClientError(await bench.activate(newDevice(), { licenseKey: scoped.key }), 1008, 409);
      expectClientError(await bench.activate(newDevice(), { licenseKey: scoped.key }, { clientInfo: clientInfo('3.0.0') }), 1008, 409);
      expectClientError(await bench.activate(newDevice(), { licenseKey: scoped.key }, { clientInfo: clientInfo('not-semver') }), 1008, 409);
      expect((await bench.activate(newDevice(), { licenseKey: scoped.key }, { clientInfo: clientInfo('2.9.9') })).status).toBe(200);
      const overridden = await issueClientLicense(bench, {}, {});
      await bench.admin.call('PATCH', `/licenses/${overridden.licenseId}`, {
        body: { version_scope_override: { max_exclusive: '1.0.0' } },
        key: freshKey(),
      });
      expectClientError(await bench.activate(newDevice(), { licenseKey: overridden.key }), 1008, 409);
    });
  });
}
