/**
 * Release changes reach the release gates of other instances through PostgreSQL notices (license
 * migration 009's triggers, channel `tollgate_license_releases`), on the PostgreSQL server only: PGlite
 * serves one process, whose own changes already reach its gates in-process.
 *
 * "Another instance" is a gate with its own change channel (nothing this instance announces in-process
 * reaches it) fed only by a LISTEN connection, relayed the way the server relays notices; its clock never
 * moves, so only a notice can make it see a change.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, ManualClock } from '@tollgate/core';
import { applyReleaseChangeNotice, createReleaseChanges, createSqlReleaseGate, releaseChangeChannel, type ReleaseChanges, type SqlReleaseGate } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { registerRelease, releaseBody } from './admin-releases-fixtures';
import { serverEngines } from '../helpers';

const server = serverEngines.find((engine) => engine.name !== 'pglite');
const confirm = { dry_run: 'false' };

/** A LISTEN connection relaying notices onto `changes`, remembering them in arrival order. */
async function openRelay(connectionString: string, changes: ReleaseChanges) {
  const client = new pg.Client({ connectionString });
  const heard: string[] = [];
  const waiters: { payload: string; resolve: () => void }[] = [];
  client.on('notification', (message) => {
    if (message.channel !== releaseChangeChannel) return;
    const payload = message.payload ?? '';
    applyReleaseChangeNotice(changes, payload);
    heard.push(payload);
    for (const waiter of waiters.filter((w) => w.payload === payload)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  await client.connect();
  await client.query(`LISTEN ${releaseChangeChannel}`);
  return {
    heard,
    /** Resolves on the next notice for `payload` (the test's own timeout is the hang guard). */
    next: (payload: string) => new Promise<void>((resolve) => waiters.push({ payload, resolve })),
    close: () => client.end(),
  };
}

describe.skipIf(server === undefined)('Release changes across instances [postgres]', () => {
  let bench: AdminHarness;
  let relay: Awaited<ReturnType<typeof openRelay>>;
  let elsewhere: SqlReleaseGate;
  const clock = new ManualClock(Date.now());
  const productA = () => bench.vendorA.productId;
  const productB = () => bench.vendorB.productId;

  beforeAll(async () => {
    bench = await openAdminHarness(server as NonNullable<typeof server>);
    const changes = createReleaseChanges();
    elsewhere = createSqlReleaseGate(bench.sql, { clock, cacheTtlMs: 60_000, changes });
    relay = await openRelay(bench.sandbox.env['LICENSE_DATABASE_URL'] as string, changes);
  });
  afterAll(async () => {
    elsewhere?.close();
    await relay?.close();
    await bench?.close();
  });

  /** Registers a build of vendor B and waits for its notice: every notice committed before it has arrived. */
  const barrier = async () => {
    const heard = relay.next(productB());
    await registerRelease(bench, releaseBody(bench.vendorB), bench.vendorB.token);
    await heard;
  };

  it('makes every confirmed change visible to another instance at commit, without waiting for its TTL', async () => {
    const fingerprint = releaseBody(bench.vendorA)['build_fingerprint'] as string;
    const byFingerprint = { productId: productA(), buildFingerprint: hexDecode(fingerprint) };
    expect(await elsewhere.judge(byFingerprint)).toMatchObject({ kind: 'unknown' });

    let heard = relay.next(productA());
    const release = (await registerRelease(bench, releaseBody(bench.vendorA, { build_fingerprint: fingerprint }))).body.release;
    await heard;
    expect(await elsewhere.judge(byFingerprint)).toMatchObject({ kind: 'known', state: 'registered' });

    heard = relay.next(productA());
    await bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() });
    await heard;
    expect(await elsewhere.judge(byFingerprint)).toMatchObject({ state: 'deprecated', releaseStatus: 1 });

    const floor = await elsewhere.securityFloor(productA());
    heard = relay.next(productA());
    await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'revoke', acknowledge_revoke: true, bump_security_floor: true } });
    await heard;
    expect(await elsewhere.judge(byFingerprint)).toMatchObject({ state: 'compromised', compromiseAction: 'revoke', securityFloor: floor + 1 });
    expect(await elsewhere.securityFloor(productA())).toBe(floor + 1);
  });

  it('sends nothing for dry runs, refused confirmations and changes that change nothing', async () => {
    const release = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release;
    await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } });
    await barrier();
    const before = relay.heard.length;
    await bench.call('POST', `/releases/${release.release_id}/deprecate`);
    await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { body: { action: 'revoke', bump_security_floor: true } });
    // Refused (no acknowledgement): the transaction rolls back, and a NOTIFY only leaves with a commit.
    const refused = await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'revoke', bump_security_floor: true } });
    expect(refused.status).toBe(400);
    // Confirmed but changing nothing: a compromise is never lowered, and a compromised release is not deprecated.
    const lowered = await bench.call('POST', `/releases/${release.release_id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'warn', bump_security_floor: true } });
    expect(lowered.body.changed).toBe(false);
    await barrier();
    expect(relay.heard.slice(before)).toEqual([productB()]);
  });

  it('hears a security floor raised by any statement, and forgets every product when notices may have been lost', async () => {
    const release = (await registerRelease(bench, releaseBody(bench.vendorA))).body.release;
    const lookup = { productId: productA(), releaseId: hexDecode(release.release_id) };
    await barrier();
    const floor = (await elsewhere.judge(lookup)).kind === 'known' ? await elsewhere.securityFloor(productA()) : -1;
    const heard = relay.next(productA());
    await bench.sql.query('UPDATE license_products SET security_floor = security_floor + 1 WHERE product_id = $1', [productA()]);
    await heard;
    expect(await elsewhere.securityFloor(productA())).toBe(floor + 1);

    // A gate that missed a notice (its connection was down) is told "reconnected": every product is dropped.
    const missed = createReleaseChanges();
    const deaf = createSqlReleaseGate(bench.sql, { clock, cacheTtlMs: 60_000, changes: missed });
    try {
      expect(await deaf.judge(lookup)).toMatchObject({ state: 'registered' });
      await bench.call('POST', `/releases/${release.release_id}/deprecate`, { query: confirm, key: freshKey() });
      expect(await deaf.judge(lookup)).toMatchObject({ state: 'registered' });
      applyReleaseChangeNotice(missed, productB());
      expect(await deaf.judge(lookup)).toMatchObject({ state: 'registered' });
      applyReleaseChangeNotice(missed, 'reconnected');
      expect(await deaf.judge(lookup)).toMatchObject({ state: 'deprecated' });
    } finally {
      deaf.close();
    }
  });
});
