/**
 * Fuzzes `POST /v1/validate`, `/v1/heartbeat` and `/v1/deactivate` over real HTTP with 5,000 seeded
 * inputs each: random bytes, random CBOR, byte mutations of valid signed requests, and well-typed
 * requests with random contents **signed by the machine's real device key** (so they get past the proof
 * and reach the nonce, the standing checks, the release gate and the telemetry intake). Every answer must
 * be a protocol answer — a verifying ticket or kill order, a session message, or a CBOR error body with
 * a client code — never a 5xx. PGlite only (the inputs exercise parsing and logic, not the engine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { decodeLicenseMessage, inspectArtifact, requestProofMessage, verifyArtifact, type DeviceRequestKind } from '@tollgate/core/license';
import { mutateBytes, randomCbor, seededRandom, type RandomCborOptions, type SeededRandom } from '@tollgate/core/testing';
import { currentKeyset } from '../admin/admin-license-fixtures';
import { openClientBench, postCbor, sessionBody, validateBody, type ClientBench, type RawAnswer } from './client-harness';
import { licensedDevice, type LicensedDevice } from './client-session-helpers';
import { serverEngines } from '../helpers';

const inputsPerRoute = 5000;
const concurrency = 8;

/** The CBOR values the session routes' fuzz inputs are built from. */
const cborValues: RandomCborOptions = {
  ints: [0, 1, 2, 23, 24, 255, 65_536, 2 ** 32, Number.MAX_SAFE_INTEGER],
  byteLengths: [0, 8, 16, 31, 32, 33, 64],
  texts: ['', '1.0.0', 'linux', 'Ünïcödé', '2.0.0-beta.1'],
  longTextMax: 700,
  simples: [true, false],
  arrayLength: 5,
  mapSize: 7,
  textKeyOdds: 8,
  textKeys: ['a', 'edit'],
  intKey: (random) => random.int(16),
};

/** A random value for one field of a session request: mostly the right type, sometimes not. */
function fieldValue(random: SeededRandom, key: number, licensed: LicensedDevice, productId: string): CborValue {
  if (random.int(6) === 0) return randomCbor(random, cborValues, 1);
  switch (key) {
    case 0:
      return random.pick([1, 1, 1, 0, 2]);
    case 1:
      return random.pick([productId, productId, productId, 'another-product', '']);
    case 2:
      return random.pick([licensed.seat.licenseId, licensed.seat.licenseId, random.bytes(16)]);
    case 3:
      return random.pick([licensed.seat.machineId, licensed.seat.machineId, random.bytes(16)]);
    default:
      return random.pick([random.bytes(32), random.int(2 ** 31), random.bytes(16)]);
  }
}

const paths = ['/v1/validate', '/v1/heartbeat', '/v1/deactivate'] as const;
type SessionPath = (typeof paths)[number];
const kinds: Record<SessionPath, DeviceRequestKind> = {
  '/v1/validate': 'validate-request',
  '/v1/heartbeat': 'heartbeat-request',
  '/v1/deactivate': 'deactivate-request',
};
const okStatuses = new Set([200, 400, 401, 403, 409, 413, 415, 426, 429]);
const clientCodes = [1000, 1001, 1003, 1004, 1005, 1007, 1008, 1009];

for (const engine of serverEngines.filter((candidate) => candidate.name === 'pglite')) {
  describe(`session routes: fuzz [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
    }, 120_000);
    afterAll(() => bench?.close());

    /** A well-typed request of the route, with random contents, signed by the device over exactly what is sent. */
    async function signedRandom(random: SeededRandom, path: SessionPath, licensed: LicensedDevice): Promise<Uint8Array> {
      const base =
        path === '/v1/validate'
          ? await validateBody(licensed.device, licensed.seat, bench.productId, {
              knownRevocationEpoch: random.pick([0, 0, 1, 2 ** 31]),
              knownSecurityFloor: random.pick([0, 0, 1, 2 ** 31]),
            })
          : await sessionBody(kinds[path] as 'heartbeat-request' | 'deactivate-request', licensed.device, licensed.seat, bench.productId);
      const map = decodeCanonical(base) as Map<CborKey, CborValue>;
      map.delete(15);
      for (let edits = random.int(3); edits > 0; edits -= 1) {
        const key = random.int(path === '/v1/validate' ? 13 : 7);
        if (random.int(5) === 0) map.delete(key);
        else map.set(key, key === 11 ? randomCbor(random, cborValues, 0) : fieldValue(random, key, licensed, bench.productId));
      }
      const productId = typeof map.get(1) === 'string' ? (map.get(1) as string) : bench.productId;
      map.set(15, await licensed.device.signer.sign(requestProofMessage(kinds[path], productId, map)));
      return encodeCanonical(map);
    }

    for (const [index, path] of paths.entries()) {
      it(`never answers ${inputsPerRoute} fuzzed ${path} bodies with a 5xx`, { timeout: 240_000 }, async () => {
        const random = seededRandom(0x5e55 + index);
        const licensed = await licensedDevice(bench, {
          heartbeat_window_seconds: 300,
          telemetry: 't1',
        });
        const keys = await currentKeyset(bench.admin);
        const seeds = [
          await validateBody(licensed.device, licensed.seat, bench.productId),
          await sessionBody('heartbeat-request', licensed.device, licensed.seat, bench.productId),
          await sessionBody('deactivate-request', licensed.device, licensed.seat, bench.productId),
        ];
        const inputs: (() => Promise<Uint8Array>)[] = [];
        for (let n = 0; n < inputsPerRoute; n += 1) {
          const kind = n % 4;
          if (kind === 0) {
            const bytes = random.bytes(random.int(64));
            inputs.push(async () => bytes);
          } else if (kind === 1) {
            const bytes = encodeCanonical(randomCbor(random, cborValues, 0));
            inputs.push(async () => bytes);
          } else if (kind === 2) {
            const bytes = mutateBytes(random, random.pick(seeds));
            inputs.push(async () => bytes);
          } else {
            inputs.push(() => signedRandom(random, path, licensed));
          }
        }
        const counts = new Map<number, number>();
        const check = (answer: RawAnswer, label: string) => {
          counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
          expect(answer.status, label).toBeLessThan(500);
          expect(okStatuses.has(answer.status), `${label}: status ${answer.status}`).toBe(true);
          if (answer.status !== 200) {
            expect(clientCodes, label).toContain(decodeLicenseMessage('error-body', answer.bytes).code);
          } else if (path === '/v1/validate') {
            const kind = inspectArtifact(answer.bytes).kind;
            expect(['validation-ticket', 'kill-order'], label).toContain(kind);
            // Verifying every answer costs more than the route itself: the first 40 are verified, the rest inspected.
            if ((counts.get(200) ?? 0) <= 40)
              verifyArtifact(answer.bytes, kind as 'validation-ticket' | 'kill-order', { keys, productId: bench.productId, now: Math.floor(Date.now() / 1000) });
          } else {
            decodeLicenseMessage(path === '/v1/heartbeat' ? 'heartbeat-response' : 'deactivate-response', answer.bytes);
          }
        };
        for (let start = 0; start < inputs.length; start += concurrency) {
          const batch = await Promise.all(inputs.slice(start, start + concurrency).map((make) => make()));
          const headers = path === '/v1/deactivate' ? () => ({ 'idempotency-key': `fuzz-${random.int(40)}` }) : () => ({});
          const answers = await Promise.all(batch.map((body) => postCbor(bench.url, path, body, headers())));
          answers.forEach((answer, offset) => check(answer, `${path} input ${start + offset}`));
        }
        // The signed inputs reached the service: some were answered 200, not everything was refused at the door.
        expect(counts.get(200) ?? 0).toBeGreaterThan(0);
        expect(counts.get(400) ?? 0).toBeGreaterThan(0);
        expect(counts.get(401) ?? 0).toBeGreaterThan(0);
      });
    }
  });
}
