/**
 * Releases under contention, on the PostgreSQL server only (PGlite's single connection serialises
 * everything, so these would pass there without proving anything).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { createSqlReleaseGate } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { registerRelease, releaseBody } from './admin-releases-fixtures';
import { serverEngines } from '../helpers';

const server = serverEngines.find((engine) => engine.name !== 'pglite');
const confirm = { dry_run: 'false' };

describe.skipIf(server === undefined)('Admin releases under contention [postgres]', () => {
  let bench: AdminHarness;
  beforeAll(async () => {
    bench = await openAdminHarness(server as NonNullable<typeof server>);
  });
  afterAll(() => bench?.close());

  const floor = async () => (await bench.sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1', [bench.vendorA.productId])).rows[0]?.security_floor as number;

  it('registers 40 builds at once with distinct release and variant ids', async () => {
    const seed = releaseBody(bench.vendorA)['build_fingerprint'] as string;
    const bodies = Array.from({ length: 40 }, (_, n) => releaseBody(bench.vendorA, n % 2 === 0 ? {} : { variant_seed_hex: seed }));
    const answers = await Promise.all(bodies.map((body) => bench.call('POST', '/releases', { body, key: freshKey() })));
    expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 201));
    const releases = answers.map((answer) => answer.body.release);
    expect(new Set(releases.map((release) => release.release_id)).size).toBe(40);
    // Unseeded builds get variants of their own; builds of one seed share one.
    const unseeded = releases.filter((release) => !release.has_variant_seed).map((release) => release.variant_id);
    const seeded = releases.filter((release) => release.has_variant_seed).map((release) => release.variant_id);
    expect(new Set(unseeded).size).toBe(20);
    expect(new Set(seeded).size).toBe(1);
    expect(unseeded).not.toContain(seeded[0]);
  }, 60_000);

  it('registers one build sent 20 times at once exactly once', async () => {
    const body = releaseBody(bench.vendorA);
    const answers = await Promise.all(Array.from({ length: 20 }, () => bench.call('POST', '/releases', { body, key: freshKey() })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 200 && answer.body.already_registered === true)).toHaveLength(19);
    expect(new Set(answers.map((answer) => answer.body.release.release_id)).size).toBe(1);
    const { rows } = await bench.sql.query('SELECT release_id FROM license_releases WHERE build_fingerprint = $1', [body['build_fingerprint'] as string]);
    expect(rows).toHaveLength(1);
  }, 60_000);

  it('raises the security floor once for one compromise confirmed 10 times at once under different keys', async () => {
    const release = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release;
    const before = await floor();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'warn', bump_security_floor: true } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(answers.filter((answer) => answer.body.changed === true)).toHaveLength(1);
    expect(await floor()).toBe(before + 1);
  }, 60_000);

  it('settles racing deprecations and escalations on the strictest state without errors, and the gate sees it', async () => {
    const gate = createSqlReleaseGate(bench.sql);
    try {
      const releases = await Promise.all(Array.from({ length: 5 }, async () => (await registerRelease(bench, releaseBody(bench.vendorA))).body.release));
      const before = await floor();
      const requests = releases.flatMap((release) => [
        bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() }),
        bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'warn', bump_security_floor: true } }),
        bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'revoke', acknowledge_revoke: true, bump_security_floor: true } }),
        bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } }),
      ]);
      const answers = await Promise.all(requests);
      expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.text)).toEqual([]);
      for (const release of releases) {
        expect(await gate.judge({ productId: bench.vendorA.productId, releaseId: hexDecode(release.release_id) })).toMatchObject({ state: 'compromised', compromiseAction: 'revoke' });
      }
      // Each release's floor bump happened once per compromise that changed it and asked for one: the
      // warn (when it came before revoke) and the revoke (always a change, as nothing outranks it).
      const bumps = answers.filter((answer) => answer.body.changed === true && answer.body.security_floor !== undefined && answer.body.security_floor.current > answer.body.security_floor.previous);
      expect(await floor()).toBe(before + bumps.length);
      expect(bumps.length).toBeGreaterThanOrEqual(5);
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
    } finally {
      gate.close();
    }
  }, 60_000);
});
