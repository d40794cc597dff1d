import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreMigrations, licenseMigrations, ManualClock } from '@tollgate/core';
import { createSqlIdempotencyJournal, startIdempotencyPurgeJob } from '@tollgate/core/license';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, licenseMigrations] });
});
afterAll(() => database?.close());

const count = async () => Number(((await database.sql.query<{ n: string }>('SELECT count(*) AS n FROM license_idempotency')).rows[0] as { n: string }).n);

it('deletes journal rows once their retention has passed, and only those', async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const vendorId = 'ab'.repeat(16);
  await database.sql.query('INSERT INTO license_vendors (vendor_id, name, created_at) VALUES ($1, $2, $3)', [vendorId, 'V', new Date(clock.now())]);
  const journal = createSqlIdempotencyJournal(database.sql, { sealKey: new Uint8Array(32) });
  const answer = async () => ({ status: 200, body: { ok: true } });
  const render = () => ({ status: 500, body: {} });
  await journal.run({ vendorId, key: 'old', fingerprint: new Uint8Array(32), now: new Date(clock.now()) }, answer, render);
  clock.advance(23 * 3600_000);
  await journal.run({ vendorId, key: 'recent', fingerprint: new Uint8Array(32), now: new Date(clock.now()) }, answer, render);
  clock.advance(2 * 3600_000);
  const lines: unknown[] = [];
  const logger = { info: (...args: unknown[]) => lines.push(args), error: (...args: unknown[]) => lines.push(args), warn: () => undefined, debug: () => undefined } as never;
  const job = startIdempotencyPurgeJob({ journal, clock, logger, intervalMs: 10 });
  await expect.poll(count, { timeout: 5_000 }).toBe(1);
  await job.close();
  expect(lines).toHaveLength(1);
});
