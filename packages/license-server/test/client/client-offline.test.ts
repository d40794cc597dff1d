/**
 * `POST /v1/offline/request` over real HTTP on each engine: license-key credentials only, an answer an
 * air-gapped device verifies with the certificates it carries, `valid_until` = server time + 7 days, a
 * replayed nonce answered with the archived bytes, the Idempotency-Key contract, and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { requestProofMessage } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import {
  activationBody,
  expectClientError,
  issueClientLicense,
  newDevice,
  openClientBench,
  postCbor,
  signedInAccount,
  verifyOfflineAnswer,
  type ClientBench,
} from './client-harness';
import { serverEngines } from '../helpers';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');
const sevenDays = 7 * 86_400;

for (const engine of serverEngines) {
  describe(`POST /v1/offline/request [${engine.name}]`, () => {
    let bench: ClientBench;
    const machinesOf = async (licenseId: string) =>
      (
        await bench.admin.sql.query<{ machine_id: string; offline: boolean }>("SELECT machine_id, offline FROM license_machines WHERE license_id = $1 AND status = 'active'", [
          licenseId,
        ])
      ).rows;

    beforeAll(async () => {
      bench = await openClientBench(engine);
    });
    afterAll(() => bench?.close());

    it('answers a license key with an offline response that verifies with its own certificates; valid_until = server_time + 7 days', async () => {
      const expiresAt = new Date(Date.now() + 90 * 86_400_000);
      const license = await issueClientLicense(bench, { heartbeat_window_seconds: 600 }, { expires_at: expiresAt.toISOString() });
      const device = newDevice();
      const nonce = randomBytes(32);
      const before = Math.floor(Date.now() / 1000);
      const answer = await bench.offline(device, { licenseKey: license.key }, { nonce });
      const after = Math.ceil(Date.now() / 1000);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/cbor');
      expect(answer.headers.get('cache-control')).toBe('no-store');

      const { answer: offline, credential } = verifyOfflineAnswer(bench, answer.bytes);
      expect(offline.protoVersion).toBe(1);
      expect(offline.nonceEcho).toEqual(nonce);
      expect(offline.serverTime).toBeGreaterThanOrEqual(before);
      expect(offline.serverTime).toBeLessThanOrEqual(after);
      expect(offline.validUntil).toBe(offline.serverTime + sevenDays);
      expect(offline.certificates.length).toBeGreaterThanOrEqual(1);
      const [machine] = await machinesOf(license.licenseId);
      expect(machine).toEqual({
        machine_id: expect.any(String),
        offline: true,
      });
      expect(credential).toMatchObject({
        protoVersion: 1,
        licenseId: hexDecode(license.licenseId),
        machineId: hexDecode(machine!.machine_id),
        fingerprint: device.fingerprint,
        devicePublicKey: device.publicKey,
        nonceEcho: nonce,
        issuedAt: offline.serverTime,
        expiresAt: Math.floor(expiresAt.getTime() / 1000),
        // Offline credentials are offline-capable whatever the policy's heartbeats, refreshed at the license's end.
        refreshAfter: Math.floor(expiresAt.getTime() / 1000),
        mode: 0,
      });
      // The answer verifies against the keyset too, as a connected client would check it.
      expect((await bench.verify(answer.bytes, 'offline-response')).validUntil).toBe(offline.validUntil);
      const audit = await bench.admin.sql.query<{ action: string }>("SELECT action FROM license_audit_events WHERE target_type = 'machine' AND target_id = $1", [
        machine!.machine_id,
      ]);
      expect(audit.rows.map((row) => row.action)).toEqual(['machine.activate_offline']);
    });

    it('answers a replayed nonce with the archived bytes, whatever the Idempotency-Key or the rest of the body, and takes no other seat', async () => {
      const license = await issueClientLicense(bench, { seats: 5 });
      const device = newDevice();
      const nonce = randomBytes(32);
      const first = await bench.offline(device, { licenseKey: license.key }, { nonce });
      expect(first.status).toBe(200);
      const sameBody = await activationBody('offline-request', device, { licenseKey: license.key }, bench.productId, { nonce });
      const replays = [
        await postCbor(bench.url, '/v1/offline/request', sameBody, {
          'idempotency-key': freshKey(),
        }),
        await bench.offline(
          device,
          { licenseKey: license.key },
          {
            nonce,
            clientInfo: {
              appVersion: '1.0.9',
              sdkVersion: '0.1.0',
              os: 'linux',
              arch: 'x64',
            },
          },
        ),
        await bench.offline(newDevice(), { licenseKey: license.key }, { nonce }),
      ];
      for (const replay of replays) {
        expect(replay.status).toBe(200);
        expect(replay.bytes).toEqual(first.bytes);
      }
      expect(await machinesOf(license.licenseId)).toHaveLength(1);
      // A fresh nonce of the same device gets a fresh answer on the same seat.
      const fresh = await bench.offline(device, { licenseKey: license.key });
      expect(fresh.bytes).not.toEqual(first.bytes);
      expect(verifyOfflineAnswer(bench, fresh.bytes).credential.machineId).toEqual(verifyOfflineAnswer(bench, first.bytes).credential.machineId);
      expect(await machinesOf(license.licenseId)).toHaveLength(1);
    });

    it('requires an Idempotency-Key (1000, 400), replays one byte for byte, and answers it with another body 1000 with 409', async () => {
      const license = await issueClientLicense(bench);
      const device = newDevice();
      expectClientError(await bench.offline(device, { licenseKey: license.key }, { key: null }), 1000, 400);
      expectClientError(await bench.offline(device, { licenseKey: license.key }, { key: 'k'.repeat(129) }), 1000, 400);
      const key = freshKey();
      const body = await activationBody('offline-request', device, { licenseKey: license.key }, bench.productId);
      const first = await postCbor(bench.url, '/v1/offline/request', body, {
        'idempotency-key': key,
      });
      const again = await postCbor(bench.url, '/v1/offline/request', body, {
        'idempotency-key': key,
      });
      expect(first.status).toBe(200);
      expect(again.bytes).toEqual(first.bytes);
      expectClientError(await bench.offline(device, { licenseKey: license.key }, { key }), 1000, 409);
      expect(await machinesOf(license.licenseId)).toHaveLength(1);
    });

    it('refuses an account token (1000, 400) even with a valid proof, and takes no seat', async () => {
      const account = await signedInAccount(bench);
      const license = await issueClientLicense(bench, {}, { account_id: account.accountId });
      const device = newDevice();
      const map = new Map<CborKey, CborValue>([
        [0, 1],
        [1, bench.productId],
        [2, new Map<CborKey, CborValue>([[1, account.accessToken]])],
        [3, device.fingerprint],
        [4, device.publicKey],
        [5, device.kemKey],
        [6, randomBytes(32)],
        [7, Math.floor(Date.now() / 1000)],
        [
          8,
          new Map<CborKey, CborValue>([
            [0, '1.0.0'],
            [1, '0.1.0'],
            [2, 'linux'],
            [3, 'x64'],
          ]),
        ],
      ]);
      map.set(15, await device.signer.sign(requestProofMessage('offline-request', bench.productId, map)));
      const refused = expectClientError(
        await postCbor(bench.url, '/v1/offline/request', encodeCanonical(map), {
          'idempotency-key': freshKey(),
        }),
        1000,
        400,
      );
      expect(refused.message).toMatch(/license key/);
      expect(await machinesOf(license.licenseId)).toEqual([]);
    });

    it('refuses a license whose policy does not allow offline activation (1000, 403), and a full one with 1001', async () => {
      const online = await issueClientLicense(bench, {
        offline_allowed: false,
      });
      expectClientError(await bench.offline(newDevice(), { licenseKey: online.key }), 1000, 403);
      expect((await bench.activate(newDevice(), { licenseKey: online.key })).status).toBe(200);
      const single = await issueClientLicense(bench, { seats: 1 });
      expect((await bench.offline(newDevice(), { licenseKey: single.key })).status).toBe(200);
      expectClientError(await bench.offline(newDevice(), { licenseKey: single.key }), 1001, 409);
      expectClientError(await bench.offline(newDevice(), { licenseKey: 'UNKNOWN-KEY' }), 1000, 401);
    });

    it('refuses a forged proof (1000, 401) without archiving anything under the nonce', async () => {
      const license = await issueClientLicense(bench);
      const device = newDevice();
      const nonce = randomBytes(32);
      const forged = await activationBody('offline-request', newDevice(device.fingerprint), { licenseKey: license.key }, bench.productId, { nonce });
      const map = decodeCanonical(forged) as Map<CborKey, CborValue>;
      map.set(4, device.publicKey);
      expectClientError(
        await postCbor(bench.url, '/v1/offline/request', encodeCanonical(map), {
          'idempotency-key': freshKey(),
        }),
        1000,
        401,
      );
      const { rows } = await bench.admin.sql.query('SELECT 1 FROM license_offline_responses WHERE nonce = $1', [nonce]);
      expect(rows).toEqual([]);
      expect((await bench.offline(device, { licenseKey: license.key }, { nonce })).status).toBe(200);
      const archived = await bench.admin.sql.query<{ license_id: string }>('SELECT license_id FROM license_offline_responses WHERE nonce = $1', [nonce]);
      expect(archived.rows).toEqual([{ license_id: license.licenseId }]);
    });
  });
}

describe.skipIf(postgres === undefined)('POST /v1/offline/request: concurrent replays [postgres]', () => {
  let bench: ClientBench;
  beforeAll(async () => {
    bench = await openClientBench(postgres!);
  });
  afterAll(() => bench?.close());

  it('answers 20 concurrent requests of one nonce (fresh keys, several devices) with one archived answer and one machine', async () => {
    const license = await issueClientLicense(bench, { seats: 10 });
    const nonce = randomBytes(32);
    const devices = [newDevice(), newDevice(), newDevice()];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => bench.offline(devices[n % 3]!, { licenseKey: license.key }, { nonce })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    for (const answer of answers) expect(answer.bytes).toEqual(answers[0]!.bytes);
    const { rows } = await bench.admin.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_machines WHERE license_id = $1 AND status = 'active'", [
      license.licenseId,
    ]);
    expect(Number(rows[0]!.count)).toBe(1);
  });
});
