import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '@tollgate/core/testing';
import { freshKey, type AdminCallOptions, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { openDsrBench, seedSubject, stableSnapshot } from './dsr-fixtures';

for (const engine of serverEngines) {
  describe(`DSR crash safety and fuzz [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openDsrBench(engine);
    }, 60_000);
    afterAll(() => bench?.close());

    it('a failure in the last step of the cascade leaves nothing erased', async () => {
      const subject = await seedSubject(bench, bench.vendorA, 2);
      // The machine row is the last step of each machine; make it fail for the license's second machine
      // (ids are erased in order), after the first machine and every earlier step of the second ran.
      const doomed = [...subject.machineIds].sort()[1] as string;
      await bench.sql.query(`CREATE FUNCTION dsr_test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF OLD.machine_id = '${doomed}' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN OLD; END; $$`);
      await bench.sql.query('CREATE TRIGGER dsr_test_fail BEFORE DELETE ON license_machines FOR EACH ROW EXECUTE FUNCTION dsr_test_fail()');
      try {
        const before = await stableSnapshot(bench, ['license_idempotency']);
        const key = freshKey();
        const license = await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId }, query: { dry_run: 'false' }, key });
        expect([license.status, license.body.error.code]).toEqual([500, 'internal_error']);
        expect(license.text).not.toContain('disk on fire');
        const machine = await bench.call('DELETE', `/machines/${doomed}`, { query: { dry_run: 'false' }, key: freshKey() });
        expect(machine.status).toBe(500);
        expect(await stableSnapshot(bench, ['license_idempotency'])).toBe(before);
        // A 500 is not journaled: the same key runs again once the failure is gone.
        await bench.sql.query('DROP TRIGGER dsr_test_fail ON license_machines');
        const retried = await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId }, query: { dry_run: 'false' }, key });
        expect([retried.status, retried.body.erased.machine]).toEqual([200, 2]);
      } finally {
        await bench.sql.query('DROP TRIGGER IF EXISTS dsr_test_fail ON license_machines');
        await bench.sql.query('DROP FUNCTION IF EXISTS dsr_test_fail()');
      }
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
    });

    it('never answers 5xx to fuzzed DSR requests', async () => {
      const subject = await seedSubject(bench, bench.vendorA, 1);
      const fuzz = seededRandom(0xd5a);
      const random = () => fuzz.next();
      const pick = <T>(items: readonly T[]): T => fuzz.pick(items);
      const ids = [subject.licenseId, subject.machineIds[0] as string, 'ab'.repeat(16), 'AB'.repeat(16), '', 'x', '0'.repeat(33), '../..', '\u0000'];
      const values: unknown[] = [...ids, null, 1, -1, 1e308, true, [], {}, [subject.licenseId], { id: subject.licenseId }];
      const fields = ['machine_id', 'license_id', 'subject', 'dry_run', 'id'];
      for (let n = 0; n < 60; n += 1) {
        const body: Record<string, unknown> = {};
        for (let k = Math.floor(random() * 3); k >= 0; k -= 1) body[pick(fields)] = pick(values);
        const shape = pick(['object', 'object', 'object', 'raw']);
        const options: AdminCallOptions = {
          ...(shape === 'raw' ? { rawBody: pick(['{', '[]', 'null', '"x"', '{"machine_id":', '1'.repeat(50), '{"license_id":"' + 'a'.repeat(300_000) + '"}']) } : { body }),
          query: pick<Record<string, string>>([{}, { dry_run: 'false' }, { dry_run: 'maybe' }, { dry_run: 'true' }]),
          ...(random() < 0.5 ? { key: freshKey() } : {}),
        };
        for (const [method, path] of [
          ['POST', '/dsr/export'],
          ['POST', '/dsr/delete'],
          ['DELETE', `/machines/${encodeURIComponent(String(pick(ids)))}`],
        ] as const) {
          const answer = await bench.call(method, path, method === 'DELETE' ? { ...(options.query ? { query: options.query } : {}), ...(options.key ? { key: options.key } : {}) } : options);
          expect(answer.status, `${method} ${path} ${JSON.stringify(options).slice(0, 200)}`).toBeLessThan(500);
          expect(answer.body?.ok, answer.text.slice(0, 200)).toBeTypeOf('boolean');
        }
      }
    }, 120_000);
  });
}
