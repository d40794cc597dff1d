/**
 * An Idempotency-Key answers only the Admin token that first used it (review of issue #14): a retry by the
 * same token replays byte for byte; another token of the vendor reusing the key, even with the identical
 * request, gets 409 `idempotency_conflict`, never the stored answer (an issuance answer holds plaintext
 * license keys) and never a second execution.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin idempotency keys are scoped to the token [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyId: string;
    let firstToken: string;
    let secondToken: string;

    const licenseCount = async () => Number((await bench.sql.query<{ n: string }>('SELECT count(*) AS n FROM license_licenses WHERE vendor_id = $1', [bench.vendorA.vendorId])).rows[0]?.n);

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      policyId = await seedPolicy(bench, bench.vendorA);
      firstToken = await bench.tokenWith(bench.vendorA, ['licenses:rw']);
      secondToken = await bench.tokenWith(bench.vendorA, ['licenses:rw']);
    }, 90_000);
    afterAll(() => bench?.close());

    it('replays an issuance to its own token and refuses the same key and body from another token', async () => {
      const key = freshKey();
      const body = { policy_id: policyId, count: 2 };
      const issued = await bench.call('POST', '/licenses', { token: firstToken, key, body });
      expect(issued.status).toBe(201);
      const plaintextKeys: string[] = issued.body.licenses.map((license: { key: string }) => license.key);
      expect(plaintextKeys).toHaveLength(2);
      const countAfterIssue = await licenseCount();

      const borrowed = await bench.call('POST', '/licenses', { token: secondToken, key, body });
      expect([borrowed.status, borrowed.body.error.code]).toEqual([409, 'idempotency_conflict']);
      expect(borrowed.headers.get('idempotent-replayed')).toBeNull();
      for (const plaintext of plaintextKeys) expect(borrowed.text).not.toContain(plaintext);
      expect(await licenseCount()).toBe(countAfterIssue);

      const retried = await bench.call('POST', '/licenses', { token: firstToken, key, body });
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(retried.text).toBe(issued.text);
      expect(await licenseCount()).toBe(countAfterIssue);
    });

    it('refuses a key another token used first even when that request failed, and still runs fresh keys for both', async () => {
      const key = freshKey();
      const unknownPolicy = { policy_id: 'f'.repeat(32), count: 1 };
      const refused = await bench.call('POST', '/licenses', { token: firstToken, key, body: unknownPolicy });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      const borrowed = await bench.call('POST', '/licenses', { token: secondToken, key, body: unknownPolicy });
      expect([borrowed.status, borrowed.body.error.code]).toEqual([409, 'idempotency_conflict']);
      expect((await bench.call('POST', '/licenses', { token: firstToken, key, body: unknownPolicy })).text).toBe(refused.text);
      for (const token of [firstToken, secondToken]) {
        expect((await bench.call('POST', '/licenses', { token, key: freshKey(), body: { policy_id: policyId, count: 1 } })).status).toBe(201);
      }
    });
  });
}
