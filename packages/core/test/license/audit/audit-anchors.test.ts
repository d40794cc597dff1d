import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type Signer } from '@tollgate/core';
import {
  TrustChainError,
  anchorAuditHeads,
  auditChainLink,
  auditEventHash,
  auditSummaryJson,
  createSqlAuditLog,
  encodeKeyset,
  inspectArtifact,
  licenseClockSkewSeconds,
  listAuditAnchors,
  signArtifact,
  verifyAuditAnchor,
  verifyKeyset,
  type AuditEvent,
  type AuditLog,
  type VerifyAuditAnchorOptions,
} from '@tollgate/core/license';
import { testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { epochCertificateFor, samplePayloads, vectorEpochs, vectorNow, vectorPins, vectorRoots } from '../../vectors/license-fixtures';
import { createTestVendor, tamper } from './audit-test-helpers';
import { openLicenseTestDatabase, storeFixtureEpoch } from '../license-test-database';

const { global, acme, unlisted, expired, successor } = vectorEpochs;
const day = 86_400;

async function keysetOf(...certificates: Uint8Array[]): Promise<Uint8Array> {
  return encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 0 });
}

for (const engine of await testDatabaseEngines()) {
  describe(`Audit anchors [${engine.name}]`, () => {
    let database: TestDatabase;
    let audit: AuditLog;
    let clock: ManualClock;
    let pinnedKeyset: Uint8Array;
    beforeAll(async () => {
      database = await openLicenseTestDatabase(engine);
      audit = createSqlAuditLog(database.sql);
      pinnedKeyset = await keysetOf(await epochCertificateFor(global));
    });
    afterAll(() => database.close());
    beforeEach(async () => {
      await database.reset();
      await storeFixtureEpoch(database.sql, global);
      clock = new ManualClock(vectorNow * 1000);
    });

    const appendEvents = async (vendorId: string, count: number): Promise<void> => {
      for (let n = 0; n < count; n += 1) {
        await database.sql.transaction((tx) =>
          audit.append(tx, { vendorId, actor: 'ab'.repeat(16), action: 'license.patch', targetType: 'license', targetId: `lic-${n}`, summary: { n, license_key: 'K-secret' } }, clock.now() + n),
        );
      }
    };
    const allEvents = async (vendorId: string): Promise<AuditEvent[]> => (await audit.list(vendorId, { limit: 200 })).events;
    const anchorWith = (signer: Signer = global.signer) => anchorAuditHeads(database.sql, signer, { clock });
    const verifyOptions = (vendorId: string, events: AuditEvent[], overrides: Partial<VerifyAuditAnchorOptions> = {}): VerifyAuditAnchorOptions => ({
      trust: { keyset: pinnedKeyset, pinnedRoots: vectorPins },
      events,
      now: vectorNow,
      vendorId,
      ...overrides,
    });

    it('anchors every vendor whose head moved, once per head', async () => {
      const [a, b, idle] = [await createTestVendor(database.sql), await createTestVendor(database.sql), await createTestVendor(database.sql)];
      await appendEvents(a, 3);
      await appendEvents(b, 2);
      const first = await anchorWith();
      const heads = { [a]: (await allEvents(a))[0]?.hash, [b]: (await allEvents(b))[0]?.hash };
      expect(first.map(({ vendorId, seq, head, anchoredAt }) => ({ vendorId, seq, head, anchoredAt })).sort((x, y) => x.seq - y.seq)).toEqual([
        { vendorId: b, seq: 2, head: heads[b], anchoredAt: vectorNow },
        { vendorId: a, seq: 3, head: heads[a], anchoredAt: vectorNow },
      ]);
      for (const anchor of first) expect(inspectArtifact(anchor.envelope)).toMatchObject({ kind: 'audit-anchor', kidHex: global.epochIdHex });
      clock.advance(3_600_000);
      expect(await anchorWith()).toEqual([]);
      expect(await listAuditAnchors(database.sql, a, 10)).toHaveLength(1);
      await appendEvents(a, 1);
      expect((await anchorWith()).map(({ vendorId, seq }) => ({ vendorId, seq }))).toEqual([{ vendorId: a, seq: 4 }]);
      expect((await listAuditAnchors(database.sql, a, 10)).map((anchor) => anchor.seq)).toEqual([4, 3]);
      expect((await listAuditAnchors(database.sql, a, 1)).map((anchor) => anchor.seq)).toEqual([4]);
      expect(await listAuditAnchors(database.sql, idle, 10)).toEqual([]);
      expect(await listAuditAnchors(database.sql, 'not-a-vendor', 10)).toEqual([]);
      await expect(listAuditAnchors(database.sql, a, 0)).rejects.toThrow(TypeError);
    });

    it('lets a third party holding the pinned root prove the anchored events, even after the epoch expired', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 4);
      const [anchor] = await anchorWith();
      await appendEvents(vendorId, 2);
      const events = await allEvents(vendorId);
      const result = verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, events));
      expect(result).toMatchObject({ verified: true, anchor: { vendorId, seq: 4, head: events.find((event) => event.seq === 4)?.hash, anchoredAt: vectorNow }, epoch: { epochIdHex: global.epochIdHex } });
      const later = global.notAfter + 30 * day;
      const keys = verifyKeyset(pinnedKeyset, vectorPins, later);
      expect(keys.expiredEpochs.has(global.epochIdHex)).toBe(true);
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, events, { trust: { keys }, now: later })).verified).toBe(true);
    });

    it('detects an anchored event rewritten afterwards, even when the database chain was re-hashed', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 3);
      const [anchor] = await anchorWith();
      await appendEvents(vendorId, 2);
      const original = (await allEvents(vendorId)).sort((x, y) => x.seq - y.seq);
      // Rewrite event 2 and re-hash everything after it, head included: the database check still passes.
      let prevHash = original[0]?.hash as string;
      for (const event of original.slice(1)) {
        const summary = event.seq === 2 ? { ...event.summary, n: 42 } : event.summary;
        const hash = auditEventHash({ ...auditChainLink({ ...event, summary }), prevHash });
        await tamper(database.sql, `UPDATE license_audit_events SET summary = $3, prev_hash = decode($4, 'hex'), hash = decode($5, 'hex') WHERE vendor_id = $1 AND seq = $2`, [
          vendorId,
          event.seq,
          auditSummaryJson(summary),
          prevHash,
          hash,
        ]);
        prevHash = hash;
      }
      await tamper(database.sql, `UPDATE license_audit_heads SET hash = decode($2, 'hex') WHERE vendor_id = $1`, [vendorId, prevHash]);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: true, event_count: 5 });
      const rewritten = await allEvents(vendorId);
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, rewritten))).toMatchObject({ verified: false, reason: 'chain_mismatch', firstBroken: 3 });
      // Changed without re-hashing, the rewritten event itself is named; a missing one likewise.
      const edited = original.map((event) => (event.seq === 2 ? { ...event, actor: 'mallory' } : event));
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, edited))).toMatchObject({ reason: 'chain_mismatch', firstBroken: 2 });
      const missing = original.filter((event) => event.seq !== 1);
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, missing))).toMatchObject({ reason: 'chain_mismatch', firstBroken: 1 });
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, original)).verified).toBe(true);
    });

    it('refuses an anchor signed by an epoch of an unpinned root', async () => {
      const unpinnedCertificate = await epochCertificateFor(unlisted, vectorRoots.unpinned);
      await storeFixtureEpoch(database.sql, unlisted, { certificate: unpinnedCertificate });
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 2);
      const [anchor] = await anchorWith(unlisted.signer);
      const events = await allEvents(vendorId);
      const onlyUnpinned = verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, events, { trust: { keyset: await keysetOf(unpinnedCertificate), pinnedRoots: vectorPins } }));
      expect(onlyUnpinned).toMatchObject({ verified: false, reason: 'untrusted_anchor', error: { reason: 'unpinned_root' } });
      const mixed = await keysetOf(await epochCertificateFor(global), unpinnedCertificate);
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, events, { trust: { keyset: mixed, pinnedRoots: vectorPins } }))).toMatchObject({
        reason: 'untrusted_anchor',
        error: { reason: 'unknown_key' },
      });
      // The same anchor verifies for someone who pins that root: only the pins decide.
      expect(verifyAuditAnchor(anchor?.envelope as Uint8Array, verifyOptions(vendorId, events, { trust: { keyset: mixed, pinnedRoots: [vectorRoots.unpinned.publicKey] } })).verified).toBe(true);
    });

    it('refuses forged, misdated, revoked, foreign and other-kind envelopes', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 2);
      const [anchor] = await anchorWith();
      const envelope = anchor?.envelope as Uint8Array;
      const events = await allEvents(vendorId);
      const reasonOf = (bytes: Uint8Array, overrides: Partial<VerifyAuditAnchorOptions> = {}) => {
        const result = verifyAuditAnchor(bytes, verifyOptions(vendorId, events, overrides));
        return result.verified ? 'verified' : result.reason === 'untrusted_anchor' ? result.error.reason : result.reason;
      };
      const forged = envelope.slice();
      forged[forged.length - 1] = (forged[forged.length - 1] as number) ^ 1;
      expect(reasonOf(forged)).toBe('bad_signature');
      expect(reasonOf(envelope, { now: vectorNow - licenseClockSkewSeconds - 1 })).toBe('invalid_payload');
      expect(reasonOf(envelope, { now: vectorNow - licenseClockSkewSeconds })).toBe('verified');
      expect(reasonOf(envelope, { revokedEpochIds: new Set([global.epochIdHex]) })).toBe('revoked_epoch');
      expect(reasonOf(envelope, { vendorId: 'ef'.repeat(16) })).toBe('wrong_vendor');
      const batch = await signArtifact('revocation-batch', (await samplePayloads())['revocation-batch'], { signer: global.signer });
      expect(reasonOf(batch)).toBe('wrong_kind');
      const dated = await signArtifact('audit-anchor', { protoVersion: 1, vendorId: new Uint8Array(16), seq: 1, head: new Uint8Array(32), anchoredAt: global.notAfter + 1 }, { signer: global.signer });
      expect(reasonOf(dated, { now: global.notAfter + 10, vendorId: '00'.repeat(16) })).toBe('expired_epoch');
    });

    it('stores nothing when the signer is not an active global epoch valid now', async () => {
      const vendorId = await createTestVendor(database.sql);
      await appendEvents(vendorId, 1);
      await storeFixtureEpoch(database.sql, acme);
      await storeFixtureEpoch(database.sql, expired);
      const problemOf = async (signer: Signer) => {
        try {
          await anchorWith(signer);
          return 'anchored';
        } catch (error) {
          if (!(error instanceof TrustChainError) || error.code !== 'invalid_signer') throw error;
          return error.details['problem'];
        }
      };
      expect(await problemOf(acme.signer)).toBe('product_scoped');
      expect(await problemOf(expired.signer)).toBe('outside_window');
      expect(await problemOf(successor.signer)).toBe('unknown_epoch');
      expect(await listAuditAnchors(database.sql, vendorId, 10)).toEqual([]);
    });
  });
}
