/**
 * What the validate fast path must not change (issue #13's benchmark work): the entitlement cache never
 * serves a ticket older than the catalog (an edit of a tier through the Admin API shows on the very next
 * ticket, as a new item named by an override does), and the license budget spent in the same statement
 * as the nonce leaves a refused request's nonce usable, while a spent nonce stays spent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from '@tollgate/core/crypto';
import { freshKey } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { openClientBench, postCbor, validateBody, type ClientBench } from './client-harness';
import { adminPatchLicense, errorOf, licensedDevice, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

const delay = (ms: number) => new Promise((done) => setTimeout(done, ms));

for (const engine of serverEngines) {
  describe(`POST /v1/validate: entitlement cache [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
      await seedCatalog(bench.admin, bench.admin.vendorA, [
        { kind: 'feature', id: 'edit' },
        { kind: 'feature', id: 'sync' },
        { kind: 'tier', id: 'studio', features: ['edit'] },
      ]);
    }, 120_000);
    afterAll(() => bench?.close());

    it('shows an edit of the tier on the next ticket, and again when it is edited back', async () => {
      const licensed = await licensedDevice(bench, { tier: 'studio' });
      const patchTier = async (features: string[]) => {
        const answer = await bench.admin.call('PATCH', '/catalog/tiers/studio', { body: { product_id: bench.productId, features }, key: freshKey() });
        expect(answer.status).toBe(200);
      };
      // Twice: the second answer comes from the cache, which must still be right.
      for (let n = 0; n < 2; n += 1) expect((await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements?.features).toEqual(['edit']);
      const before = (await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements?.catalogVersion;
      await patchTier(['edit', 'sync']);
      const widened = (await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements;
      expect(widened?.features).toEqual(['edit', 'sync']);
      expect(widened?.catalogVersion).not.toBe(before);
      await patchTier(['edit']);
      const narrowed = (await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements;
      expect(narrowed?.features).toEqual(['edit']);
      expect(narrowed?.catalogVersion).toBe(before);
    });

    it('resolves a feature created after the first ticket once an override names it', async () => {
      const licensed = await licensedDevice(bench, { tier: 'studio' });
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      await seedCatalog(bench.admin, bench.admin.vendorA, [{ kind: 'feature', id: 'late-feature' }]);
      await adminPatchLicense(bench, licensed.licenseId, { entitlement_overrides: { add: ['late-feature'], remove: [] } });
      expect((await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements?.features).toContain('late-feature');
    });
  });

  describe(`POST /v1/validate: license budget and nonce in one statement [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      // Two requests, then one more every 500 ms.
      bench = await openClientBench(engine, { LICENSE_RATE_LIMIT_PER_LICENSE: '2/1' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('leaves the nonce of a request refused by the license budget usable, and refuses it once spent', async () => {
      const licensed = await licensedDevice(bench);
      for (let n = 0; n < 2; n += 1) await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      const nonce = randomBytes(32);
      const body = await validateBody(licensed.device, licensed.seat, bench.productId, { nonce });
      const refused = await postCbor(bench.url, '/v1/validate', body);
      expect([refused.status, errorOf(refused).code]).toEqual([429, 1005]);
      // Wait until the budget allows one request again (retry_after is rounded up to whole seconds).
      await delay((errorOf(refused).retryAfter ?? 1) * 1000 + 100);
      const ticket = await ticketOf(bench, await postCbor(bench.url, '/v1/validate', body));
      expect(Buffer.from(ticket.nonceEcho).toString('hex')).toBe(Buffer.from(nonce).toString('hex'));
      await delay(1100);
      const replay = await postCbor(bench.url, '/v1/validate', body);
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
    });
  });
}
