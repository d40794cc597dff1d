/**
 * `POST /v1/admin/billing/checkout-tokens` over HTTP: what it signs (verified with the server's own
 * subkey from the sandbox master key), scope and vendor isolation, input errors in the envelope, the
 * journal's replay, the audit event, and a seeded fuzz (never a 5xx).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingCheckoutTokenLabel, deriveLicenseSubkey, verifyCheckoutToken } from '@tollgate/core/license';
import { seededRandom } from '@tollgate/core/testing';
import { loadLicenseConfig } from '@tollgate/license-server';
import { resolveMasterKey } from '../../src/ceremony/ceremony';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { billingEnv } from './billing-fixtures';

for (const engine of serverEngines) {
  describe(`checkout tokens route [${engine.name}]`, () => {
    let bench: AdminHarness;
    let licenseId: string;
    let policyId: string;
    let accountId: string;
    beforeAll(async () => {
      bench = await openAdminHarness(engine, billingEnv);
      policyId = await seedPolicy(bench, bench.vendorA);
      licenseId = (await issueLicenses(bench, policyId))[0]!.license_id;
      const account = await bench.call('POST', '/accounts', { body: { product_id: bench.vendorA.productId, email: `buyer-${Date.now()}@example.com`, password: 'correct horse battery staple' }, key: freshKey() });
      expect(account.status, account.text).toBe(201);
      accountId = account.body.account.account_id as string;
    }, 120_000);
    afterAll(() => bench?.close());

    const issue = (body: unknown, options: { token?: string; key?: string } = {}) => bench.call('POST', '/billing/checkout-tokens', { body, key: options.key ?? freshKey(), ...(options.token === undefined ? {} : { token: options.token }) });

    it('signs what it binds under the checkout-token subkey, audits it, and replays under the same Idempotency-Key', async () => {
      const key = freshKey();
      const answer = await issue({ license_id: licenseId, provider: 'paddle', price_id: 'pri_01abc', ttl_seconds: 3600 }, { key });
      expect(answer.status, answer.text).toBe(201);
      const issued = answer.body.checkout_token;
      expect(issued).toMatchObject({ metadata_key: 'tollgate_checkout', license_id: licenseId, policy_id: null, provider: 'paddle', price_id: 'pri_01abc', product_id: bench.vendorA.productId });
      const masterKey = resolveMasterKey(loadLicenseConfig(bench.sandbox.env)).key;
      const claims = verifyCheckoutToken(deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel), issued.token);
      expect(claims).toMatchObject({ vendorId: bench.vendorA.vendorId, licenseId, provider: 'paddle', priceId: 'pri_01abc', expiresAt: Date.parse(issued.expires_at) / 1000 });
      const replay = await issue({ license_id: licenseId, provider: 'paddle', price_id: 'pri_01abc', ttl_seconds: 3600 }, { key });
      expect(replay.body).toEqual(answer.body);
      const { rows } = await bench.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_audit_events WHERE action = 'billing.checkout_token' AND target_id = $1", [licenseId]);
      expect(Number(rows[0]?.count)).toBe(1);
      const forPolicy = await issue({ policy_id: policyId, account_id: accountId });
      expect(forPolicy.status, forPolicy.text).toBe(201);
      expect(forPolicy.body.checkout_token).toMatchObject({ policy_id: policyId, account_id: accountId, license_id: null });
    });

    it("refuses another vendor's license, policy and account (404), a token without licenses:rw (403) and bad bodies (400)", async () => {
      const other = { token: bench.vendorB.token };
      expect((await issue({ license_id: licenseId }, other)).status).toBe(404);
      expect((await issue({ policy_id: policyId, account_id: accountId }, other)).status).toBe(404);
      const foreignPolicy = await seedPolicy(bench, bench.vendorB);
      expect((await issue({ policy_id: foreignPolicy, account_id: accountId }, other)).body.error.code).toBe('not_found');
      const readOnly = await bench.tokenWith(bench.vendorA, ['audit:r']);
      expect((await issue({ license_id: licenseId }, { token: readOnly })).status).toBe(403);
      for (const body of [
        {},
        { license_id: licenseId, policy_id: policyId },
        { policy_id: policyId },
        { license_id: licenseId, account_id: accountId },
        { license_id: 'XYZ' },
        { license_id: licenseId, provider: 'paypal' },
        { license_id: licenseId, price_id: 'a.b' },
        { license_id: licenseId, ttl_seconds: 31 * 86_400 },
        { license_id: licenseId, extra: true },
      ]) {
        const answer = await issue(body);
        expect([answer.status, answer.body.ok, answer.body.error?.code], JSON.stringify(body)).toEqual([400, false, 'invalid_request']);
      }
    });

    it('never answers 5xx to fuzzed bodies', async () => {
      const random = seededRandom(0xb1f1);
      const values = () => random.pick<unknown>([licenseId, policyId, accountId, '', 'x'.repeat(300), 1, -1, 1e300, null, true, [], {}, 'stripe', 'price_1']);
      const fields = ['license_id', 'policy_id', 'account_id', 'provider', 'price_id', 'ttl_seconds', 'other'];
      for (let round = 0; round < 60; round += 1) {
        const body: Record<string, unknown> = {};
        for (const field of fields) if (random.int(3) === 0) body[field] = values();
        const answer = random.int(5) === 0 ? await bench.call('POST', '/billing/checkout-tokens', { rawBody: JSON.stringify(body).slice(0, random.int(40)), key: freshKey() }) : await issue(body);
        expect(answer.status, answer.text).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.body).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.any(String) } });
      }
    });
  });
}
