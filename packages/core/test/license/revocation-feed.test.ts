import { expect, it } from 'vitest';
import {
  ManualClock,
  TrustChainError,
  buildKeyset,
  coreMigrations,
  encodeCborSequence,
  licenseMigrations,
  publishRevocationBatch,
  readRevocationHead,
  readRevocationPage,
  splitCborSequence,
  verifyArtifact,
  type SqlClient,
} from '@tollgate/core';
import { describeConformance, openTestDatabase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { vectorBytes, vectorEpochs, vectorNow } from '../vectors/license-fixtures';

const { global } = vectorEpochs;
const clock = new ManualClock(vectorNow * 1000);
const keys = { epochs: new Map([[global.epochIdHex, global]]) };
const licenseId = (n: number) => vectorBytes(`feed-license-${n}`, 16);

interface Fixture extends TestDatabase {
  second: SqlClient;
}

async function publishMany(sql: SqlClient, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(n)] }, { clock });
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'License revocation feed',
    {
      name: engine.name,
      open: async (): Promise<Fixture> => {
        const database = await openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
        return { ...database, second: await database.connect() };
      },
    },
    (fixture) => {
      it('publishes signed batches with sequence numbers 1, 2, 3 and moves the head and the keyset epoch', async () => {
        const { sql } = fixture();
        expect(await readRevocationHead(sql)).toBe(0);
        const first = await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(2), licenseId(1), licenseId(2)], epochIds: [vectorEpochs.expired.epochId] }, { clock });
        expect(first.seq).toBe(1);
        const verified = verifyArtifact(first.envelope, 'revocation-batch', { keys, now: vectorNow });
        expect(verified.payload).toMatchObject({ seq: 1, issuedAt: vectorNow, machineIds: [], epochIds: [vectorEpochs.expired.epochId] });
        // Deduplicated and sorted, as the layout requires.
        expect(verified.payload.licenseIds).toEqual([licenseId(1), licenseId(2)].sort(Buffer.compare));
        expect((await publishRevocationBatch(sql, global.signer, { machineIds: [vectorBytes('machine', 16)] }, { clock })).seq).toBe(2);
        expect(await readRevocationHead(sql)).toBe(2);
        expect((await buildKeyset(sql)).revocationEpoch).toBe(2);
      });

      it('never forks or skips a sequence number under 24 parallel publishers on two connections', async () => {
        const { sql, second } = fixture();
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
        const failing = { ...global.signer, sign: async () => Promise.reject(new Error('HSM unavailable')) };
        await expect(publishRevocationBatch(sql, failing, { licenseIds: [licenseId(1)] }, { clock })).rejects.toThrow('HSM unavailable');
        expect(await readRevocationHead(sql)).toBe(0);
        expect((await publishRevocationBatch(sql, global.signer, { licenseIds: [licenseId(1)] }, { clock })).seq).toBe(1);
      });

      it('serves pages of up to 64 batches, complete once the page is full', async () => {
        const { sql } = fixture();
        await publishMany(sql, 66);
        const first = await readRevocationPage(sql, 0n);
        expect(first).toMatchObject({ first: 1, last: 64, complete: true });
        expect(first?.envelopes).toHaveLength(64);
        expect(await readRevocationPage(sql, 64n)).toMatchObject({ first: 65, last: 66, complete: false });
        expect(await readRevocationPage(sql, 66n)).toBeUndefined();
        expect(splitCborSequence(encodeCborSequence(first!.envelopes))).toEqual(first!.envelopes);
      });

      it('keeps published batches immutable', async () => {
        const { sql } = fixture();
        await publishMany(sql, 1);
        await expect(sql.query('UPDATE license_revocation_batches SET envelope = $1', [new Uint8Array([1])])).rejects.toThrow(/never change/);
        await expect(sql.query('DELETE FROM license_revocation_batches')).rejects.toThrow(/never change/);
      });

      it('refuses empty, oversized and malformed batches without touching the head', async () => {
        const { sql } = fixture();
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
