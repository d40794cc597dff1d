/**
 * Kill orders of `POST /v1/validate`: a signed KillOrder at the same status as a ticket (200) for each
 * cause the server knows (license revoked, machine revoked, seat gone: deactivated or reclaimed), bound
 * to the request's nonce and carrying the revocation epoch; and what the other session routes say then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { readFeed } from '../admin/admin-license-fixtures';
import { newDevice, openClientBench, type ClientBench } from './client-harness';
import { adminRevoke, errorOf, killOrderOf, licensedDevice, machineRow, reclaimJob, verifyValidation } from './client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`POST /v1/validate: kill orders [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, {
        LICENSE_SEAT_RECLAIM_SECONDS: '3600',
      });
    }, 120_000);
    afterAll(() => bench?.close());

    const feedHead = async () => Math.max(0, ...(await readFeed(bench.admin)).map((batch) => batch.seq));

    it('answers reason 1 at status 200 once the license is revoked through the Admin API, with the epoch of its batch', async () => {
      const licensed = await licensedDevice(bench);
      await adminRevoke(bench, 'licenses', licensed.licenseId);
      const nonce = randomBytes(32);
      const answer = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      expect(answer.status).toBe(200);
      const order = await killOrderOf(bench, answer);
      expect(order).toMatchObject({
        protoVersion: 1,
        licenseId: licensed.seat.licenseId,
        machineId: licensed.seat.machineId,
        nonceEcho: nonce,
        reason: 1,
      });
      expect(order.revocationEpoch).toBe(await feedHead());
      expect(order.userMessage).toMatch(/revoked/);
      expect(Math.abs(order.serverTime - Date.now() / 1000)).toBeLessThan(60);
      // The order is bound to its nonce like a ticket: a replay of the request is refused, not re-answered.
      const replay = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      // Heartbeats of the machine are answered, but no longer ok.
      const beat = await bench.heartbeat(licensed.device, licensed.seat);
      expect(decodeLicenseMessage('heartbeat-response', beat.bytes).ok).toBe(false);
    });

    it('answers reason 4 (fraud) or 5 (refund) when the license was revoked with that reason code', async () => {
      for (const reason of [4, 5] as const) {
        const licensed = await licensedDevice(bench);
        await adminRevoke(bench, 'licenses', licensed.licenseId, reason);
        expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(reason);
      }
      // Any other recorded reason is the plain "license revoked".
      const licensed = await licensedDevice(bench);
      await adminRevoke(bench, 'licenses', licensed.licenseId, 9);
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(1);
    });

    it('answers reason 2 to a machine revoked through the Admin API, while another machine of the license keeps its tickets', async () => {
      const licensed = await licensedDevice(bench);
      const other = newDevice();
      const otherSeat = await bench.seat(other, {
        licenseKey: licensed.licenseKey,
      });
      await adminRevoke(bench, 'machines', licensed.machineId);
      const order = await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat));
      expect(order.reason).toBe(2);
      expect(order.revocationEpoch).toBe(await feedHead());
      expect((await verifyValidation(bench, await bench.validate(other, otherSeat))).kind).toBe('ticket');
    });

    it('answers reason 3 after the device deactivated itself', async () => {
      const licensed = await licensedDevice(bench);
      expect((await bench.deactivate(licensed.device, licensed.seat)).status).toBe(200);
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(3);
    });

    it('answers reason 3 after the seat-reclaim job took the seat of a machine silent past the heartbeat window', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 120,
        seats: 1,
      });
      const { last_seen_at: lastSeen } = await machineRow(bench, licensed.machineId);
      const reclaim = reclaimJob(bench);
      try {
        const reclaimed = await reclaim.runAt(lastSeen.getTime() + 121_000);
        expect(reclaimed.map((seat) => seat.machineId)).toContain(licensed.machineId);
      } finally {
        await reclaim.job.close();
      }
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'deactivated',
        deactivation_reason: 'reclaimed',
      });
      const nonce = randomBytes(32);
      const answer = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      expect(answer.status).toBe(200);
      const order = await killOrderOf(bench, answer);
      expect(order).toMatchObject({ reason: 3, nonceEcho: nonce });
      expect(order.userMessage).toMatch(/seat/);
    });

    it('answers an erased machine (DELETE /v1/admin/machines/{id}) with the generic 1000 (401): nothing is left to sign a kill order for', async () => {
      const licensed = await licensedDevice(bench);
      const erased = await bench.admin.call('DELETE', `/machines/${licensed.machineId}`, { query: { dry_run: 'false' }, key: freshKey() });
      expect(erased.status).toBe(200);
      const answer = await bench.validate(licensed.device, licensed.seat);
      expect([answer.status, errorOf(answer).code]).toEqual([401, 1000]);
    });
  });
}
