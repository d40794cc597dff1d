/** Cases a review and an attack pass of the Admin API found, kept so they stay fixed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { issueLicenses, seedPolicy } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin API review cases [${engine.name}]`, () => {
    let bench: AdminHarness;
    let policyA: string;
    let licenseB: string;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      policyA = await seedPolicy(bench, bench.vendorA);
      const policyB = await seedPolicy(bench, bench.vendorB);
      licenseB = ((await issueLicenses(bench, policyB, {}, bench.vendorB.token))[0] as { license_id: string }).license_id;
    });
    afterAll(() => bench?.close());

    it('answers a list filter naming another vendor’s product or license as not found, on every list', async () => {
      for (const [path, query] of [
        ['/licenses', { product_id: bench.vendorB.productId }],
        ['/accounts', { product_id: bench.vendorB.productId }],
        ['/machines', { license_id: licenseB }],
        ['/policies', { product_id: bench.vendorB.productId }],
        ['/catalog/features', { product_id: bench.vendorB.productId }],
      ] as const) {
        const answer = await bench.call('GET', path, { query });
        expect(answer.status, path).toBe(404);
        expect(answer.body.error.code, path).toBe('not_found');
      }
    });

    it('refuses metadata keys a JSON object cannot keep, and days that do not exist', async () => {
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const rawBody = `{"policy_id":"${policyA}","count":1,"metadata":{"${key}":"x"}}`;
        const answer = await bench.call('POST', '/licenses', { rawBody, key: freshKey() });
        expect(answer.status, key).toBe(400);
        expect(answer.body.error.message, key).toMatch(/__proto__, constructor or prototype/);
      }
      const impossible = await bench.call('POST', '/licenses', { body: { policy_id: policyA, count: 1, expires_at: '2027-02-30T00:00:00Z' }, key: freshKey() });
      expect(impossible.status).toBe(400);
      expect(impossible.body.error.message).toMatch(/does not exist/);
      const leap = await bench.call('POST', '/licenses', { body: { policy_id: policyA, count: 1, expires_at: '2028-02-29T00:00:00Z' }, key: freshKey() });
      expect(leap.status).toBe(201);
    });

    it('replays a key sent again with the same target spelled with percent-encoding', async () => {
      const [license] = await issueLicenses(bench, policyA);
      const licenseId = (license as { license_id: string }).license_id;
      const key = freshKey();
      const first = await bench.call('PATCH', `/licenses/${licenseId}`, { body: { status: 'suspended' }, key });
      const encoded = `%${licenseId.charCodeAt(0).toString(16)}${licenseId.slice(1)}`;
      const again = await bench.call('PATCH', `/licenses/${encoded}`, { body: { status: 'suspended' }, key });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
    });
  });
}
