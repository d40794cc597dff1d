import { coreMigrations, createSqlGatewayStores, gatewayMigrations, ManualClock } from '@tollgate/core';
import { createSqlRateLimiter } from '@tollgate/core/storage';
import { challengeFor, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHousekeeping } from '@tollgate/core/gateway';

let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
});

afterAll(async () => {
  await database?.close();
});

function recorder() {
  const lines: { level: string; object: object; message: string | undefined }[] = [];
  return {
    lines,
    logger: {
      debug: (object: object, message?: string) => lines.push({ level: 'debug', object, message }),
      warn: (object: object, message: string) => lines.push({ level: 'warn', object, message }),
    },
  };
}

describe('gateway housekeeping', () => {
  it('deletes challenges an hour past expiry and idle rate-limit state', async () => {
    const stores = createSqlGatewayStores(database.sql);
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
    const rateLimiter = createSqlRateLimiter(database.sql, { clock });
    const stale = challengeFor('0x90f79bf6eb2c4f870365e785982e1f101e93b906', { expiresAt: new Date(clock.now() - 3_600_001) });
    const recent = challengeFor('0x90f79bf6eb2c4f870365e785982e1f101e93b906', { expiresAt: new Date(clock.now() - 60_000) });
    await stores.merchants.insertChallenge(stale);
    await stores.merchants.insertChallenge(recent);
    await rateLimiter.consume('gateway:challenge:203.0.113.1', { limit: 10, windowMs: 60_000 });
    clock.advance(60_000);
    const { lines, logger } = recorder();
    const housekeeping = startHousekeeping({ stores, rateLimiter, clock, logger, intervalMs: 3_600_000 });
    await housekeeping.run();
    await housekeeping.stop();
    expect(await stores.merchants.getChallenge(stale.id)).toBeUndefined();
    expect(await stores.merchants.getChallenge(recent.id)).toBeDefined();
    expect(lines).toEqual([{ level: 'debug', object: { challenges: 1, rateLimitKeys: 1 }, message: 'housekeeping done' }]);
  });

  it('logs a failure instead of throwing', async () => {
    const { lines, logger } = recorder();
    const failing = { deleteExpiredChallenges: async () => Promise.reject(new Error('database gone')), };
    const housekeeping = startHousekeeping({ stores: { merchants: failing }, rateLimiter: { prune: async () => 0 }, clock: new ManualClock(0), logger });
    await housekeeping.run();
    await housekeeping.stop();
    expect(lines).toEqual([{ level: 'warn', object: { err: expect.any(Error) }, message: 'housekeeping failed' }]);
  });
});
