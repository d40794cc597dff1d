// The settlement-recovery worker's reporting and sweeps: a job that used its last attempt leaves a
// payment pending while the payer may have been charged, so it is an error, not a debug line; the sweep
// gives such payments a new job.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { coreMigrations, gatewayMigrations, ManualClock, settlementRecoveryQueue } from '@tollgate/core';
import { createSqlJobQueue } from '@tollgate/core/storage';
import { openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { startRecoveryWorker, type RecoveryWorkerLogger } from '@tollgate/core/gateway';
import { eventually } from '../../../../../test/eventually';

interface Line {
  level: 'debug' | 'warn' | 'error';
  object: object;
  message: string | undefined;
}

let database: TestDatabase;
let clock: ManualClock;
let lines: Line[];
const logger: RecoveryWorkerLogger = {
  debug: (object, message) => lines.push({ level: 'debug', object, message }),
  warn: (object, message) => lines.push({ level: 'warn', object, message }),
  error: (object, message) => lines.push({ level: 'error', object, message }),
};

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  lines = [];
});

describe('the settlement-recovery worker', () => {
  it('logs retries at debug level and the attempt that dead-letters the job at error level', async () => {
    const jobs = createSqlJobQueue(database.sql, { clock });
    await jobs.enqueue(settlementRecoveryQueue, { paymentId: 'pay_0123456789abcdef' }, { idempotencyKey: 'recovery:pay_0123456789abcdef', maxAttempts: 2 });
    let runs = 0;
    const worker = startRecoveryWorker({
      sql: database.sql,
      recovery: {
        runJob: async () => {
          runs += 1;
          throw new Error('The payment is still pending (no_rpc).');
        },
        sweepAbandoned: async () => 0,
        sweepStranded: async () => 0,
      },
      clock,
      logger,
      pollIntervalMs: 10,
    });
    try {
      await vi.waitFor(() => expect(runs).toBe(1), eventually);
      // The retry is due within the first backoff step (2 s) on the worker's clock.
      clock.advance(2_000);
      await vi.waitFor(() => expect(lines.filter((line) => line.level === 'error')).toHaveLength(1), eventually);
    } finally {
      await worker.stop();
    }
    const reason = 'The payment is still pending (no_rpc).';
    expect(lines).toEqual([
      { level: 'debug', object: { paymentId: 'pay_0123456789abcdef', attempt: 1, maxAttempts: 2, reason }, message: 'settlement recovery retry' },
      { level: 'error', object: { paymentId: 'pay_0123456789abcdef', attempt: 2, maxAttempts: 2, reason }, message: expect.stringContaining('gave up') },
    ]);
    const { rows } = await database.sql.query<{ status: string }>('SELECT status FROM tollgate_jobs WHERE queue = $1', [settlementRecoveryQueue]);
    expect(rows).toEqual([{ status: 'dead' }]);
  });

  it('sweeps abandoned claims and stranded pending payments, and warns when payments needed a new recovery job', async () => {
    const sweeps = { abandoned: 0, stranded: 0 };
    const worker = startRecoveryWorker({
      sql: database.sql,
      recovery: {
        runJob: async () => undefined,
        sweepAbandoned: async () => {
          sweeps.abandoned += 1;
          return 0;
        },
        sweepStranded: async () => {
          sweeps.stranded += 1;
          return sweeps.stranded === 1 ? 2 : 0;
        },
      },
      clock,
      logger,
      pollIntervalMs: 10,
      sweepIntervalMs: 10,
    });
    try {
      await vi.waitFor(() => expect(sweeps.stranded).toBeGreaterThanOrEqual(2), eventually);
    } finally {
      await worker.stop();
    }
    expect(sweeps.abandoned).toBeGreaterThanOrEqual(2);
    expect(lines).toEqual([{ level: 'warn', object: { renewed: 2 }, message: expect.stringContaining('recovery job') }]);
  });
});
