/**
 * An offline request spends its nonce in the device key's space, as an online activation does. Its
 * replays are answered from the (license, nonce) archive, but erasing the machine (Admin DELETE or a
 * DSR delete) deletes that archive; the device-key nonce survives erasure (docs/decisions.md, DSR), so
 * the same signed request cannot recreate the erased machine and take its seat back (offline machines
 * are never reclaimed). A new request of the same device (a fresh nonce) still activates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeClientProtocolRecords } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { hexOf } from '../admin/admin-license-fixtures';
import { activationBody, issueClientLicense, newDevice, openClientBench, postCbor, verifyOfflineAnswer, type ClientBench, type Device, type IssuedLicense } from './client-harness';
import { errorOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`POST /v1/offline/request: an erased machine is not recreated by a replay [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
    }, 120_000);
    afterAll(() => bench?.close());

    const activeMachines = async (licenseId: string): Promise<number> => {
      const { rows } = await bench.admin.sql.query<{ n: string }>("SELECT count(*) AS n FROM license_machines WHERE license_id = $1 AND status = 'active'", [licenseId]);
      return Number(rows[0]?.n);
    };

    /** A 1-seat license, a device activated offline on it, the signed request and its machine id. */
    const offlineDevice = async (): Promise<{ license: IssuedLicense; device: Device; body: Uint8Array; machineId: string }> => {
      const license = await issueClientLicense(bench, { seats: 1 });
      const device = newDevice();
      const body = await activationBody('offline-request', device, { licenseKey: license.key }, bench.productId);
      const first = await postCbor(bench.url, '/v1/offline/request', body, { 'idempotency-key': freshKey() });
      expect(first.status).toBe(200);
      // Before any erasure a replay under another key is answered from the archive, byte for byte.
      const again = await postCbor(bench.url, '/v1/offline/request', body, { 'idempotency-key': freshKey() });
      expect(hexOf(again.bytes)).toBe(hexOf(first.bytes));
      return { license, device, body, machineId: hexOf(verifyOfflineAnswer(bench, first.bytes).credential.machineId) };
    };

    it('refuses the same signed offline request after an Admin DELETE of its machine, and takes no seat', async () => {
      const { license, device, body, machineId } = await offlineDevice();
      const erased = await bench.admin.call('DELETE', `/machines/${machineId}`, { query: { dry_run: 'false' }, key: freshKey() });
      expect(erased.status).toBe(200);
      const replay = await postCbor(bench.url, '/v1/offline/request', body, { 'idempotency-key': freshKey() });
      expect({ replay: [replay.status, errorOf(replay).code], activeMachines: await activeMachines(license.licenseId) }).toEqual({ replay: [401, 1000], activeMachines: 0 });
      // The device itself may come back with a new request (a fresh nonce).
      const fresh = await postCbor(bench.url, '/v1/offline/request', await activationBody('offline-request', device, { licenseKey: license.key }, bench.productId), { 'idempotency-key': freshKey() });
      expect(fresh.status).toBe(200);
    });

    it('refuses the same signed offline request after a DSR delete of the license and a purge two days on, and takes no seat', async () => {
      const { license, body } = await offlineDevice();
      const erased = await bench.admin.call('POST', '/dsr/delete', { body: { license_id: license.licenseId }, query: { dry_run: 'false' }, key: freshKey() });
      expect([erased.status, erased.body.erased.machine]).toEqual([200, 1]);
      // Two days on (past the one-day nonce retention, inside the answer's seven days of validity) the
      // purge job has run: the offline nonce is kept as long as its answer could be imported.
      await purgeClientProtocolRecords(bench.admin.sql, new Date(Date.now() + 2 * 86_400_000));
      const replay = await postCbor(bench.url, '/v1/offline/request', body, { 'idempotency-key': freshKey() });
      expect({ replay: [replay.status, errorOf(replay).code], activeMachines: await activeMachines(license.licenseId) }).toEqual({ replay: [401, 1000], activeMachines: 0 });
    });
  });
}
