/**
 * `POST /v1/deactivate` over real HTTP: the Idempotency-Key contract, the seat it frees, idempotence
 * (a replay is byte-identical, a second deactivation frees nothing and is still ok), proofs and nonces,
 * and what validate and heartbeat answer afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage } from '@tollgate/core/license';
import { newDevice, openClientBench, postCbor, sessionBody, type ClientBench } from './client-harness';
import { activateAnother, errorOf, killOrderOf, licensedDevice, machineRow, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`POST /v1/deactivate [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
    }, 120_000);
    afterAll(() => bench?.close());

    const deactivations = async (machineId: string) =>
      (await bench.admin.sql.query<{ actor: string }>("SELECT actor FROM license_audit_events WHERE target_id = $1 AND action = 'machine.deactivate'", [machineId])).rows;

    it('frees the seat: ok with the nonce echo, the machine deactivated by the client, audited, and another device takes the seat', async () => {
      const licensed = await licensedDevice(bench, { seats: 1 });
      const newcomer = newDevice();
      const full = await activateAnother(bench, licensed, newcomer);
      expect([full.status, errorOf(full).code]).toEqual([409, 1001]);
      const nonce = randomBytes(32);
      const answer = await bench.deactivate(licensed.device, licensed.seat, {
        nonce,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(decodeLicenseMessage('deactivate-response', answer.bytes)).toEqual({ protoVersion: 1, ok: true, nonceEcho: nonce });
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'deactivated',
        deactivation_reason: 'client',
      });
      expect(await deactivations(licensed.machineId)).toEqual([{ actor: `device:${licensed.machineId}` }]);
      const seat = await bench.seat(newcomer, {
        licenseKey: licensed.licenseKey,
      });
      expect((await ticketOf(bench, await bench.validate(newcomer, seat))).verdict).toBe(0);
    });

    it('replays the same request under the same key byte for byte, and refuses another request under it with 1000 (409)', async () => {
      const licensed = await licensedDevice(bench);
      const key = `deactivate-${Math.random().toString(36).slice(2)}`;
      const nonce = randomBytes(32);
      const body = await sessionBody('deactivate-request', licensed.device, licensed.seat, bench.productId, { nonce });
      const first = await postCbor(bench.url, '/v1/deactivate', body, {
        'idempotency-key': key,
      });
      const replay = await postCbor(bench.url, '/v1/deactivate', body, {
        'idempotency-key': key,
      });
      expect(first.status).toBe(200);
      expect(replay.status).toBe(200);
      expect(replay.bytes).toEqual(first.bytes);
      const other = await bench.deactivate(licensed.device, licensed.seat, {
        key,
      });
      expect([other.status, errorOf(other).code]).toEqual([409, 1000]);
      expect(await deactivations(licensed.machineId)).toHaveLength(1);
    });

    it('is idempotent across keys: a second deactivation frees nothing, answers ok, and audits nothing more', async () => {
      const licensed = await licensedDevice(bench);
      expect((await bench.deactivate(licensed.device, licensed.seat)).status).toBe(200);
      const again = await bench.deactivate(licensed.device, licensed.seat);
      expect(again.status).toBe(200);
      expect(decodeLicenseMessage('deactivate-response', again.bytes).ok).toBe(true);
      expect(await deactivations(licensed.machineId)).toHaveLength(1);
    });

    it('needs an Idempotency-Key of 1 to 128 visible characters (1000, 400)', async () => {
      const licensed = await licensedDevice(bench);
      for (const key of [null, 'k'.repeat(129), 'has space']) {
        const answer = await bench.deactivate(licensed.device, licensed.seat, {
          key,
        });
        expect([answer.status, errorOf(answer).code], String(key)).toEqual([400, 1000]);
      }
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'active',
      });
    });

    it('refuses a forged proof (1000, 401) without freeing the seat or spending the nonce, and a replayed nonce under a new key', async () => {
      const licensed = await licensedDevice(bench);
      const nonce = randomBytes(32);
      const forged = await bench.deactivate(licensed.device, licensed.seat, {
        nonce,
        signer: newDevice().signer,
      });
      expect([forged.status, errorOf(forged).code]).toEqual([401, 1000]);
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'active',
      });
      // The nonce was spent by a validation: a deactivation carrying it is a replay.
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { nonce }));
      const replay = await bench.deactivate(licensed.device, licensed.seat, {
        nonce,
      });
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'active',
      });
    });

    it('leaves the device a kill order of reason 3 at validate and ok: false at heartbeat', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 300,
      });
      expect((await bench.deactivate(licensed.device, licensed.seat)).status).toBe(200);
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(3);
      expect(decodeLicenseMessage('heartbeat-response', (await bench.heartbeat(licensed.device, licensed.seat)).bytes).ok).toBe(false);
      // The same device may come back by activating again (its fingerprint reuses nothing of the old seat).
      const back = await activateAnother(bench, licensed, licensed.device);
      expect(back.status).toBe(200);
    });
  });
}
