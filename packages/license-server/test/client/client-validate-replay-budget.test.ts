/**
 * The per-license budget of `POST /v1/validate` is charged only for a fresh nonce: replaying a captured
 * valid request is refused (1000/401) without spending the license's budget, a forged proof spends
 * neither budget nor nonce, and a request the budget refuses leaves its nonce usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { newDevice, openClientBench, postCbor, validateBody, type ClientBench } from './client-harness';
import { adminRevoke, errorOf, killOrderOf, licensedDevice, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`POST /v1/validate: replays and the per-license budget [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { LICENSE_RATE_LIMIT_PER_LICENSE: '3/600' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('refuses replays of a captured request without spending the license budget', async () => {
      const target = await licensedDevice(bench);
      const captured = await validateBody(target.device, target.seat, bench.productId);
      await ticketOf(bench, await postCbor(bench.url, '/v1/validate', captured));
      for (let n = 0; n < 5; n += 1) {
        const replay = await postCbor(bench.url, '/v1/validate', captured);
        expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      }
      // Two fresh requests still fit (1 + 2 = 3): the five replays charged nothing.
      await ticketOf(bench, await bench.validate(target.device, target.seat));
      await ticketOf(bench, await bench.validate(target.device, target.seat));
      // The budget itself still holds.
      const over = await bench.validate(target.device, target.seat);
      expect([over.status, errorOf(over).code]).toEqual([429, 1005]);
    });

    it('spends neither budget nor nonce on a forged proof, also once the server knows the device key', async () => {
      const target = await licensedDevice(bench);
      // A first validation teaches this instance the device's key (the one-statement path from then on).
      await ticketOf(bench, await bench.validate(target.device, target.seat));
      const nonce = randomBytes(32);
      const stranger = newDevice();
      for (let n = 0; n < 4; n += 1) {
        const forged = await bench.validate(target.device, target.seat, { nonce, signer: stranger.signer });
        expect([forged.status, errorOf(forged).code]).toEqual([401, 1000]);
      }
      // The forged requests' nonce is still fresh, and the rest of the budget is left.
      await ticketOf(bench, await bench.validate(target.device, target.seat, { nonce }));
      await ticketOf(bench, await bench.validate(target.device, target.seat));
      const over = await bench.validate(target.device, target.seat);
      expect([over.status, errorOf(over).code]).toEqual([429, 1005]);
    });

    it('answers the kill order of a seat lost after the server learned the device key', async () => {
      const target = await licensedDevice(bench, { seats: 1 });
      await ticketOf(bench, await bench.validate(target.device, target.seat));
      await bench.admin.sql.query("UPDATE license_machines SET status = 'deactivated', deactivated_at = now(), deactivation_reason = 'reclaimed' WHERE machine_id = $1", [target.machineId]);
      expect((await killOrderOf(bench, await bench.validate(target.device, target.seat))).reason).toBe(3);
      await adminRevoke(bench, 'machines', target.machineId);
      expect((await killOrderOf(bench, await bench.validate(target.device, target.seat))).reason).toBe(2);
    });

    it('leaves the nonce of a request the budget refused usable', async () => {
      const target = await licensedDevice(bench);
      for (let n = 0; n < 3; n += 1) await ticketOf(bench, await bench.validate(target.device, target.seat));
      const nonce = randomBytes(32);
      const refused = await bench.validate(target.device, target.seat, { nonce });
      expect([refused.status, errorOf(refused).code]).toEqual([429, 1005]);
      // Refill the license's bucket: the refused nonce then validates.
      const { rowCount } = await bench.admin.sql.query('DELETE FROM tollgate_rate_limits WHERE key = $1', [`license-client:validate:license:${hexEncode(target.seat.licenseId)}`]);
      expect(rowCount).toBeGreaterThan(0);
      await ticketOf(bench, await bench.validate(target.device, target.seat, { nonce }));
    });
  });
}
