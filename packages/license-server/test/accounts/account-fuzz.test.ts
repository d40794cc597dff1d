/**
 * Fuzzes each account route over real HTTP with 5,000 seeded inputs: random bytes, random CBOR, random
 * well-typed messages and byte mutations of valid requests (some with live tokens). Every answer must be
 * a protocol answer (a session, 204, or a CBOR error body with a client code), never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCanonical, type CborValue } from '@tollgate/core/cbor';
import { decodeLicenseMessage, encodeLicenseMessage } from '@tollgate/core/license';
import { mutateBytes, randomCbor, seededRandom, type RandomCborOptions } from '@tollgate/core/testing';
import { openAccountBench, postTo, type AccountApp, type AccountBench, type RawAnswer } from './account-sessions-harness';
import { serverEngines } from '../helpers';

const inputsPerRoute = 5000;
const concurrency = 8;

/** The CBOR values the account routes' fuzz inputs are built from. */
const cborValues: RandomCborOptions = {
  ints: [0, 1, 2, 23, 24, 255, 65_536, 2 ** 32, Number.MAX_SAFE_INTEGER],
  byteLengths: [0, 16, 31, 32, 33, 64],
  texts: ['', 'a@b.c', 'user@example.com', 'acme-editor', 'Ünïcödé', ' Mixed@Case.COM '],
  longTextMax: 1200,
  simples: [true, false],
  arrayLength: 4,
  mapSize: 6,
  textKeyOdds: 5,
  textKeys: ['a', 'password'],
  intKey: (random) => random.int(6),
};

/** Statuses the client protocol answers these routes with. */
const protocolStatuses = new Set([200, 204, 400, 401, 413, 415, 426, 429]);

function checkAnswer(path: string, answer: RawAnswer, label: string): void {
  expect(answer.status, label).toBeLessThan(500);
  expect(protocolStatuses.has(answer.status), `${label}: status ${answer.status}`).toBe(true);
  if (answer.status === 200) expect(() => decodeLicenseMessage('account-session', answer.bytes), label).not.toThrow();
  else if (answer.status === 204) expect(path, label).toBe('/v1/account/logout');
  else expect([1000, 1003, 1004, 1005], label).toContain(decodeLicenseMessage('error-body', answer.bytes).code);
}

for (const engine of serverEngines) {
  describe(`account routes: fuzz [${engine.name}]`, () => {
    let bench: AccountBench;
    let app: AccountApp;
    const email = 'fuzz@example.com';
    const password = 'fuzzing password';

    beforeAll(async () => {
      bench = await openAccountBench(engine);
      await bench.createAccount(email, password);
      app = await bench.serve();
    });
    afterAll(() => bench?.close());

    /** Valid requests to mutate; refresh and logout seeds carry live refresh tokens. */
    async function seedsFor(path: string): Promise<Uint8Array[]> {
      if (path === '/v1/account/login') {
        return [encodeLicenseMessage('login-request', { protoVersion: 1, productId: bench.productId, email, password })];
      }
      const seeds: Uint8Array[] = [];
      for (let n = 0; n < 3; n += 1) {
        const session = await app.sessions.login({ productId: bench.productId, email, password });
        if (session.kind !== 'session') throw new Error(`seeding a session: ${session.kind}`);
        seeds.push(encodeLicenseMessage('refresh-request', { protoVersion: 1, refreshToken: session.session.refreshToken }));
      }
      return seeds;
    }

    for (const [index, path] of ['/v1/account/login', '/v1/account/refresh', '/v1/account/logout'].entries()) {
      it(`never answers ${inputsPerRoute} fuzzed ${path} bodies with a 5xx`, { timeout: 240_000 }, async () => {
        const random = seededRandom(0xacc0 + index);
        const seeds = await seedsFor(path);
        const inputs: Uint8Array[] = [];
        for (let n = 0; n < inputsPerRoute; n += 1) {
          const kind = n % 4;
          if (kind === 0) inputs.push(random.bytes(random.int(64)));
          else if (kind === 1) inputs.push(encodeCanonical(randomCbor(random, cborValues, 0)));
          else if (kind === 2) inputs.push(mutateBytes(random, random.pick(seeds)));
          else {
            // Well-typed messages with random contents: they reach the service (KDF, gates, token lookups).
            const text = (min: number) => random.pick(['', 'a@b.c', email, password, 'x'.repeat(min + random.int(40))]);
            inputs.push(
              encodeCanonical(
                path === '/v1/account/login'
                  ? new Map<number, CborValue>([[0, 1], [1, random.pick([bench.productId, 'acme-editor'])], [2, text(3)], [3, text(1)]])
                  : new Map<number, CborValue>([[0, random.pick([1, 1, 1, 2])], [1, random.bytes(random.pick([32, 32, 31]))]]),
              ),
            );
          }
        }
        for (let start = 0; start < inputs.length; start += concurrency) {
          const batch = inputs.slice(start, start + concurrency);
          const answers = await Promise.all(batch.map((body) => postTo(app, path, body)));
          answers.forEach((answer, offset) => checkAnswer(path, answer, `${path} input ${start + offset}`));
        }
      });
    }
  });
}
