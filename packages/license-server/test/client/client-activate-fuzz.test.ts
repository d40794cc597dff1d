/**
 * Fuzzes `POST /v1/activate` and `POST /v1/offline/request` over real HTTP (PGlite, to keep it quick)
 * with 5,000 seeded inputs per route: random CBOR (maps with integer keys, wrong types, nesting), hand-
 * written items the encoder never produces (huge and negative 64-bit integers, bignum tags, floats,
 * indefinite lengths, undefined), truncations and byte mutations of valid requests, and valid-shaped
 * requests with one field replaced and the proof signed again (so they get past the proof into the
 * credential, seat and release checks). Every answer must be a protocol answer: a signed artifact of the
 * route's kind, or a CBOR error map with a client code and its status — never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage, inspectArtifact, requestProofMessage } from '@tollgate/core/license';
import { mutateBytes, randomCbor, seededRandom, type RandomCborOptions, type SeededRandom } from '@tollgate/core/testing';
import { activationBody, issueClientLicense, newDevice, openClientBench, postRaw, signedInAccount, type ClientBench, type Device, type RawAnswer } from './client-harness';
import { serverEngines } from '../helpers';

const inputsPerRoute = 5000;
const concurrency = 8;
const pglite = serverEngines.find((engine) => engine.name === 'pglite');

/** The CBOR values the activation fuzz inputs are built from (keys reach past the request's 0..15). */
const cborValues: RandomCborOptions = {
  ints: [0, 1, 2, 15, 23, 24, 255, 65_536, 2 ** 32, Number.MAX_SAFE_INTEGER],
  byteLengths: [0, 1, 15, 16, 31, 32, 33, 64, 65, 300],
  texts: ['', '1.0.0', 'linux', 'x64', 'AAAA-BBBB-CCCC-DDDD', 'Ünïcödé', '\u0000'],
  longTextMax: 300,
  simples: [true, false, null],
  arrayLength: 4,
  mapSize: 10,
  textKeyOdds: 6,
  textKeys: ['a', 'proof', '0'],
  intKey: (random) => random.int(18) - (random.int(8) === 0 ? 3 : 0),
};

/** Raw CBOR items the canonical encoder never writes. */
const oddItems: readonly number[][] = [
  [0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // 2^64 - 1
  [0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // -2^64
  [0x1b, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], // 2^53
  [0xc2, 0x49, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], // bignum tag
  [0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0], // 1.0 as a double
  [0xf9, 0x7e, 0x00], // NaN half
  [0xf7], // undefined
  [0x5f, 0x41, 0x00, 0xff], // indefinite byte string
  [0x9f, 0x01, 0xff], // indefinite array
  [0xd8, 0x20, 0x60], // tag 32 on a text
  [0x18, 0x01], // non-minimal 1
  [0x7f, 0xff], // empty indefinite text
];

/** A map `{k: <odd item>}` merged into a valid request's map header position (hand-built bytes). */
function withOddItem(random: SeededRandom, seed: Uint8Array): Uint8Array {
  const map = decodeCanonical(seed) as Map<CborKey, CborValue>;
  const key = random.pick([0, 1, 3, 4, 6, 7, 8, 15]);
  map.delete(key);
  const rest = encodeCanonical(map);
  // Rebuild the map header with one more entry and put the odd entry first (order breaks canonicality
  // for some keys, which is one more thing the decoder must refuse cleanly).
  const count = map.size + 1;
  const header = count < 24 ? [0xa0 + count] : [0xb8, count];
  const body = rest.subarray(map.size < 24 ? 1 : 2);
  return Uint8Array.from([...header, key, ...random.pick(oddItems), ...body]);
}

/** A valid request with one field replaced (or removed) and the proof signed again by its device. */
async function resigned(
  random: SeededRandom,
  seed: Uint8Array,
  device: Device,
  kind: 'activation-request' | 'offline-request',
  productId: string,
  licenseKey: string,
): Promise<Uint8Array> {
  const map = decodeCanonical(seed) as Map<CborKey, CborValue>;
  map.delete(15);
  map.set(6, random.bytes(32));
  const key = random.pick([1, 2, 2, 3, 5, 7, 8, 8, 9, 11]);
  switch (key) {
    case 2:
      map.set(
        2,
        random.pick<CborValue>([new Map([[0, licenseKey]]), new Map([[0, 'NOPE']]), new Map([[1, random.bytes(32)]]), new Map([[0, 'x'.repeat(129)]]), new Map([[2, licenseKey]])]),
      );
      break;
    case 8:
      map.set(
        8,
        new Map<CborKey, CborValue>([
          [0, random.pick(['1.0.0', '2.0.0-rc.1', '', 'v'.repeat(65)])],
          [1, '0.1.0'],
          [2, 'linux'],
          [3, 'x64'],
          ...(random.int(2) === 0 ? [[4, random.bytes(random.pick([31, 32]))] as [number, CborValue]] : []),
        ]),
      );
      break;
    case 9:
      map.set(9, new Map<CborKey, CborValue>(Array.from({ length: random.int(40) }, (_, n) => [`k${n}`, 'v'.repeat(random.int(300))])));
      break;
    default:
      if (random.int(4) === 0) map.delete(key);
      else map.set(key, randomCbor(random, cborValues, 1));
  }
  map.set(15, await device.signer.sign(requestProofMessage(kind, typeof map.get(1) === 'string' ? (map.get(1) as string) : productId, map)));
  return encodeCanonical(map);
}

const clientCodes = new Set([1000, 1001, 1003, 1004, 1005, 1007, 1008, 1009]);
const statusOfCode: Record<number, number[]> = {
  1000: [400, 401, 403, 405, 409, 413, 415],
  1001: [409],
  1003: [401],
  1004: [426],
  1005: [429],
  1007: [403],
  1008: [409],
  1009: [403],
};

function checkAnswer(answer: RawAnswer, expectedKind: 'machine-credential' | 'offline-response', label: string): void {
  expect(answer.status, label).toBeLessThan(500);
  if (answer.status === 200) {
    expect(inspectArtifact(answer.bytes).kind, label).toBe(expectedKind);
    return;
  }
  const error = decodeLicenseMessage('error-body', answer.bytes);
  expect(clientCodes.has(error.code), `${label}: code ${error.code}`).toBe(true);
  expect(statusOfCode[error.code], `${label}: ${error.code} with ${answer.status}`).toContain(answer.status);
}

describe.skipIf(pglite === undefined)('fuzzing the activation routes [pglite]', () => {
  let bench: ClientBench;
  let licenseKey: string;
  let accountToken: Uint8Array;
  beforeAll(async () => {
    bench = await openClientBench(pglite!);
    licenseKey = (await issueClientLicense(bench, { seats: 10_000 })).key;
    const account = await signedInAccount(bench, { maxDevices: 1000 });
    await issueClientLicense(bench, { seats: 10_000 }, { account_id: account.accountId });
    accountToken = account.accessToken;
  });
  afterAll(() => bench?.close());

  for (const [index, { path, kind, artifact }] of (
    [
      {
        path: '/v1/activate',
        kind: 'activation-request',
        artifact: 'machine-credential',
      },
      {
        path: '/v1/offline/request',
        kind: 'offline-request',
        artifact: 'offline-response',
      },
    ] as const
  ).entries()) {
    it(`answers ${inputsPerRoute} generated inputs to ${path} without a 5xx`, { timeout: 240_000 }, async () => {
      const random = seededRandom(0x5eed + index);
      const devices = Array.from({ length: 4 }, () => newDevice());
      const seeds = await Promise.all(
        devices.map((device, n) => activationBody(kind, device, n === 3 && kind === 'activation-request' ? { accountToken } : { licenseKey }, bench.productId)),
      );
      const statuses = new Map<number, number>();
      let next = 0;
      const worker = async () => {
        while (next < inputsPerRoute) {
          const n = next;
          next += 1;
          const pickSeed = random.int(seeds.length);
          const seed = seeds[pickSeed] as Uint8Array;
          let body: Uint8Array;
          let generator: string;
          switch (n % 6) {
            case 0:
              generator = 'random-cbor';
              body = encodeCanonical(randomCbor(random, cborValues, 0));
              break;
            case 1:
              generator = 'odd-item';
              body = withOddItem(random, seed);
              break;
            case 2:
              generator = 'mutation';
              body = mutateBytes(random, seed);
              break;
            case 3:
              generator = 'truncation';
              body = seed.subarray(0, random.int(seed.length));
              break;
            case 4:
              generator = 'resigned';
              body = await resigned(random, seed, devices[pickSeed] as Device, kind, bench.productId, licenseKey);
              break;
            default:
              generator = 'random-bytes';
              body = random.int(2) === 0 ? random.bytes(random.int(64)) : randomBytes(random.int(600));
          }
          const headers =
            random.int(20) === 0
              ? {}
              : {
                  'idempotency-key': random.int(10) === 0 ? 'fixed-fuzz-key' : `fuzz-${index}-${n}`,
                };
          const answer = await postRaw(bench.url, path, body, headers);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          checkAnswer(answer, artifact, `${generator} #${n}: ${Buffer.from(body).toString('hex').slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      // The generators reached past the decoder: some requests were refused for their credential or got a credential.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect((statuses.get(401) ?? 0) + (statuses.get(200) ?? 0)).toBeGreaterThan(0);
    });
  }
});
