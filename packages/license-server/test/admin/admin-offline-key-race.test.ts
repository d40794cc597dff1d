/**
 * Offline-key minting against a concurrent license revoke, on the PostgreSQL server (race cases: PGlite's
 * single connection would serialise them and prove nothing). A test transaction holds the vendor's audit
 * head, which both requests need last, so each request can be parked at a known point: the order of
 * events is forced, never left to timing.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { base64Decode } from '@tollgate/core/crypto';
import { verifyArtifact } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { currentKeyset, issueLicenses, seedPolicy } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

const releaseId = 'cd'.repeat(16);

for (const engine of serverEngines) {
  describe(`Admin offline keys against a concurrent revoke [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyId: string;
    beforeAll(async () => {
      if (engine.name === 'pglite') return;
      bench = await openAdminHarness(engine);
      policyId = await seedPolicy(bench, bench.vendorA);
    });
    afterAll(() => bench?.close());

    /** Holds vendor A's audit head row until `release()`: every confirmed mutation of the vendor stops at its audit append. */
    const holdAuditHead = async () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked: (pid: number) => void = () => undefined;
      const pid = new Promise<number>((resolve) => (locked = resolve));
      const done = bench.sql.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await tx.query('SELECT 1 FROM license_audit_heads WHERE vendor_id = $1 FOR UPDATE', [bench.vendorA.vendorId]);
        locked(Number(rows[0]?.pid));
        await held;
      });
      return {
        pid: await pid,
        release: async () => {
          release();
          await done;
        },
      };
    };

    /** Resolves once `count` backends wait, directly or behind one another, on the holder's locks. */
    const waitUntilBlocked = async (holderPid: number, count: number) => {
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const { rows } = await bench.sql.query<{ pid: number; blockers: string }>(
          "SELECT pid, array_to_string(pg_blocking_pids(pid), ',') AS blockers FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        );
        const blocked = new Set<number>([holderPid]);
        for (let grew = true; grew; ) {
          grew = false;
          for (const row of rows) {
            if (!blocked.has(Number(row.pid)) && row.blockers.split(',').some((blocker) => blocked.has(Number(blocker)))) {
              blocked.add(Number(row.pid));
              grew = true;
            }
          }
        }
        if (blocked.size - 1 >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`Fewer than ${count} requests ever waited on the held audit head.`);
    };

    const revoke = (licenseId: string, key = freshKey()) => bench.call('POST', `/licenses/${licenseId}/revoke`, { query: { dry_run: 'false' }, key, body: {} });
    const mint = (licenseId: string) => bench.call('POST', `/licenses/${licenseId}/offline-key`, { key: freshKey(), body: { release_id: releaseId } });

    raceCase('refuses a mint that reads the license while a revoke of it is uncommitted, once the revoke commits', () => ({ engine: engine.name }), async () => {
      const [license] = await issueLicenses(bench, policyId);
      const licenseId = (license as { license_id: string }).license_id;
      const holder = await holdAuditHead();
      // The revoke locks the license, publishes its batch, marks the license revoked, then waits to audit.
      const revoked = revoke(licenseId);
      await waitUntilBlocked(holder.pid, 1);
      // The mint starts while that revoke is uncommitted: it must not sign the license as still active.
      const minted = mint(licenseId);
      await waitUntilBlocked(holder.pid, 2);
      await holder.release();
      const [revokeAnswer, mintAnswer] = await Promise.all([revoked, minted]);
      expect(revokeAnswer.status).toBe(200);
      expect([mintAnswer.status, mintAnswer.body.error?.code]).toEqual([409, 'license_not_active']);
      const { rows } = await bench.sql.query("SELECT 1 FROM license_audit_events WHERE target_id = $1 AND action = 'license.offline_key'", [licenseId]);
      expect(rows).toEqual([]);
    });

    raceCase('lets a mint that took the license first finish wholly before the revoke', () => ({ engine: engine.name }), async () => {
      const [license] = await issueLicenses(bench, policyId);
      const licenseId = (license as { license_id: string }).license_id;
      const holder = await holdAuditHead();
      const minted = mint(licenseId);
      await waitUntilBlocked(holder.pid, 1);
      // The mint holds the license row until it commits: the revoke cannot slip in between its read of
      // the revocation epoch and its commit, so it is refused at once rather than queued behind.
      const key = freshKey();
      const early = await Promise.race([revoke(licenseId, key), waitUntilBlocked(holder.pid, 2).then(() => 'queued' as const)]);
      await holder.release();
      expect(early === 'queued' ? early : [early.status, early.body.error?.code]).toEqual([409, 'revocation_in_progress']);
      const mintAnswer = await minted;
      expect(mintAnswer.status).toBe(201);
      // Once the mint has committed, the same key revokes (a busy answer is never journaled).
      const revokeAnswer = await revoke(licenseId, key);
      expect(revokeAnswer.status).toBe(200);
      const bundle = mintAnswer.body.offline_key;
      const { payload } = verifyArtifact(base64Decode(bundle.envelope_base64), 'offline-key', {
        keys: await currentKeyset(bench),
        now: Math.floor(Date.now() / 1000),
        productId: bench.vendorA.productId,
      });
      expect(payload.revocationEpoch).toBeLessThan(revokeAnswer.body.revocation.seq);
    });
  });
}
