/**
 * The release gate the client protocol reads: its judgement of each state after Admin changes made
 * through HTTP, the security floor, and its cache (kept for its TTL, dropped on this instance's changes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, ManualClock } from '@tollgate/core';
import { createReleaseChanges, createSqlReleaseGate, type SqlReleaseGate } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { randomHex32, registerRelease, releaseBody } from './admin-releases-fixtures';
import { serverEngines } from '../helpers';

const confirm = { dry_run: 'false' };

for (const engine of serverEngines) {
  describe(`Release gate [${engine.name}]`, () => {
    let bench: AdminHarness;
    let gate: SqlReleaseGate;
    let clock: ManualClock;
    const register = async (fields: Record<string, unknown> = {}) => (await registerRelease(bench, releaseBody(bench.vendorA, fields))).body.release;
    const productId = () => bench.vendorA.productId;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      clock = new ManualClock(Date.now());
      gate = createSqlReleaseGate(bench.sql, { clock, cacheTtlMs: 2000 });
    });
    afterAll(async () => {
      gate?.close();
      await bench?.close();
    });

    it('does not gate a product without releases, nor an unknown product', async () => {
      expect(await gate.judge({ productId: productId(), buildFingerprint: hexDecode(randomHex32()) })).toEqual({ kind: 'unknown', gated: false });
      expect(await gate.judge({ productId: randomHex32().slice(0, 32), releaseId: hexDecode(randomHex32().slice(0, 32)) })).toEqual({ kind: 'unknown', gated: false });
      expect(await gate.securityFloor(randomHex32().slice(0, 32))).toBe(0);
    });

    it('judges a registered build by fingerprint or release id, and gates the product from its first release on', async () => {
      const release = await register({ app_version: '3.1.4', channel: 'beta' });
      const expected = {
        kind: 'known',
        releaseId: release.release_id,
        variantId: release.variant_id,
        appVersion: '3.1.4',
        channel: 'beta',
        state: 'registered',
        compromiseAction: null,
        releaseStatus: 0,
        forceUpgrade: false,
        securityFloor: await gate.securityFloor(productId()),
      };
      expect(await gate.judge({ productId: productId(), buildFingerprint: hexDecode(release.build_fingerprint) })).toEqual(expected);
      expect(await gate.judge({ productId: productId(), releaseId: hexDecode(release.release_id) })).toEqual(expected);
      expect(await gate.judge({ productId: productId(), releaseId: hexDecode(release.release_id), buildFingerprint: hexDecode(release.build_fingerprint) })).toEqual(expected);
      // The release id wins, and a fingerprint that disagrees with it makes the build unknown.
      expect(await gate.judge({ productId: productId(), releaseId: hexDecode(release.release_id), buildFingerprint: hexDecode(randomHex32()) })).toEqual({ kind: 'unknown', gated: true });
      expect(await gate.judge({ productId: productId(), buildFingerprint: hexDecode(randomHex32()) })).toEqual({ kind: 'unknown', gated: true });
      expect(await gate.judge({ productId: productId() })).toEqual({ kind: 'unknown', gated: true });
      // Another product's release is not this product's.
      const foreign = (await registerRelease(bench, releaseBody(bench.vendorB), bench.vendorB.token)).body.release;
      expect(await gate.judge({ productId: productId(), releaseId: hexDecode(foreign.release_id) })).toEqual({ kind: 'unknown', gated: true });
    });

    it('reflects each state at once after the Admin change, with the floor it raised', async () => {
      const release = await register();
      const byFingerprint = { productId: productId(), buildFingerprint: hexDecode(release.build_fingerprint) };
      const judge = () => gate.judge(byFingerprint);
      expect(await judge()).toMatchObject({ state: 'registered', releaseStatus: 0 });

      await bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() });
      expect(await judge()).toMatchObject({ state: 'deprecated', releaseStatus: 1, compromiseAction: null, forceUpgrade: false });

      const floorBefore = await gate.securityFloor(productId());
      await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'warn', bump_security_floor: true } });
      expect(await judge()).toMatchObject({ state: 'compromised', releaseStatus: 2, compromiseAction: 'warn', forceUpgrade: false, securityFloor: floorBefore + 1 });
      expect(await gate.securityFloor(productId())).toBe(floorBefore + 1);

      await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } });
      expect(await judge()).toMatchObject({ state: 'compromised', compromiseAction: 'force_upgrade', forceUpgrade: true, securityFloor: floorBefore + 1 });

      await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'revoke', acknowledge_revoke: true, bump_security_floor: true } });
      expect(await judge()).toMatchObject({ state: 'compromised', compromiseAction: 'revoke', forceUpgrade: false, releaseStatus: 2, securityFloor: floorBefore + 2 });
    });

    it('serves cached answers until the TTL passes when the registry changes behind its back', async () => {
      const release = await register();
      // A gate of "another instance": its own channel, so no notice of this instance reaches it (not even a
      // late after-commit notice of the registration above).
      const elsewhere = createSqlReleaseGate(bench.sql, { clock, cacheTtlMs: 2000, changes: { subscribe: () => () => undefined, publish: () => undefined } });
      const lookup = { productId: productId(), releaseId: hexDecode(release.release_id) };
      expect(await elsewhere.judge(lookup)).toMatchObject({ state: 'registered' });
      const floor = await elsewhere.securityFloor(productId());
      await bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() });
      await bench.sql.query('UPDATE license_products SET security_floor = security_floor + 1 WHERE product_id = $1', [productId()]);
      expect(await elsewhere.judge(lookup)).toMatchObject({ state: 'registered', securityFloor: floor });
      expect(await elsewhere.securityFloor(productId())).toBe(floor);
      clock.advance(1999);
      expect(await elsewhere.judge(lookup)).toMatchObject({ state: 'registered' });
      clock.advance(1);
      expect(await elsewhere.judge(lookup)).toMatchObject({ state: 'deprecated', securityFloor: floor + 1 });
      expect(await elsewhere.securityFloor(productId())).toBe(floor + 1);

      const uncached = createSqlReleaseGate(bench.sql, { cacheTtlMs: 0 });
      try {
        expect(await uncached.judge(lookup)).toMatchObject({ state: 'deprecated' });
        await bench.sql.query("UPDATE license_releases SET state = 'compromised', compromise_action = 'warn', compromised_at = now() WHERE release_id = $1", [release.release_id]);
        expect(await uncached.judge(lookup)).toMatchObject({ state: 'compromised' });
      } finally {
        uncached.close();
      }
    });

    it('drops a cached unknown build once it is registered on this instance', async () => {
      const fingerprint = randomHex32();
      const lookup = { productId: productId(), buildFingerprint: hexDecode(fingerprint) };
      expect(await gate.judge(lookup)).toEqual({ kind: 'unknown', gated: true });
      await register({ build_fingerprint: fingerprint });
      expect(await gate.judge(lookup)).toMatchObject({ kind: 'known', state: 'registered' });
    });

    it('stops listening once closed', async () => {
      // A channel of its own: the server's relay of PostgreSQL notices (which may arrive late, while the
      // first read is under way) reaches only the shared channel, so this gate's cache changes only on
      // what the test publishes.
      const changes = createReleaseChanges();
      const closed = createSqlReleaseGate(bench.sql, { clock, changes });
      const release = await register();
      const lookup = { productId: productId(), releaseId: hexDecode(release.release_id) };
      expect(await closed.judge(lookup)).toMatchObject({ state: 'registered' });
      closed.close();
      await bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() });
      changes.publish(productId());
      changes.publish(undefined);
      expect(await closed.judge(lookup)).toMatchObject({ state: 'registered' });
      expect(await gate.judge(lookup)).toMatchObject({ state: 'deprecated' });
    });
  });
}
