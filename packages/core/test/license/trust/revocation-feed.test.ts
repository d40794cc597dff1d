import { expect, it } from 'vitest';
import { ManualClock, createNobleEd25519Signer, type Signer, type SqlClient } from '@tollgate/core';
import {
  TrustChainError,
  buildKeyset,
  encodeCborSequence,
  listEpochs,
  publishRevocationBatch,
  readRevocationHead,
  readRevocationPage,
  splitCborSequence,
  verifyArtifact,
  verifyKeyset,
} from '@tollgate/core/license';
import { describeConformance, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { vectorBytes, vectorEpochs, vectorNow, vectorPins } from '../../vectors/license-fixtures';
import { openLicenseTestDatabase, storeFixtureEpoch } from '../license-test-database';

const { global, acme, unlisted, expired, successor } = vectorEpochs;
const clock = new ManualClock(vectorNow * 1000);
const keys = { epochs: new Map([[global.epochIdHex, global]]) };
const licenseId = (n: number) => vectorBytes(`feed-license-${n}`, 16);

interface Fixture extends TestDatabase {
  second: SqlClient;
}

async function publishMany(sql: SqlClient, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(n)] }, { clock });
}

/** Publishes one batch with `signer` and returns the refusal's `details.problem`, or 'published'. */
async function problemOf(sql: SqlClient, signer: Signer, at: ManualClock = clock): Promise<unknown> {
  try {
    await publishRevocationBatch(sql, signer, { licenseIds: [licenseId(1)] }, { clock: at });
    return 'published';
  } catch (error) {
    if (!(error instanceof TrustChainError) || error.code !== 'invalid_signer') throw error;
    return error.details['problem'];
  }
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'License revocation feed',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => {
        const database = await openLicenseTestDatabase(engine);
        return { ...database, second: await database.connect() };
      },
    },
    (fixture) => {
      it('publishes signed batches with sequence numbers 1, 2, 3 and moves the head and the keyset epoch', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        expect(await readRevocationHead(sql)).toBe(0);
        const first = await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(2), licenseId(1), licenseId(2)], machineIds: [vectorBytes('machine', 16)] }, { clock });
        expect(first.seq).toBe(1);
        const verified = verifyArtifact(first.envelope, 'revocation-batch', { keys, now: vectorNow });
        expect(verified.payload).toMatchObject({ seq: 1, issuedAt: vectorNow, machineIds: [vectorBytes('machine', 16)], epochIds: [] });
        // Deduplicated and sorted, as the layout requires.
        expect(verified.payload.licenseIds).toEqual([licenseId(1), licenseId(2)].sort(Buffer.compare));
        expect((await publishRevocationBatch(sql, global.signer, { machineIds: [vectorBytes('machine', 16)] }, { clock })).seq).toBe(2);
        expect(await readRevocationHead(sql)).toBe(2);
        expect((await buildKeyset(sql, { pinnedRoots: vectorPins })).revocationEpoch).toBe(2);
      });

      it('never forks or skips a sequence number under 24 parallel publishers on two connections', async () => {
        const { sql, second } = fixture();
        await storeFixtureEpoch(sql, global);
        const published = await Promise.all(
          Array.from({ length: 24 }, (_, n) => publishRevocationBatch(n % 2 === 0 ? sql : second, global.signer, { licenseIds: [licenseId(n)] }, { clock })),
        );
        expect(published.map((batch) => batch.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, n) => n + 1));
        expect(await readRevocationHead(sql)).toBe(24);
        const page = await readRevocationPage(sql, 0n);
        expect(page?.envelopes.map((envelope) => verifyArtifact(envelope, 'revocation-batch', { keys, now: vectorNow }).payload.seq)).toEqual(
          Array.from({ length: 24 }, (_, n) => n + 1),
        );
      });

      it('rolls back the head when signing fails, so no number is lost', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        const failing = { ...global.signer, sign: async () => Promise.reject(new Error('HSM unavailable')) };
        await expect(publishRevocationBatch(sql, failing, { licenseIds: [licenseId(1)] }, { clock })).rejects.toThrow('HSM unavailable');
        expect(await readRevocationHead(sql)).toBe(0);
        expect((await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(1)] }, { clock })).seq).toBe(1);
      });

      it('refuses a signer clients could not verify: unknown, product-scoped, not active, outside its window, or another key', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, acme);
        await storeFixtureEpoch(sql, unlisted, { status: 'pending' });
        await storeFixtureEpoch(sql, expired);
        await storeFixtureEpoch(sql, successor);
        await storeFixtureEpoch(sql, global);
        expect(await problemOf(sql, vectorEpochs.global.root.signer)).toBe('unknown_epoch');
        expect(await problemOf(sql, acme.signer)).toBe('product_scoped');
        expect(await problemOf(sql, unlisted.signer)).toBe('not_active');
        expect(await problemOf(sql, expired.signer)).toBe('outside_window');
        expect(await problemOf(sql, successor.signer)).toBe('outside_window');
        // The global epoch's kid, but a key that is not the one its certificate names.
        const impostor = createNobleEd25519Signer({ privateKey: vectorBytes('impostor-key'), kid: global.epochIdHex });
        expect(await problemOf(sql, impostor)).toBe('signature');
        expect(await readRevocationHead(sql)).toBe(0);
        expect(await readRevocationPage(sql, 0n)).toBeUndefined();
        expect(await problemOf(sql, global.signer)).toBe('published');
      });

      it('revokes the epochs a batch names: active ones become revoked but stay in the keyset, pending ones are dropped', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await storeFixtureEpoch(sql, unlisted);
        await storeFixtureEpoch(sql, acme, { status: 'pending' });
        const signedByUnlisted = await publishRevocationBatch(sql, unlisted.signer, { licenseIds: [licenseId(1)] }, { clock });
        await publishRevocationBatch(sql, global.signer, { epochIds: [unlisted.epochId, acme.epochId] }, { clock });
        expect((await listEpochs(sql)).map((epoch) => [epoch.epochIdHex, epoch.status])).toEqual(
          expect.arrayContaining([
            [global.epochIdHex, 'active'],
            [unlisted.epochIdHex, 'revoked'],
          ]),
        );
        expect((await listEpochs(sql)).map((epoch) => epoch.epochIdHex)).not.toContain(acme.epochIdHex);
        // A revoked epoch signs no more batches...
        expect(await problemOf(sql, unlisted.signer)).toBe('not_active');
        // ...but a client replaying from since=0 still verifies the batch it signed before.
        const keyset = await buildKeyset(sql, { pinnedRoots: vectorPins });
        expect(new Set(keyset.epochIds)).toEqual(new Set([global.epochIdHex, unlisted.epochIdHex]));
        const clientKeys = verifyKeyset(keyset.bytes, vectorPins, vectorNow);
        const page = await readRevocationPage(sql, 0n);
        expect(page?.envelopes[0]).toEqual(signedByUnlisted.envelope);
        expect(page?.envelopes.map((envelope) => verifyArtifact(envelope, 'revocation-batch', { keys: clientKeys, now: vectorNow }).payload.seq)).toEqual([1, 2]);
      });

      it('serves pages of up to 64 batches, complete once the page is full', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await publishMany(sql, 66);
        const first = await readRevocationPage(sql, 0n);
        expect(first).toMatchObject({ first: 1, last: 64, complete: true });
        expect(first?.envelopes).toHaveLength(64);
        expect(await readRevocationPage(sql, 64n)).toMatchObject({ first: 65, last: 66, complete: false });
        expect(await readRevocationPage(sql, 66n)).toBeUndefined();
        expect(splitCborSequence(encodeCborSequence(first!.envelopes))).toEqual(first!.envelopes);
      });

      it('keeps published batches immutable, even against TRUNCATE, and the head moving forward only', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        await publishMany(sql, 2);
        await expect(sql.query('UPDATE license_revocation_batches SET envelope = $1', [new Uint8Array([1])])).rejects.toThrow(/never change/);
        await expect(sql.query('DELETE FROM license_revocation_batches')).rejects.toThrow(/never change/);
        await expect(sql.query('TRUNCATE license_revocation_batches')).rejects.toThrow(/never change/);
        await expect(sql.query('TRUNCATE license_revocation_head')).rejects.toThrow(/only moves forward/);
        await expect(sql.query('DELETE FROM license_revocation_head')).rejects.toThrow(/only moves forward/);
        await expect(sql.query('UPDATE license_revocation_head SET seq = 1')).rejects.toThrow(/only moves forward/);
        await expect(sql.query('UPDATE license_revocation_head SET seq = seq + 2')).rejects.toThrow(/only moves forward/);
        expect(await readRevocationHead(sql)).toBe(2);
        expect((await readRevocationPage(sql, 0n))?.envelopes).toHaveLength(2);
        expect((await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(3)] }, { clock })).seq).toBe(3);
      });

      it('refuses empty, oversized and malformed batches without touching the head', async () => {
        const { sql } = fixture();
        await storeFixtureEpoch(sql, global);
        const refused = async (input: Parameters<typeof publishRevocationBatch>[2]) =>
          publishRevocationBatch(sql, global.signer, input, { clock }).then(
            () => undefined,
            (error: unknown) => (error instanceof TrustChainError ? error.code : 'other'),
          );
        expect(await refused({})).toBe('invalid_batch');
        expect(await refused({ licenseIds: Array.from({ length: 1025 }, (_, n) => licenseId(n)) })).toBe('invalid_batch');
        expect(await refused({ licenseIds: [new Uint8Array(15)] })).toBe('invalid_batch');
        expect(await readRevocationHead(sql)).toBe(0);
      });
    },
  );
}
