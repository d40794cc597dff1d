/**
 * The typed device calls of `@tollgate/client-sdk` against a real license server over real HTTP, on
 * each engine: the life cycle (activate → validate → heartbeat → deactivate → kill order), offline
 * activation, account-token activation, the server's error codes, and the answers the SDK must never
 * return (a tampered byte, a genuine ticket for another nonce). A `fetch` wrapper is the only fault
 * injection: the server and its signatures are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNobleEd25519Signer, hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeDeviceRequest, isArtifactError, signDeviceRequest, type ClientInfo } from '@tollgate/core/license';
import {
  activate,
  createArtifactVerifier,
  createKeysetFetcher,
  createRevocationFollower,
  deactivate,
  heartbeat,
  LicenseRequestError,
  login,
  requestOffline,
  ResponseMismatchError,
  validate,
  type ActivateInput,
  type DeviceCallOptions,
  type FetchFunction,
} from '@tollgate/client-sdk';
import { freshKey } from './admin/admin-harness';
import { issueLicenses, seedPolicy } from './admin/admin-license-fixtures';
import { openClientBench, type ClientBench } from './client/client-harness';
import { serverEngines } from './helpers';

const clientInfo: ClientInfo = { appVersion: '1.0.0', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' };
const now = () => Math.floor(Date.now() / 1000);

/** A device as an app holds it: an Ed25519 key (noble, as in a browser), a KEM public key, a fingerprint. */
function newDevice(fingerprint = randomBytes(32)) {
  return { deviceKey: createNobleEd25519Signer({ privateKey: randomBytes(32), kid: 'device' }), kemPublicKey: randomBytes(32), fingerprint };
}

/** The SDK options an app builds: keyset pinned to the server's roots, revocation feed, verifier. */
function sdkOptions(bench: ClientBench, fetch?: FetchFunction): DeviceCallOptions {
  const baseUrl = bench.url;
  const keysets = createKeysetFetcher({ baseUrl, pinnedRoots: bench.admin.server.context.pinnedRoots });
  const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get() });
  const verifier = createArtifactVerifier({ keysets, revocations, productId: bench.productId });
  return { baseUrl, verifier, ...(fetch === undefined ? {} : { fetch }) };
}

/** A `fetch` that hands the answers of `path` to `rewrite` (the server still handles every request). */
function rewritingFetch(path: string, rewrite: (bytes: Uint8Array, call: number) => Uint8Array): FetchFunction {
  let calls = 0;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!new URL(input).pathname.endsWith(path)) return response;
    const bytes = rewrite(new Uint8Array(await response.arrayBuffer()), (calls += 1));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(bytes as BodyInit, { status: response.status, headers });
  };
}

/** A copy with one bit flipped at `at(length)`. */
function flipped(bytes: Uint8Array, at: (length: number) => number): Uint8Array {
  const copy = bytes.slice();
  const index = at(copy.length);
  copy[index] = (copy[index] as number) ^ 0x01;
  return copy;
}
const lastByte = (length: number) => length - 1;
const middleByte = (length: number) => length >> 1;

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

for (const engine of serverEngines) {
  describe(`client SDK device calls [${engine.name}]`, () => {
    let bench: ClientBench;
    let options: DeviceCallOptions;

    /** A fresh license of vendor A's product (3 seats, offline allowed unless `terms` say otherwise). */
    const newLicense = async (terms: Record<string, unknown> = {}, issue: Record<string, unknown> = {}) => {
      const [license] = await issueLicenses(bench.admin, await seedPolicy(bench.admin, bench.admin.vendorA, terms), issue);
      if (license === undefined) throw new Error('no license issued');
      return license;
    };
    const activation = (device: ReturnType<typeof newDevice>, licenseKey: string): ActivateInput => ({ productId: bench.productId, credential: { licenseKey }, clientInfo, ...device });
    const machineStatus = async (machineId: Uint8Array) =>
      (await bench.admin.sql.query<{ status: string }>('SELECT status FROM license_machines WHERE machine_id = $1', [hexEncode(machineId)])).rows[0]?.status;

    beforeAll(async () => {
      bench = await openClientBench(engine);
      options = sdkOptions(bench);
    });
    afterAll(() => bench?.close());

    it('runs the life cycle: activate, validate (ticket), heartbeat, deactivate, then validate answers kind "kill"', async () => {
      const license = await newLicense();
      const device = newDevice();
      const { credential, envelope, idempotencyKey } = await activate(options, activation(device, license.key));
      expect(hexEncode(credential.licenseId)).toBe(license.license_id);
      expect(credential.devicePublicKey).toEqual(device.deviceKey.publicKey);
      expect(idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
      expect(await options.verifier.verify(envelope, 'machine-credential')).toMatchObject({ payload: { machineId: credential.machineId } });
      expect(await machineStatus(credential.machineId)).toBe('active');

      const session = { productId: bench.productId, seat: credential, deviceKey: device.deviceKey };
      const validated = await validate(options, { ...session, fingerprint: device.fingerprint, clientInfo });
      if (validated.kind !== 'ticket') throw new Error(`expected a ticket, got ${validated.kind}`);
      expect(validated.ticket.verdict).toBe(0);
      expect(validated.ticket.machineId).toEqual(credential.machineId);
      expect(validated.ticket.serverTime).toBeGreaterThanOrEqual(now() - 60);

      const beat = await heartbeat(options, session);
      expect(beat.ok).toBe(true);
      expect(beat.nextAfter).toBeGreaterThan(now() - 60);

      await deactivate(options, session);
      expect(await machineStatus(credential.machineId)).toBe('deactivated');
      await deactivate(options, session); // idempotent: nothing left to free, same answer
      expect((await heartbeat(options, session)).ok).toBe(false);

      const after = await validate(options, { ...session, fingerprint: device.fingerprint, clientInfo });
      if (after.kind !== 'kill') throw new Error(`expected a kill order, got ${after.kind}`);
      expect(after.order.reason).toBe(3);
      expect(after.order.machineId).toEqual(credential.machineId);
    });

    it('activates with an account access token from login()', async () => {
      const email = `sdk-${engine.name}-${Math.random().toString(36).slice(2, 10)}@example.com`;
      const password = 'correct horse battery staple';
      const created = await bench.admin.call('POST', '/accounts', { key: freshKey(), body: { product_id: bench.productId, email, password } });
      expect(created.status).toBe(201);
      const license = await newLicense({}, { account_id: created.body.account.account_id });
      const session = await login({ baseUrl: bench.url }, { productId: bench.productId, email, password });
      const device = newDevice();
      const { credential } = await activate(options, { productId: bench.productId, credential: { accountToken: session.accessToken }, clientInfo, ...device });
      expect(hexEncode(credential.licenseId)).toBe(license.license_id);
    });

    it('returns a verified offline answer: valid until server time + 7 days, its credential naming this device', async () => {
      const license = await newLicense();
      const device = newDevice();
      const { answer, credential, envelope } = await requestOffline(options, { ...activation(device, license.key), credential: { licenseKey: license.key } });
      expect(answer.validUntil).toBe(answer.serverTime + 7 * 86_400);
      expect(answer.nonceEcho).toEqual(credential.nonceEcho);
      expect(credential.fingerprint).toEqual(device.fingerprint);
      expect(hexEncode(credential.licenseId)).toBe(license.license_id);
      expect((await options.verifier.verify(envelope, 'offline-response')).payload.credential).toEqual(answer.credential);
    });

    it('maps the server codes: 1001 with no seat left, 1000 for an unknown key, 1000 (403) offline when the policy forbids it', async () => {
      const license = await newLicense({ seats: 1 });
      await activate(options, activation(newDevice(), license.key));
      const full = await rejectionOf(activate(options, activation(newDevice(), license.key)));
      expect(full).toBeInstanceOf(LicenseRequestError);
      expect(full).toMatchObject({ code: 1001, status: 409 });

      const unknown = await rejectionOf(activate(options, activation(newDevice(), `NOPE-${Math.random().toString(36).slice(2)}`)));
      expect(unknown).toMatchObject({ name: 'LicenseRequestError', code: 1000 });

      const online = await newLicense({ offline_allowed: false });
      const offline = await rejectionOf(requestOffline(options, { ...activation(newDevice(), online.key), credential: { licenseKey: online.key } }));
      expect(offline).toMatchObject({ name: 'LicenseRequestError', code: 1000, status: 403 });
    });

    it('never returns a tampered answer: one flipped bit in a credential or a ticket is a verification error', async () => {
      const license = await newLicense();
      const device = newDevice();
      // The last byte is the signature's, the middle one the payload's: both must fail verification.
      for (const index of [lastByte, middleByte]) {
        const tampering = sdkOptions(bench, rewritingFetch('/v1/activate', (bytes) => flipped(bytes, index)));
        const error = await rejectionOf(activate(tampering, activation(device, license.key)));
        expect(isArtifactError(error), String(error)).toBe(true);
      }
      const { credential } = await activate(options, activation(device, license.key)); // same fingerprint: the same seat
      const session = { productId: bench.productId, seat: credential, deviceKey: device.deviceKey, fingerprint: device.fingerprint, clientInfo };
      const tampering = sdkOptions(bench, rewritingFetch('/v1/validate', (bytes) => flipped(bytes, lastByte)));
      const error = await rejectionOf(validate(tampering, session));
      expect(error).toMatchObject({ name: 'ArtifactError', code: 'bad_signature' });
    });

    it('refuses a genuine ticket signed for another nonce, and a genuine credential for another device', async () => {
      const license = await newLicense();
      const device = newDevice();
      const { credential } = await activate(options, activation(device, license.key));
      const session = { productId: bench.productId, seat: credential, deviceKey: device.deviceKey, fingerprint: device.fingerprint, clientInfo };
      // The wrapper keeps the server's first ticket and answers the second request with it.
      let first: Uint8Array | undefined;
      const replaying = sdkOptions(bench, rewritingFetch('/v1/validate', (bytes, call) => (call === 1 ? (first = bytes) : (first as Uint8Array))));
      expect((await validate(replaying, session)).kind).toBe('ticket');
      const replayed = await rejectionOf(validate(replaying, session));
      expect(replayed).toBeInstanceOf(ResponseMismatchError);
      expect(replayed).toMatchObject({ code: 'nonce_mismatch' });

      // A credential the server really signed for this request's nonce, but for another device: the
      // wrapper swaps the request for one another device signed with the same nonce.
      const other = newDevice();
      const swapping: FetchFunction = async (input, init) => {
        const request = decodeDeviceRequest('activation-request', init?.body as Uint8Array);
        const { proof: _proof, ...unsigned } = { ...request, devicePublicKey: other.deviceKey.publicKey, fingerprint: other.fingerprint, deviceKemKey: other.kemPublicKey };
        return fetch(input, { ...init, body: (await signDeviceRequest('activation-request', unsigned, other.deviceKey)) as BodyInit });
      };
      const swapped = await rejectionOf(activate(sdkOptions(bench, swapping), activation(device, license.key)));
      expect(swapped).toMatchObject({ name: 'ResponseMismatchError', code: 'device_mismatch' });
    });

    it('resends the identical activation after a lost answer: one seat, the same credential bytes', async () => {
      const license = await newLicense({ seats: 1 });
      const sent: { key: string | null; body: string }[] = [];
      let lost = false;
      const losing: FetchFunction = async (input, init) => {
        const headers = new Headers(init?.headers);
        sent.push({ key: headers.get('idempotency-key'), body: hexEncode(init?.body as Uint8Array) });
        const response = await fetch(input, init);
        if (!lost) {
          lost = true;
          await response.arrayBuffer();
          throw new TypeError('fetch failed: connection reset'); // the server committed; the answer is lost
        }
        return response;
      };
      const device = newDevice();
      const { credential } = await activate(sdkOptions(bench, losing), activation(device, license.key));
      expect(sent).toHaveLength(2);
      expect(sent[1]).toEqual(sent[0]);
      const { rows } = await bench.admin.sql.query<{ machine_id: string }>('SELECT machine_id FROM license_machines WHERE license_id = $1', [license.license_id]);
      expect(rows.map((row) => row.machine_id)).toEqual([hexEncode(credential.machineId)]);
    });
  });

  describe(`client SDK device calls under a rate limit [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, { LICENSE_RATE_LIMIT_PER_LICENSE: '1/3600' });
    });
    afterAll(() => bench?.close());

    it('surfaces 1005 with the server retry_after', async () => {
      const options = sdkOptions(bench);
      const [license] = await issueLicenses(bench.admin, await seedPolicy(bench.admin, bench.admin.vendorA));
      const device = newDevice();
      const { credential } = await activate(options, { productId: bench.productId, credential: { licenseKey: license!.key }, clientInfo, ...device });
      const session = { productId: bench.productId, seat: credential, deviceKey: device.deviceKey, fingerprint: device.fingerprint, clientInfo };
      expect((await validate(options, session)).kind).toBe('ticket');
      const limited = await rejectionOf(validate(options, session));
      expect(limited).toBeInstanceOf(LicenseRequestError);
      expect(limited).toMatchObject({ code: 1005, status: 429 });
      expect((limited as LicenseRequestError).retryAfterSeconds).toBeGreaterThan(3000);
    });
  });
}
