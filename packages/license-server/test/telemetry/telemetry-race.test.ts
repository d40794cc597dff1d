/**
 * Telemetry under contention, on the PostgreSQL server only (PGlite has one connection, so nothing
 * there runs concurrently): counters lose no increment under concurrent validates, and a block stored
 * while its machine is being erased never outlives the erasure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlMachineStore, eraseMachine, machineErasureSteps, storeTelemetryBlock, telemetryErasureStep, type PolicyDocument } from '@tollgate/core/license';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, verifyValidation } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { allowFeatures, counterDelta, countersOf, rawRowsOf, telemetryBlock, telemetryEnv, telemetryMasterKey } from './telemetry-fixtures';

const server = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(server === undefined)('telemetry under contention [postgres]', () => {
  let bench: ClientBench;
  beforeAll(async () => {
    bench = await openClientBench(server as NonNullable<typeof server>, telemetryEnv);
    await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['edit', 'export.pdf']);
  }, 120_000);
  afterAll(() => bench?.close());

  it('counts every block of 120 concurrent validates exactly: one stored per machine and day, the rest duplicates or gated', async () => {
    const stored = await Promise.all(Array.from({ length: 8 }, () => licensedDevice(bench, { telemetry: 't1' })));
    const gated = await Promise.all(Array.from({ length: 4 }, () => licensedDevice(bench, { telemetry: 'off' })));
    const before = await countersOf(bench.admin.sql, bench.productId);
    const sends = [
      ...stored.flatMap((licensed) => Array.from({ length: 10 }, () => bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock({ sessionCount: 10_001 }) }))),
      ...gated.flatMap((licensed) => Array.from({ length: 10 }, () => bench.validate(licensed.device, licensed.seat, { telemetry: telemetryBlock({ consentVersion: 0 }) }))),
    ];
    const answers = await Promise.all(sends);
    for (const answer of answers) expect((await verifyValidation(bench, answer)).kind).toBe('ticket');
    // Ten concurrent blocks of one machine on one day: the unique (subject, day) key lets exactly one in.
    expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({ 't1.stored': 8, session_count_clipped: 8, 't1.duplicate_window': 72, 't1.tier_gate': 40, 't1.no_consent': 40 });
    const rows = await Promise.all(stored.map((licensed) => rawRowsOf(bench.admin.sql, licensed.machineId)));
    expect(rows.map((list) => list.length)).toEqual(stored.map(() => 1));
  }, 120_000);

  it('a block stored while its machine is being erased waits for the erasure, then is not written', async () => {
    const licensed = await licensedDevice(bench, { telemetry: 't1' });
    const sql = bench.admin.sql;
    const vendorId = bench.admin.vendorA.vendorId;
    const steps = [telemetryErasureStep(telemetryMasterKey), ...machineErasureSteps];
    let pending: ReturnType<typeof storeTelemetryBlock> | undefined;
    await sql.transaction(async (tx) => {
      const lock = await createSqlMachineStore(tx).lock(vendorId, licensed.machineId, { nowait: false });
      if (lock.kind !== 'locked') throw new Error('machine not locked');
      const machine = { vendorId, productId: bench.productId, machineId: licensed.machineId, policy: { telemetry: 't1' } as Pick<PolicyDocument, 'telemetry'> };
      let settled = false;
      pending = storeTelemetryBlock({ sql, masterKey: telemetryMasterKey }, machine, telemetryBlock(), new Date()).finally(() => {
        settled = true;
      });
      // Wait until the intake's statement is blocked on the machine's row lock (no timing: its wait is
      // observed). An intake that does not wait for the erasure finishes first and fails the test here.
      for (;;) {
        if (settled) throw new Error('the intake wrote without waiting for the erasure that holds the machine');
        const { rows } = await sql.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%license_telemetry_raw%' AND datname = current_database()`);
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await eraseMachine(tx, lock.machine, steps);
    });
    expect(await pending).toMatchObject({ stored: false });
    expect(await rawRowsOf(sql, licensed.machineId)).toEqual([]);
  }, 60_000);
});
