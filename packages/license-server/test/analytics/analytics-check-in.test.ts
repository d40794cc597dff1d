/**
 * Review 15 F7: only a successful check-in is an analytics event. A validate refused because the license
 * is suspended or expired (403) writes `last_validated_at` before the standing is judged; the trigger
 * now reads the license and records nothing for it, while a usable license (fallback past expiry
 * included) still records one `check_in` per validate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClientBench, type ClientBench } from '../client/client-harness';
import { licensedDevice, ticketOf } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`analytics check-ins [${engine.name}]`, () => {
    let bench: ClientBench;
    // The job drains the outbox at start and then hourly: the outbox holds what the tests do.
    beforeAll(async () => {
      bench = await openClientBench(engine, { ANALYTICS_JOB_INTERVAL_MS: '3600000' });
    }, 120_000);
    afterAll(() => bench?.close());
    const checkIns = async (machineId: string) =>
      Number((await bench.admin.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM license_analytics_outbox WHERE machine_id = $1 AND kind = 'check_in'`, [machineId])).rows[0]!.n);

    it('records a check-in for a usable license', async () => {
      const licensed = await licensedDevice(bench);
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      expect(await checkIns(licensed.machineId)).toBe(1);
    });

    it('records none for a validate refused because the license is suspended', async () => {
      const licensed = await licensedDevice(bench);
      await bench.admin.sql.query(`UPDATE license_licenses SET status = 'suspended' WHERE license_id = $1`, [licensed.licenseId]);
      expect((await bench.validate(licensed.device, licensed.seat)).status).toBe(403);
      expect(await checkIns(licensed.machineId)).toBe(0);
    });

    it('records none for an expired license under expiry_behavior deny, one under fallback', async () => {
      const denied = await licensedDevice(bench, { expiry_behavior: 'deny' });
      const fallback = await licensedDevice(bench, { expiry_behavior: 'fallback' });
      await bench.admin.sql.query(`UPDATE license_licenses SET expires_at = now() - interval '1 day' WHERE license_id = ANY($1)`, [[denied.licenseId, fallback.licenseId]]);
      expect((await bench.validate(denied.device, denied.seat)).status).toBe(403);
      expect(await checkIns(denied.machineId)).toBe(0);
      await ticketOf(bench, await bench.validate(fallback.device, fallback.seat));
      expect(await checkIns(fallback.machineId)).toBe(1);
    });
  });
}
