/**
 * Trust chain hardening in storage (issue #13): revocation batches are dated forward only, sealed keys
 * of revoked and expired epochs are wiped for good, legacy sealed keys are re-sealed in the versioned
 * form, and a faulty signer publishes nothing. PGlite and, with TOLLGATE_TEST_DATABASE_URL, PostgreSQL.
 */
import { expect, it } from 'vitest';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ManualClock, type Signer, type SqlClient } from '@tollgate/core';
import {
  TrustChainError,
  activateEpochCertificate,
  listEpochs,
  loadEpochSigningKeys,
  publishRevocationBatch,
  readRevocationHead,
  readRevocationPage,
  sealEpochPrivateKey,
  verifyArtifact,
} from '@tollgate/core/license';
import { describeConformance, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { wipeRetiredEpochKeys } from '../../../src/license/storage/epoch-store';
import { epochCertificateFor, vectorBytes, vectorEpochs, vectorNow, vectorPins } from '../../vectors/license-fixtures';
import { openLicenseTestDatabase, storeFixtureEpoch, testMasterKey } from '../license-test-database';

const { global, unlisted, expired } = vectorEpochs;
const licenseId = (n: number) => vectorBytes(`hardening-license-${n}`, 16);
const keys = { epochs: new Map([global, unlisted].map((epoch) => [epoch.epochIdHex, epoch])) };

interface Fixture extends TestDatabase {
  second: SqlClient;
}

async function sealedKeyOf(sql: SqlClient, epochId: Uint8Array): Promise<{ sealed: Uint8Array | null; wipedAt: Date | null } | undefined> {
  const { rows } = await sql.query<{ sealed_private_key: Uint8Array | null; key_wiped_at: Date | null }>(
    'SELECT sealed_private_key, key_wiped_at FROM license_epochs WHERE epoch_id = $1',
    [epochId],
  );
  const row = rows[0];
  return row && { sealed: row.sealed_private_key, wipedAt: row.key_wiped_at };
}

async function issuedAtAlongTheFeed(sql: SqlClient): Promise<number[]> {
  const page = await readRevocationPage(sql, 0n);
  return (page?.envelopes ?? []).map((envelope) => verifyArtifact(envelope, 'revocation-batch', { keys, now: vectorNow + 3600 }).payload.issuedAt);
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'License trust chain hardening',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => {
        const database = await openLicenseTestDatabase(engine);
        return { ...database, second: await database.connect() };
      },
    },
    (fixture) => {
      it('dates a batch no earlier than the previous one, whatever the publishing clock says', async () => {
        const { sql, second } = fixture();
        await storeFixtureEpoch(sql, global);
        const ahead = new ManualClock((vectorNow + 120) * 1000);
        const behind = new ManualClock((vectorNow - 600) * 1000);
        const first = await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(1)] }, { clock: ahead });
        expect(first.batch.issuedAt).toBe(vectorNow + 120);
        // Another instance whose clock runs 12 minutes behind publishes next: its batch is dated forward.
        const next = await publishRevocationBatch(second, global.signer, { licenseIds: [licenseId(2)] }, { clock: behind });
        expect(next.batch.issuedAt).toBe(vectorNow + 120);
        const later = await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(3)] }, { clock: new ManualClock((vectorNow + 900) * 1000) });
        expect(later.batch.issuedAt).toBe(vectorNow + 900);
        expect(await issuedAtAlongTheFeed(sql)).toEqual([vectorNow + 120, vectorNow + 120, vectorNow + 900]);
      });

      it('refuses to move the head backwards in time, even by hand', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(1)] }, { clock: new ManualClock(vectorNow * 1000) });
        await expect(sql.query('UPDATE license_revocation_head SET seq = seq + 1, issued_at = issued_at - 1')).rejects.toThrow();
        await expect(sql.query('UPDATE license_revocation_head SET seq = seq + 1, issued_at = issued_at + 1')).resolves.toBeDefined();
      });

      it.skipIf(engine.name !== 'postgres')('keeps issuedAt non-decreasing along the feed under 24 parallel publishers with skewed clocks (PostgreSQL)', async () => {
        const { sql, second } = fixture();
        await storeFixtureEpoch(sql, global);
        // Two instances, one 5 minutes ahead of the other, publishing at the same time.
        const clocks = [new ManualClock((vectorNow + 300) * 1000), new ManualClock(vectorNow * 1000)];
        const published = await Promise.all(
          Array.from({ length: 24 }, (_, n) => publishRevocationBatch(n % 2 === 0 ? sql : second, global.signer, { licenseIds: [licenseId(n)] }, { clock: clocks[n % 2] as ManualClock })),
        );
        expect(published.map((batch) => batch.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, n) => n + 1));
        const dates = await issuedAtAlongTheFeed(sql);
        expect(dates).toHaveLength(24);
        for (let n = 1; n < dates.length; n += 1) expect(dates[n]).toBeGreaterThanOrEqual(dates[n - 1] as number);
        // Every batch from the fast instance is dated by its clock, so the order really was mixed.
        expect(dates.filter((date) => date === vectorNow + 300).length).toBeGreaterThanOrEqual(12);
      });

      it('wipes the sealed key of an epoch in the transaction that revokes it; it never signs or comes back', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await storeFixtureEpoch(sql, unlisted);
        expect((await sealedKeyOf(sql, unlisted.epochId))?.sealed?.length).toBe(73);
        await publishRevocationBatch(sql, global.signer, { epochIds: [unlisted.epochId] }, { clock: new ManualClock(vectorNow * 1000) });
        const row = await sealedKeyOf(sql, unlisted.epochId);
        expect(row?.sealed).toBeNull();
        expect(row?.wipedAt).toBeInstanceOf(Date);
        expect((await listEpochs(sql)).find((epoch) => epoch.epochIdHex === unlisted.epochIdHex)).toMatchObject({ status: 'revoked', keyWipedAt: expect.any(Date) });
        const loaded = await loadEpochSigningKeys(sql, { masterKey: testMasterKey, now: vectorNow });
        expect(loaded.keys.map(({ epoch }) => epoch.epochIdHex)).toEqual([global.epochIdHex]);
        // The old sealed bytes cannot be written back, nor the epoch un-revoked.
        const resealed = sealEpochPrivateKey(testMasterKey, unlisted.epochId, unlisted.seed);
        await expect(sql.query('UPDATE license_epochs SET sealed_private_key = $2, key_wiped_at = NULL WHERE epoch_id = $1', [unlisted.epochId, resealed])).rejects.toThrow();
        await expect(sql.query(`UPDATE license_epochs SET status = 'active' WHERE epoch_id = $1`, [unlisted.epochId])).rejects.toThrow();
        // A revoked row never holds a key, even one inserted that way.
        await storeFixtureEpoch(sql, vectorEpochs.successor, { status: 'revoked' });
        expect((await sealedKeyOf(sql, vectorEpochs.successor.epochId))?.sealed).toBeNull();
      });

      it('wipes the sealed key of an expired epoch at the next key load, and it cannot be activated again', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await storeFixtureEpoch(sql, expired);
        expect((await sealedKeyOf(sql, expired.epochId))?.sealed).not.toBeNull();
        const loaded = await loadEpochSigningKeys(sql, { masterKey: testMasterKey, now: vectorNow });
        expect(loaded.wiped).toEqual([expired.epochIdHex]);
        expect(loaded.keys.map(({ epoch }) => epoch.epochIdHex)).toEqual([global.epochIdHex]);
        expect((await sealedKeyOf(sql, expired.epochId))?.sealed).toBeNull();
        // Idempotent, and the live epoch keeps its key until its own window ends.
        expect(await wipeRetiredEpochKeys(sql, { now: vectorNow })).toEqual([]);
        expect(await wipeRetiredEpochKeys(sql, { now: global.notAfter })).toEqual([global.epochIdHex]);
        expect((await loadEpochSigningKeys(sql, { masterKey: testMasterKey, now: global.notAfter - 1 })).keys).toEqual([]);
      });

      it('refuses to activate a certificate for an epoch whose key was wiped', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, expired, { status: 'pending' });
        await wipeRetiredEpochKeys(sql, { now: vectorNow });
        const certificate = await epochCertificateFor(expired);
        const clock = new ManualClock((expired.notBefore + 10) * 1000);
        await expect(activateEpochCertificate(sql, { certificate, pinnedRoots: vectorPins, clock })).rejects.toMatchObject({ code: 'unknown_epoch' });
      });

      it('re-seals a legacy unversioned key in the versioned form the first time it opens', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        const nonce = vectorBytes('legacy-store-nonce', 24);
        const aad = Uint8Array.from([...new TextEncoder().encode('tollgate/license/v1/epoch-key-at-rest'), 0, ...global.epochId]);
        const legacy = Uint8Array.from([...nonce, ...xchacha20poly1305(testMasterKey, nonce, aad).encrypt(global.seed)]);
        await sql.query('UPDATE license_epochs SET sealed_private_key = $2 WHERE epoch_id = $1', [global.epochId, legacy]);
        const loaded = await loadEpochSigningKeys(sql, { masterKey: testMasterKey, now: vectorNow });
        expect(loaded.keys[0]?.privateKey).toEqual(global.seed);
        const row = await sealedKeyOf(sql, global.epochId);
        expect(row?.sealed?.length).toBe(73);
        expect(row?.sealed?.[0]).toBe(1);
        expect((await loadEpochSigningKeys(sql, { masterKey: testMasterKey, now: vectorNow })).keys[0]?.privateKey).toEqual(global.seed);
      });

      it('refuses to store a sealed key of an unknown format version', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        const bogus = new Uint8Array(73);
        bogus[0] = 2;
        await expect(sql.query('UPDATE license_epochs SET sealed_private_key = $2 WHERE epoch_id = $1', [global.epochId, bogus])).rejects.toThrow();
      });

      it('publishes nothing when the signer returns a signature that does not verify', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        const corrupting: Signer = {
          ...global.signer,
          async sign(message) {
            const signature = Uint8Array.from(await global.signer.sign(message));
            signature[0] = (signature[0] as number) ^ 0x80;
            return signature;
          },
        };
        await expect(publishRevocationBatch(sql, corrupting, { licenseIds: [licenseId(1)] }, { clock: new ManualClock(vectorNow * 1000) })).rejects.toBeInstanceOf(TrustChainError);
        expect(await readRevocationHead(sql)).toBe(0);
        expect(await readRevocationPage(sql, 0n)).toBeUndefined();
      });
    },
  );
}
