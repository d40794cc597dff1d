/**
 * `POST /v1/heartbeat` and the seat-reclaim job over real HTTP: `{ ok, next_after, nonce_echo }`, the
 * schedule it asks for, proofs and nonces, and machines silent past their policy's heartbeat window
 * losing their seat to the job (driven on a manual clock), which then frees it for another device.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage, seatReclaimActor } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { newDevice, openClientBench, type ClientBench } from './client-harness';
import { activateAnother, adminRevoke, errorOf, killOrderOf, licensedDevice, machineRow, reclaimJob, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

const nowSeconds = () => Math.floor(Date.now() / 1000);

for (const engine of serverEngines) {
  describe(`POST /v1/heartbeat and seat reclaim [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      // The server's own reclaim job stays idle (its first run is an hour away): the tests drive it.
      bench = await openClientBench(engine, {
        LICENSE_SEAT_RECLAIM_SECONDS: '3600',
      });
    }, 120_000);
    afterAll(() => bench?.close());

    const heartbeat = async (licensed: Awaited<ReturnType<typeof licensedDevice>>, nonce = randomBytes(32)) => {
      const before = nowSeconds();
      const answer = await bench.heartbeat(licensed.device, licensed.seat, {
        nonce,
      });
      const after = nowSeconds();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      return {
        body: decodeLicenseMessage('heartbeat-response', answer.bytes),
        before,
        after,
        nonce,
      };
    };

    it('answers { ok, next_after, nonce_echo }: a third of the heartbeat window ahead, and records the contact', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 300,
      });
      const { body, before, after, nonce } = await heartbeat(licensed);
      expect(body).toMatchObject({
        protoVersion: 1,
        ok: true,
        nonceEcho: nonce,
      });
      expect(body.nextAfter).toBeGreaterThanOrEqual(before + 100);
      expect(body.nextAfter).toBeLessThanOrEqual(after + 100);
      const row = await machineRow(bench, licensed.machineId);
      expect(row.last_heartbeat_at).not.toBeNull();
      expect(row.last_seen_at.getTime()).toBe(row.last_heartbeat_at?.getTime());
    });

    it('asks for at least 20 s between heartbeats, and for the next validation when the policy has no window', async () => {
      const short = await licensedDevice(bench, {
        heartbeat_window_seconds: 30,
      });
      const first = await heartbeat(short);
      expect(first.body.nextAfter).toBeGreaterThanOrEqual(first.before + 20);
      expect(first.body.nextAfter).toBeLessThanOrEqual(first.after + 20);
      const none = await licensedDevice(bench, {
        heartbeat_window_seconds: null,
        validation_interval_seconds: 7200,
      });
      const second = await heartbeat(none);
      expect(second.body.nextAfter).toBeGreaterThanOrEqual(second.before + 7200);
      expect(second.body.nextAfter).toBeLessThanOrEqual(second.after + 7200);
    });

    it('answers a heartbeat sent before next_after like any other: no penalty, the same schedule from now', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 300,
      });
      const results = [];
      for (let n = 0; n < 5; n += 1) results.push(await heartbeat(licensed));
      for (const result of results) {
        expect(result.body.ok).toBe(true);
        expect(result.body.nextAfter).toBeGreaterThanOrEqual(result.before + 100);
      }
    });

    it('refuses a forged proof with 1000 (401) without spending the nonce, and a replayed nonce', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 300,
      });
      const nonce = randomBytes(32);
      const forged = await bench.heartbeat(licensed.device, licensed.seat, {
        nonce,
        signer: newDevice().signer,
      });
      expect([forged.status, errorOf(forged).code]).toEqual([401, 1000]);
      expect((await machineRow(bench, licensed.machineId)).last_heartbeat_at).toBeNull();
      expect((await heartbeat(licensed, nonce)).body.ok).toBe(true);
      const replay = await bench.heartbeat(licensed.device, licensed.seat, {
        nonce,
      });
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      // A validate nonce and a heartbeat nonce share the machine's nonce space: no cross-route replay either.
      const validate = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      expect([validate.status, errorOf(validate).code]).toEqual([401, 1000]);
    });

    it('answers ok: false to a machine that no longer holds a seat (revoked)', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 300,
      });
      await adminRevoke(bench, 'machines', licensed.machineId);
      expect((await heartbeat(licensed)).body.ok).toBe(false);
    });

    it('reclaims exactly the machines silent past the window: not at the boundary, and not one that kept beating', async () => {
      const silent = await licensedDevice(bench, {
        heartbeat_window_seconds: 120,
      });
      const beating = await licensedDevice(bench, {
        heartbeat_window_seconds: 120,
      });
      // Both were last seen ten minutes ago; then one beats.
      const silentSince = new Date(Date.now() - 600_000);
      await bench.admin.sql.query('UPDATE license_machines SET last_seen_at = $2 WHERE machine_id = ANY($1)', [[silent.machineId, beating.machineId], silentSince]);
      expect((await heartbeat(beating)).body.ok).toBe(true);
      const reclaim = reclaimJob(bench);
      try {
        // At exactly the window's end the machine is not yet past it.
        expect((await reclaim.runAt(silentSince.getTime() + 120_000)).map((seat) => seat.machineId)).not.toContain(silent.machineId);
        const reclaimed = await reclaim.runAt(silentSince.getTime() + 120_001);
        expect(reclaimed.map((seat) => seat.machineId)).toContain(silent.machineId);
        expect(reclaimed.map((seat) => seat.machineId)).not.toContain(beating.machineId);
        expect(reclaimed.find((seat) => seat.machineId === silent.machineId)).toEqual({
          machineId: silent.machineId,
          licenseId: silent.licenseId,
          vendorId: bench.admin.vendorA.vendorId,
          lastSeenAt: silentSince,
        });
        expect(await machineRow(bench, beating.machineId)).toMatchObject({
          status: 'active',
        });
        // A later run does not take it twice.
        expect((await reclaim.runAt(Date.now())).map((seat) => seat.machineId)).not.toContain(silent.machineId);
      } finally {
        await reclaim.job.close();
      }
      const audit = await bench.admin.sql.query<{
        action: string;
        actor: string;
      }>("SELECT action, actor FROM license_audit_events WHERE target_id = $1 AND action = 'machine.reclaim'", [silent.machineId]);
      expect(audit.rows).toEqual([{ action: 'machine.reclaim', actor: seatReclaimActor }]);
    });

    raceCase(
      'reclaims each silent seat exactly once with several job runs at once, and a racing heartbeat either keeps its seat or answers ok: false',
      () => ({ engine: engine.name }),
      async () => {
        const first = await licensedDevice(bench, { heartbeat_window_seconds: 60, seats: 20 });
        const machines = [{ device: first.device, seat: first.seat }];
        for (let n = 0; n < 11; n += 1) {
          const device = newDevice();
          machines.push({ device, seat: await bench.seat(device, { licenseKey: first.licenseKey }) });
        }
        const ids = machines.map((machine) => Buffer.from(machine.seat.machineId).toString('hex'));
        await bench.admin.sql.query("UPDATE license_machines SET last_seen_at = now() - interval '10 minutes' WHERE machine_id = ANY($1)", [ids]);
        const jobs = Array.from({ length: 4 }, () => reclaimJob(bench));
        try {
          const [runs, beats] = await Promise.all([
            Promise.all(jobs.map((job) => job.runAt(Date.now()))),
            Promise.all(machines.map(async (machine) => decodeLicenseMessage('heartbeat-response', (await bench.heartbeat(machine.device, machine.seat)).bytes).ok)),
          ]);
          const reclaimed = runs
            .flat()
            .map((seat) => seat.machineId)
            .filter((id) => ids.includes(id));
          expect(new Set(reclaimed).size).toBe(reclaimed.length);
          for (const [index, id] of ids.entries()) {
            const row = await machineRow(bench, id);
            const audits = await bench.admin.sql.query("SELECT 1 FROM license_audit_events WHERE target_id = $1 AND action = 'machine.reclaim'", [id]);
            expect(audits.rows.length, id).toBe(reclaimed.includes(id) ? 1 : 0);
            expect(row.status === 'active', id).toBe(!reclaimed.includes(id));
            expect(beats[index], id).toBe(row.status === 'active');
          }
        } finally {
          await Promise.all(jobs.map((job) => job.job.close()));
        }
      }
    );

    it('never reclaims machines under a policy without a window, nor offline activations', async () => {
      const noWindow = await licensedDevice(bench, {
        heartbeat_window_seconds: null,
      });
      const offlinePolicy = await licensedDevice(bench, {
        heartbeat_window_seconds: 60,
        offline_allowed: true,
      });
      const offlineDevice = newDevice();
      const offline = await bench.offline(offlineDevice, {
        licenseKey: offlinePolicy.licenseKey,
      });
      expect(offline.status).toBe(200);
      const { rows } = await bench.admin.sql.query<{ machine_id: string }>('SELECT machine_id FROM license_machines WHERE license_id = $1 AND offline', [offlinePolicy.licenseId]);
      expect(rows).toHaveLength(1);
      const reclaim = reclaimJob(bench);
      try {
        const reclaimed = (await reclaim.runAt(Date.now() + 30 * 86_400_000)).map((seat) => seat.machineId);
        expect(reclaimed).not.toContain(noWindow.machineId);
        expect(reclaimed).not.toContain(rows[0]?.machine_id);
        expect(reclaimed).toContain(offlinePolicy.machineId);
      } finally {
        await reclaim.job.close();
      }
    });

    it('frees the reclaimed seat: the silent device gets a kill order of reason 3 and a new device takes the seat', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 60,
        seats: 1,
      });
      const newcomer = newDevice();
      const refused = await activateAnother(bench, licensed, newcomer);
      expect([refused.status, errorOf(refused).code]).toEqual([409, 1001]);
      const { last_seen_at: lastSeen } = await machineRow(bench, licensed.machineId);
      const reclaim = reclaimJob(bench);
      try {
        expect((await reclaim.runAt(lastSeen.getTime() + 61_000)).map((seat) => seat.machineId)).toContain(licensed.machineId);
      } finally {
        await reclaim.job.close();
      }
      expect((await heartbeat(licensed)).body.ok).toBe(false);
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(3);
      const seat = await bench.seat(newcomer, {
        licenseKey: licensed.licenseKey,
      });
      expect((await ticketOf(bench, await bench.validate(newcomer, seat))).verdict).toBe(0);
      // The reclaimed device can come back only by activating again, which needs a free seat.
      const back = await activateAnother(bench, licensed, licensed.device);
      expect([back.status, errorOf(back).code]).toEqual([409, 1001]);
    });

    it('runs the server’s own job: runOnce reclaims a machine whose silence is already past the window', async () => {
      const licensed = await licensedDevice(bench, {
        heartbeat_window_seconds: 60,
      });
      await bench.admin.sql.query("UPDATE license_machines SET last_seen_at = now() - interval '2 minutes' WHERE machine_id = $1", [licensed.machineId]);
      const reclaimed = await bench.admin.server.context.seatReclaim.runOnce();
      expect(reclaimed.map((seat) => seat.machineId)).toContain(licensed.machineId);
      expect(await machineRow(bench, licensed.machineId)).toMatchObject({
        status: 'deactivated',
        deactivation_reason: 'reclaimed',
      });
    });
  });
}
