/**
 * A validation that races the loss of its machine's seat: the machine is read while it holds its seat,
 * then (before the nonce and the contact are written) the seat is taken back by the reclaim job or a
 * deactivate. The contact does not land on a machine without a seat, so the answer must not be a
 * ticket either: a ticket would keep the device running while its seat goes to another device (two
 * running devices on one seat until the ticket's refresh). The interleaving is forced by a fault hook
 * on the server's SQL client (the statement that spends the nonce waits for the seat to go first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { openClientBench, postCbor, validateBody, type ClientBench } from './client-harness';
import { activateAnother, adminRevoke, errorOf, killOrderOf, licensedDevice, machineRow, reclaimJob, ticketOf, verifyValidation } from './client-session-helpers';
import { serverEngines } from '../helpers';

/** Runs `before` once, just before the next statement that spends a session nonce. */
function beforeNextNonceSpend(sql: SqlClient, before: () => Promise<void>): void {
  const original = sql.query.bind(sql);
  let armed = true;
  (sql as { query: SqlClient['query'] }).query = (async (text: string, params?: unknown[]) => {
    if (armed && text.includes('INSERT INTO license_client_nonces') && text.includes('touched AS')) {
      armed = false;
      await before();
    }
    return original(text, params as never);
  }) as SqlClient['query'];
}

// Both ways validate spends its nonce: two statements (no per-license budget), and the budget, the
// nonce and the contact in one statement (spendBudgetedSessionNonce).
const budgets: { name: string; env: Record<string, string> }[] = [
  { name: 'no license budget', env: {} },
  { name: 'license budget in the same statement', env: { LICENSE_RATE_LIMIT_PER_LICENSE: '1000/60' } },
];

for (const engine of serverEngines) for (const budget of budgets) {
  describe(`POST /v1/validate racing the loss of its seat [${engine.name}, ${budget.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { LICENSE_SEAT_RECLAIM_SECONDS: '3600', ...budget.env });
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers a kill order of reason 3, not a ticket, when the seat is reclaimed between the read and the nonce', async () => {
      const licensed = await licensedDevice(bench, { seats: 1, heartbeat_window_seconds: 120 });
      const sql = bench.admin.server.context.sql;
      beforeNextNonceSpend(sql, async () => {
        // What the reclaim job writes for a silent machine (seat-reclaim.ts), committed in between.
        await bench.admin.sql.query("UPDATE license_machines SET status = 'deactivated', deactivated_at = now(), deactivation_reason = 'reclaimed' WHERE machine_id = $1", [licensed.machineId]);
      });
      const answer = await bench.validate(licensed.device, licensed.seat);
      expect(answer.status).toBe(200);
      const verified = await verifyValidation(bench, answer);
      expect(verified.kind).toBe('kill');
      expect((await killOrderOf(bench, answer)).reason).toBe(3);
      // The seat went to another device: the first one holds none and runs on no ticket.
      expect((await activateAnother(bench, licensed)).status).toBe(200);
      expect((await machineRow(bench, licensed.machineId)).status).toBe('deactivated');
      const again = await bench.validate(licensed.device, licensed.seat);
      expect((await killOrderOf(bench, again)).reason).toBe(3);
    });

    it('answers a kill order of reason 2 when the machine is revoked between the read and the nonce', async () => {
      const licensed = await licensedDevice(bench, { seats: 1 });
      beforeNextNonceSpend(bench.admin.server.context.sql, async () => {
        await adminRevoke(bench, 'machines', licensed.machineId);
      });
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(2);
    });

    it('records no contact for a replayed request: replaying captured traffic cannot keep a silent seat alive', async () => {
      const licensed = await licensedDevice(bench, { seats: 1, heartbeat_window_seconds: 120 });
      const body = await validateBody(licensed.device, licensed.seat, bench.productId, { nonce: randomBytes(32) });
      await ticketOf(bench, await postCbor(bench.url, '/v1/validate', body));
      const silentSince = new Date(Date.now() - 10 * 60_000);
      await bench.admin.sql.query('UPDATE license_machines SET last_seen_at = $2, last_validated_at = $2 WHERE machine_id = $1', [licensed.machineId, silentSince]);
      const replay = await postCbor(bench.url, '/v1/validate', body);
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      const row = await machineRow(bench, licensed.machineId);
      expect([row.last_seen_at.getTime(), row.last_validated_at?.getTime()]).toEqual([silentSince.getTime(), silentSince.getTime()]);
      const reclaim = reclaimJob(bench);
      try {
        expect((await reclaim.runAt(Date.now())).map((seat) => seat.machineId)).toContain(licensed.machineId);
      } finally {
        await reclaim.job.close();
      }
    });
  });
}
