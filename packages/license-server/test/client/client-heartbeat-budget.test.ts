/**
 * Budgets of `POST /v1/heartbeat` and `POST /v1/deactivate`: only the client address's, never one per
 * license (docs/protocol.md §14 "Budgets"). A license bucket would be shared by every machine of a
 * floating license, so a busy license's on-time heartbeats would be refused and the seat-reclaim job
 * would take those seats; and a deactivation resent after a lost answer must get its stored bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey } from '../admin/admin-harness';
import { hexOf } from '../admin/admin-license-fixtures';
import { newDevice, openClientBench, postCbor, sessionBody, type ClientBench } from './client-harness';
import { errorOf, licensedDevice, machineRow, reclaimJob } from './client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`heartbeat and deactivate: no per-license budget [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      // Two requests per license per route: the third heartbeat or deactivation of a license would be over it.
      bench = await openClientBench(engine, { LICENSE_RATE_LIMIT_PER_LICENSE: '2/60', LICENSE_SEAT_RECLAIM_SECONDS: '3600' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('keeps the seat of a device that heartbeats inside its window while other machines of the license heartbeat too', async () => {
      const a = await licensedDevice(bench, { heartbeat_window_seconds: 60, seats: 3 });
      const b = newDevice();
      const bSeat = await bench.seat(b, { licenseKey: a.licenseKey });
      // Machine A has been silent for 50 s of its 60 s window; B heartbeats as the SDK schedules it.
      await bench.admin.sql.query("UPDATE license_machines SET last_seen_at = now() - interval '50 seconds' WHERE machine_id = $1", [a.machineId]);
      expect((await bench.heartbeat(b, bSeat)).status).toBe(200);
      expect((await bench.heartbeat(b, bSeat)).status).toBe(200);
      // A heartbeats in time: the license's third heartbeat within the minute.
      const beat = await bench.heartbeat(a.device, a.seat);
      const job = reclaimJob(bench);
      try {
        await job.runAt(Date.now() + 15_000);
      } finally {
        await job.job.close();
      }
      expect({ heartbeat: beat.status, machine: (await machineRow(bench, a.machineId)).status }).toEqual({ heartbeat: 200, machine: 'active' });
    });

    it('answers a deactivation resent after a lost answer with its stored bytes, however many machines of the license deactivated', async () => {
      const a = await licensedDevice(bench, { seats: 3 });
      const b = newDevice();
      const bSeat = await bench.seat(b, { licenseKey: a.licenseKey });
      const key = freshKey();
      const body = await sessionBody('deactivate-request', a.device, a.seat, bench.productId);
      const first = await postCbor(bench.url, '/v1/deactivate', body, { 'idempotency-key': key });
      expect(first.status).toBe(200);
      expect((await bench.deactivate(b, bSeat)).status).toBe(200);
      // The license's third deactivation within the minute: the resend of A's.
      const resent = await postCbor(bench.url, '/v1/deactivate', body, { 'idempotency-key': key });
      expect({ status: resent.status, bytes: hexOf(resent.bytes) }).toEqual({ status: 200, bytes: hexOf(first.bytes) });
    });
  });

  describe(`heartbeat and deactivate: the per-address budget stays [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { LICENSE_RATE_LIMIT_PER_ADDRESS: '2/600' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers 1005 to an address over its heartbeat budget and over its deactivate budget', async () => {
      const one = await licensedDevice(bench);
      const two = await licensedDevice(bench);
      expect((await bench.heartbeat(one.device, one.seat)).status).toBe(200);
      expect((await bench.heartbeat(two.device, two.seat)).status).toBe(200);
      const overHeartbeat = await bench.heartbeat(one.device, one.seat);
      expect([overHeartbeat.status, errorOf(overHeartbeat).code]).toEqual([429, 1005]);
      expect((await bench.deactivate(one.device, one.seat)).status).toBe(200);
      expect((await bench.deactivate(two.device, two.seat)).status).toBe(200);
      const overDeactivate = await bench.deactivate(one.device, one.seat);
      expect([overDeactivate.status, errorOf(overDeactivate).code]).toEqual([429, 1005]);
    });
  });
}
