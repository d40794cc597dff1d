/**
 * `POST /v1/activate` over real HTTP on each engine: Idempotency-Key replays and conflicts, proof of
 * possession (a forged proof never consumes the nonce) and nonce replays, and on PostgreSQL concurrent
 * twins and concurrent uses of one nonce.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { freshKey } from '../admin/admin-harness';
import { activationBody, expectClientError, issueClientLicense, newDevice, openClientBench, postCbor, verifyAsClient, type ClientBench } from './client-harness';
import { serverEngines } from '../helpers';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');

/** Re-encodes a signed body with `edit` applied to its map (the proof no longer matches unless re-signed). */
function editBody(bytes: Uint8Array, edit: (map: Map<CborKey, CborValue>) => void): Uint8Array {
  const map = decodeCanonical(bytes) as Map<CborKey, CborValue>;
  edit(map);
  return encodeCanonical(map);
}

for (const engine of serverEngines) {
  describe(`POST /v1/activate: replays and proofs [${engine.name}]`, () => {
    let bench: ClientBench;
    const activeMachines = async (licenseId: string) =>
      (
        await bench.admin.sql.query<{ machine_id: string }>("SELECT machine_id FROM license_machines WHERE license_id = $1 AND status = 'active' ORDER BY machine_id", [licenseId])
      ).rows.map((row) => row.machine_id);

    beforeAll(async () => {
      bench = await openClientBench(engine);
    });
    afterAll(() => bench?.close());
    describe('Idempotency-Key', () => {
      it('replays the same key and body byte for byte, even after the nonce was spent, without a second machine', async () => {
        const license = await issueClientLicense(bench);
        const device = newDevice();
        const body = await activationBody('activation-request', device, { licenseKey: license.key }, bench.productId);
        const key = freshKey();
        const first = await postCbor(bench.url, '/v1/activate', body, {
          'idempotency-key': key,
        });
        const second = await postCbor(bench.url, '/v1/activate', body, {
          'idempotency-key': key,
        });
        expect(first.status).toBe(200);
        expect(second.status).toBe(200);
        expect(second.bytes).toEqual(first.bytes);
        expect(await activeMachines(license.licenseId)).toHaveLength(1);
        // The same body under another key is a replayed nonce.
        expectClientError(
          await postCbor(bench.url, '/v1/activate', body, {
            'idempotency-key': freshKey(),
          }),
          1000,
          401,
        );
      });

      it('answers the same key with another body 1000 with HTTP 409, and changes nothing', async () => {
        const license = await issueClientLicense(bench);
        const device = newDevice();
        const key = freshKey();
        expect((await bench.activate(device, { licenseKey: license.key }, { key })).status).toBe(200);
        const conflict = expectClientError(await bench.activate(device, { licenseKey: license.key }, { key }), 1000, 409);
        expect(conflict.message).toMatch(/Idempotency-Key/);
        expect(await activeMachines(license.licenseId)).toHaveLength(1);
      });

      it('keeps keys of different devices apart (the key is scoped to the device key)', async () => {
        const license = await issueClientLicense(bench);
        const key = freshKey();
        const a = await verifyAsClient(bench, (await bench.activate(newDevice(), { licenseKey: license.key }, { key })).bytes, 'machine-credential');
        const b = await verifyAsClient(bench, (await bench.activate(newDevice(), { licenseKey: license.key }, { key })).bytes, 'machine-credential');
        expect(a.machineId).not.toEqual(b.machineId);
      });

      it('refuses a missing key, an empty one, one of 129 characters and one with spaces or non-ASCII (1000, 400); takes 128', async () => {
        const license = await issueClientLicense(bench, { seats: 10 });
        expectClientError(await bench.activate(newDevice(), { licenseKey: license.key }, { key: null }), 1000, 400);
        // (fetch sends header values as Latin-1, so 'clé' reaches the server with a byte above 0x7e.)
        for (const key of ['x'.repeat(129), 'has space', 'clé', '']) {
          const answer = await bench.activate(newDevice(), { licenseKey: license.key }, { key });
          expectClientError(answer, 1000, 400);
        }
        expect((await bench.activate(newDevice(), { licenseKey: license.key }, { key: 'k'.repeat(128) })).status).toBe(200);
        expect(await activeMachines(license.licenseId)).toHaveLength(1);
      });

      it.skipIf(engine.name !== 'postgres')('answers 20 concurrent twins (same key, same body) with one activation and identical bytes', async () => {
        const license = await issueClientLicense(bench);
        const body = await activationBody('activation-request', newDevice(), { licenseKey: license.key }, bench.productId);
        const key = freshKey();
        const answers = await Promise.all(
          Array.from({ length: 20 }, () =>
            postCbor(bench.url, '/v1/activate', body, {
              'idempotency-key': key,
            }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
        for (const answer of answers) expect(answer.bytes).toEqual(answers[0]!.bytes);
        expect(await activeMachines(license.licenseId)).toHaveLength(1);
      });
    });

    describe('proof of possession and nonces', () => {
      it('refuses a forged proof (1000, 401) without consuming the nonce: the genuine request with that nonce then succeeds', async () => {
        const license = await issueClientLicense(bench);
        const device = newDevice();
        const nonce = randomBytes(32);
        const genuine = await activationBody('activation-request', device, { licenseKey: license.key }, bench.productId, { nonce });
        // Signed by another key while naming the device's key.
        const impostor = newDevice(device.fingerprint);
        const forgedBody = editBody(await activationBody('activation-request', impostor, { licenseKey: license.key }, bench.productId, { nonce }), (map) =>
          map.set(4, device.publicKey),
        );
        expectClientError(
          await postCbor(bench.url, '/v1/activate', forgedBody, {
            'idempotency-key': freshKey(),
          }),
          1000,
          401,
        );
        // A flipped bit of a real proof, and a field changed after signing.
        const flipped = editBody(genuine, (map) => {
          const proof = new Uint8Array(map.get(15) as Uint8Array);
          proof[10] = (proof[10] as number) ^ 1;
          map.set(15, proof);
        });
        expectClientError(
          await postCbor(bench.url, '/v1/activate', flipped, {
            'idempotency-key': freshKey(),
          }),
          1000,
          401,
        );
        const tampered = editBody(genuine, (map) => map.set(3, randomBytes(32)));
        expectClientError(
          await postCbor(bench.url, '/v1/activate', tampered, {
            'idempotency-key': freshKey(),
          }),
          1000,
          401,
        );
        expect(await activeMachines(license.licenseId)).toEqual([]);
        expect(
          (
            await postCbor(bench.url, '/v1/activate', genuine, {
              'idempotency-key': freshKey(),
            })
          ).status,
        ).toBe(200);
      });

      it('refuses a request without a proof (1000, 400) and an offline-request proof presented to /v1/activate (1000, 401)', async () => {
        const license = await issueClientLicense(bench);
        const device = newDevice();
        const genuine = await activationBody('activation-request', device, { licenseKey: license.key }, bench.productId);
        expectClientError(
          await postCbor(
            bench.url,
            '/v1/activate',
            editBody(genuine, (map) => map.delete(15)),
            { 'idempotency-key': freshKey() },
          ),
          1000,
          400,
        );
        const otherDomain = await activationBody('offline-request', device, { licenseKey: license.key }, bench.productId);
        expectClientError(
          await postCbor(bench.url, '/v1/activate', otherDomain, {
            'idempotency-key': freshKey(),
          }),
          1000,
          401,
        );
        expect(await activeMachines(license.licenseId)).toEqual([]);
      });

      it('refuses a nonce the device key already used, in another request (1000, 401)', async () => {
        const license = await issueClientLicense(bench);
        const device = newDevice();
        const nonce = randomBytes(32);
        expect((await bench.activate(device, { licenseKey: license.key }, { nonce })).status).toBe(200);
        expectClientError(
          await bench.activate(
            device,
            { licenseKey: license.key },
            {
              nonce,
              clientInfo: {
                appVersion: '1.0.1',
                sdkVersion: '0.1.0',
                os: 'linux',
                arch: 'x64',
              },
            },
          ),
          1000,
          401,
        );
        // A refused activation (no seat) leaves its nonce usable.
        const full = await issueClientLicense(bench, { seats: 1 });
        expect((await bench.activate(newDevice(), { licenseKey: full.key })).status).toBe(200);
        const waiting = newDevice();
        const waitingNonce = randomBytes(32);
        expectClientError(await bench.activate(waiting, { licenseKey: full.key }, { nonce: waitingNonce }), 1001, 409);
        await bench.admin.call('PATCH', `/licenses/${full.licenseId}`, {
          body: { seats_override: 2 },
          key: freshKey(),
        });
        expect((await bench.activate(waiting, { licenseKey: full.key }, { nonce: waitingNonce })).status).toBe(200);
      });
    });
  });
}

describe.skipIf(postgres === undefined)('POST /v1/activate: nonce races [postgres]', () => {
  let bench: ClientBench;
  beforeAll(async () => {
    bench = await openClientBench(postgres!);
  });
  afterAll(() => bench?.close());

  it('lets exactly one of 10 concurrent requests with the same nonce (different keys and bodies) through', async () => {
    const license = await issueClientLicense(bench, { seats: 10 });
    const device = newDevice();
    const nonce = randomBytes(32);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        bench.activate(
          device,
          { licenseKey: license.key },
          {
            nonce,
            clientInfo: {
              appVersion: `1.0.${n}`,
              sdkVersion: '0.1.0',
              os: 'linux',
              arch: 'x64',
            },
          },
        ),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) expectClientError(answer, 1000, 401);
  });
});
