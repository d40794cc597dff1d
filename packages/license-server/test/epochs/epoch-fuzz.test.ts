/**
 * Seeded fuzz of the epoch routes: random JSON bodies, mutated certificates, random ids and queries
 * never produce a 5xx, and every answer is the Admin envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { mutateBytes, seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { openEpochBench, rootPublicHex, signRequest, type EpochBench } from './epoch-bench';

/** A random JSON value built from `values`, objects and arrays (depth-limited). */
function randomJson(random: SeededRandom, values: readonly unknown[], depth = 0): unknown {
  const kind = random.int(depth > 2 ? 1 : 3);
  if (kind === 0) return random.pick(values);
  if (kind === 1) return Array.from({ length: random.int(4) }, () => randomJson(random, values, depth + 1));
  const keys = ['certificate_hex', 'root_verifying_key_hex', 'confirm_epoch_id', 'dry_run', 'x'];
  return Object.fromEntries(Array.from({ length: random.int(4) }, () => [random.pick(keys), randomJson(random, values, depth + 1)]));
}

for (const engine of serverEngines) {
  describe(`Epoch routes fuzz [${engine.name}]`, () => {
    let bench: EpochBench;
    beforeAll(async () => {
      bench = await openEpochBench(engine);
    }, 60_000);
    afterAll(() => bench?.close());

    it('answers fuzzed uploads, revocations and ids without a 5xx', async () => {
      const random = seededRandom(14_0501);
      const pick = <T>(items: readonly T[]): T => random.pick(items);
      const [dev] = (await bench.call('GET', '/epochs')).body.epochs;
      const { request } = await bench.pendingEpoch();
      const good = await signRequest(request, bench.devRootSeed);
      const root = rootPublicHex(bench.devRootSeed);
      const values: unknown[] = [null, true, 0, -1, 1.5, '', 'x'.repeat(300), [], {}, root, good, dev.epoch_id, 'ff'.repeat(8)];
      const answers: { status: number; body: { ok?: unknown } | undefined; what: string }[] = [];
      for (let round = 0; round < 60; round += 1) {
        const mutated = hexEncode(mutateBytes(random, Buffer.from(good, 'hex')));
        const uploadBody = pick([
          { certificate_hex: mutated, root_verifying_key_hex: root },
          { certificate_hex: pick(values), root_verifying_key_hex: pick(values) },
          { certificate_hex: hexEncode(random.bytes(1 + random.int(200))), root_verifying_key_hex: root },
          randomJson(random, values),
        ]);
        const upload = await bench.call('POST', '/epochs', { key: freshKey(), body: uploadBody });
        answers.push({ status: upload.status, body: upload.body, what: `upload ${JSON.stringify(uploadBody).slice(0, 200)}` });
        const id = pick([dev.epoch_id, hexEncode(random.bytes(8)), 'zz', String(pick(values)).slice(0, 40), dev.epoch_id.toUpperCase()]);
        const revokeBody = pick([{ confirm_epoch_id: pick(values) }, { confirm_epoch_id: dev.epoch_id, extra: pick(values) }, pick(values)]);
        const revoke = await bench.call('POST', `/epochs/${encodeURIComponent(id)}/revoke`, { key: freshKey(), query: { dry_run: pick(['true', 'false', 'maybe']) }, body: revokeBody });
        answers.push({ status: revoke.status, body: revoke.body, what: `revoke ${id} ${JSON.stringify(revokeBody).slice(0, 200)}` });
        const detail = await bench.call('GET', `/epochs/${encodeURIComponent(id)}`, { query: { limit: String(pick(values)) } });
        answers.push({ status: detail.status, body: detail.body, what: `detail ${id}` });
      }
      for (const answer of answers) {
        expect(answer.status, answer.what).toBeLessThan(500);
        expect(answer.body?.ok, answer.what).toBe(answer.status < 300);
      }
      // Fuzzing changed nothing about the dev epoch.
      expect((await bench.call('GET', `/epochs/${dev.epoch_id}`)).body.epoch.status).toBe('active');
    }, 180_000);
  });
}
