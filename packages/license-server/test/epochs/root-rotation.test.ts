/**
 * Root rotation end to end: epochs of the old root sign revocation batches, the next root certifies a
 * successor, a client of the new generation (pinning only the new root) cannot replay the feed from
 * since=0 until the new root carries the old root's epochs over, and after the old root is removed from
 * LICENSE_ROOT_PUBLIC_KEYS a fresh client still replays every batch through the SDK's follower.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { rootKeyIdHex, type RevocationBatch } from '@tollgate/core/license';
import { createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
import { createEpochRequest } from '../../src/ceremony/ceremony';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { openEpochBench, rootPublicHex, signRequest, type EpochBench } from './epoch-bench';

/** A fresh client pinning `pins` that follows the feed from since=0; returns what it applied. */
async function replayFromZero(url: string, pins: readonly string[]): Promise<{ batches: RevocationBatch[]; revoked: string[] }> {
  const keysets = createKeysetFetcher({ baseUrl: url, pinnedRoots: pins });
  const follower = createRevocationFollower({ baseUrl: url, keys: () => keysets.get() });
  follower.observe((await keysets.get()).revocationEpoch);
  const batches = await follower.sync();
  return { batches, revoked: follower.state().revokedEpochIds };
}

for (const engine of serverEngines) {
  describe(`Root rotation and feed replay [${engine.name}]`, () => {
    const oldRoot = randomBytes(32);
    const newRoot = randomBytes(32);
    const nextRoot = randomBytes(32);
    const masterKeyHex = hexEncode(randomBytes(32));
    let bench: EpochBench;
    let oldEpoch: string;

    beforeAll(async () => {
      bench = await openEpochBench(engine, { env: { LICENSE_ROOT_PUBLIC_KEYS: `${rootPublicHex(oldRoot)},${rootPublicHex(newRoot)}`, LICENSE_MASTER_KEY: masterKeyHex } });
    }, 60_000);
    afterAll(() => bench?.close());

    it('keeps the old root’s batches verifiable for a client pinning only the new root once they are carried over', async () => {
      const trust = bench.server.context.trust;
      oldEpoch = await bench.activeEpoch({ rootSeed: oldRoot });
      await trust.refresh();
      // Batches signed by the old root's epoch.
      await trust.publishRevocation({ licenseIds: [randomBytes(16)] });
      await trust.publishRevocation({ machineIds: [randomBytes(16)] });
      // The next root certifies the successor, then two actors revoke the old epoch.
      const successor = await bench.activeEpoch({ rootSeed: newRoot });
      await trust.refresh();
      const second = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
      for (const token of [bench.vendorA.token, second]) {
        const answer = await bench.call('POST', `/epochs/${oldEpoch}/revoke`, { token, query: { dry_run: 'false' }, key: freshKey(), body: { confirm_epoch_id: oldEpoch } });
        expect(answer.status).toBeLessThan(300);
      }
      await trust.refresh();

      // Today's clients pin old and new: they replay everything.
      const current = await replayFromZero(bench.url, [rootPublicHex(oldRoot), rootPublicHex(newRoot)]);
      expect(current.batches).toHaveLength(3);
      // A client of the next generation pins new and next: the old root's epoch is not trusted yet.
      await expect(replayFromZero(bench.url, [rootPublicHex(newRoot), rootPublicHex(nextRoot)])).rejects.toMatchObject({ reason: 'unknown_key' });

      // Rotation: the new root certifies the old root's epoch (same key, window and scope).
      const detail = await bench.call('GET', `/epochs/${oldEpoch}`);
      const carried = await bench.call('POST', '/epochs', {
        key: freshKey(),
        body: { certificate_hex: await signRequest(Buffer.from(detail.body.epoch.certificate_request_hex, 'hex'), newRoot), root_verifying_key_hex: rootPublicHex(newRoot) },
      });
      expect(carried.status).toBe(200);
      expect(carried.body.outcome).toBe('carried_over');
      expect(carried.body.epoch.certified_by).toEqual([
        { root_key_id: rootKeyIdHex(Buffer.from(rootPublicHex(oldRoot), 'hex')), carried_over: false },
        { root_key_id: rootKeyIdHex(Buffer.from(rootPublicHex(newRoot), 'hex')), carried_over: true },
      ]);
      await trust.refresh();
      const next = await replayFromZero(bench.url, [rootPublicHex(newRoot), rootPublicHex(nextRoot)]);
      expect(next.batches.map((batch) => batch.seq)).toEqual([1, 2, 3]);
      expect(next.revoked).toEqual([oldEpoch]);
      expect((await replayFromZero(bench.url, [rootPublicHex(oldRoot), rootPublicHex(newRoot)])).batches).toHaveLength(3);
      expect(successor).not.toBe(oldEpoch);
    });

    it('still serves the old root’s epochs after the old root leaves LICENSE_ROOT_PUBLIC_KEYS', async () => {
      await bench.server.close();
      const restarted = await bench.sandbox.start({ LICENSE_ROOT_PUBLIC_KEYS: rootPublicHex(newRoot), LICENSE_MASTER_KEY: masterKeyHex, LICENSE_RATE_LIMIT_PER_ADDRESS: 'off' });
      expect(restarted.context.trust.keyset()?.skipped).toEqual([]);
      expect(restarted.context.trust.keyset()?.epochIds).toContain(oldEpoch);
      const fresh = await replayFromZero(restarted.url, [rootPublicHex(newRoot)]);
      expect(fresh.batches.map((batch) => batch.seq)).toEqual([1, 2, 3]);
      expect(fresh.revoked).toEqual([oldEpoch]);
      // The retired root can no longer load anything.
      const { request } = await createEpochRequest(restarted.context.sql, { masterKey: bench.masterKey, days: 30 });
      const refused = await fetch(new URL('/v1/admin/epochs', restarted.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${bench.vendorA.token}`, 'content-type': 'application/json', 'idempotency-key': freshKey() },
        body: JSON.stringify({ certificate_hex: await signRequest(request, oldRoot), root_verifying_key_hex: rootPublicHex(oldRoot) }),
      });
      expect(refused.status).toBe(400);
    });
  });
}
