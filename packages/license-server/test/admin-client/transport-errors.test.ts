/**
 * The Admin client's error mapping against a real license server: every Admin error code reachable
 * over HTTP comes back as an `AdminApiError` with that code, its status and the answer's request id.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminErrorCodes, type AdminErrorCode } from '@tollgate/core';
import { AdminApiError } from '../../../admin-client/src/errors';
import { createTransport } from '../../../admin-client/src/transport';
import type { AdminRequest, AdminTransport } from '../../../admin-client/src/transport-types';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { openEpochBench, type EpochBench } from '../epochs/epoch-bench';
import { serverEngines } from '../helpers';

/**
 * Codes no HTTP request can provoke deterministically here, and why (listed in the report too). A new
 * code in @tollgate/core must land in one of the two lists, or the last test fails.
 */
const unreachable: Partial<Record<AdminErrorCode, string>> = {
  internal_error: 'only a server bug answers it',
  request_timeout: 'needs an upload that stalls past the body deadline; fetch sends bodies whole',
  revocation_in_progress: 'a race between two transactions on one target, not provokable reliably',
  replacement_epoch_required: 'needs a vendor administering global epochs with no other active one (epochs suite)',
  service_unavailable: 'no signing epoch / OIDC provider down; the retry tests fake it',
  invalid_signature: 'billing webhook and CI-OIDC signatures (billing / integrity suites)',
  signer_key_not_registered: 'CI-OIDC signing with an unregistered key (integrity suite)',
  dsr_bound_exceeded: 'needs more rows than the DSR bound',
  asset_kek_exists: 'needs a release and a feature with a KEK (asset-keys suite)',
};

const anything = v.unknown();

for (const engine of serverEngines) {
  const provoked = new Set<string>();

  /** Sends the request and checks the AdminApiError it must end in. */
  async function expectCode(code: AdminErrorCode, request: AdminRequest<unknown>, transport: AdminTransport): Promise<void> {
    const error = await transport.request(request).catch((caught: unknown) => caught);
    expect(error, code).toBeInstanceOf(AdminApiError);
    expect(error, code).toMatchObject({ code, status: adminErrorCodes[code] });
    // The server's X-Request-Id (a fresh 32-hex id: the client sends none).
    expect((error as AdminApiError).requestId, code).toMatch(/^[0-9a-f]{32}$/);
    provoked.add(code);
  }

  describe(`admin client error mapping [${engine.name}]`, () => {
    let bench: AdminHarness;
    let admin: AdminTransport;
    const expectCodeOf = (code: AdminErrorCode, request: AdminRequest<unknown>, transport = admin) => expectCode(code, request, transport);

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      admin = createTransport({ baseUrl: bench.url, token: bench.vendorA.token, maxRetries: 0 });
    });
    afterAll(() => bench?.close());

    it('maps authentication, scope, routing and body refusals', async () => {
      const stranger = createTransport({ baseUrl: bench.url, token: 'tgla_not-a-real-token', maxRetries: 0 });
      await expectCodeOf('invalid_token', { method: 'GET', path: '/licenses', kind: 'read', schema: anything }, stranger);
      const auditOnly = createTransport({ baseUrl: bench.url, token: await bench.tokenWith(bench.vendorA, ['audit:r']), maxRetries: 0 });
      await expectCodeOf('insufficient_scope', { method: 'GET', path: '/licenses', kind: 'read', query: { product_id: bench.vendorA.productId }, schema: anything }, auditOnly);
      await expectCodeOf('not_found', { method: 'GET', path: `/licenses/${'ab'.repeat(16)}`, kind: 'read', schema: anything });
      await expectCodeOf('method_not_allowed', { method: 'DELETE', path: '/licenses', kind: 'destructive', schema: anything });
      await expectCodeOf('invalid_request', { method: 'POST', path: '/licenses', kind: 'mutation', body: { policy_id: 'x', count: 101 }, schema: anything });
      await expectCodeOf('unsupported_media_type', { method: 'POST', path: '/accounts', kind: 'mutation', rawBody: new TextEncoder().encode('email=a'), contentType: 'text/plain', schema: anything });
      await expectCodeOf('payload_too_large', { method: 'POST', path: '/accounts', kind: 'mutation', body: { padding: 'x'.repeat(300 * 1024) }, schema: anything });
    });

    it('maps idempotency and resource conflicts', async () => {
      const account = { product_id: bench.vendorA.productId, email: `dup-${Date.now()}@example.com`, password: 'long enough pw' };
      await admin.request({ method: 'POST', path: '/accounts', kind: 'mutation', body: account, schema: anything, options: { idempotencyKey: 'client-conflict-1' } });
      await expectCodeOf('idempotency_conflict', { method: 'POST', path: '/accounts', kind: 'mutation', body: { ...account, email: 'other@example.com' }, schema: anything, options: { idempotencyKey: 'client-conflict-1' } });
      await expectCodeOf('account_exists', { method: 'POST', path: '/accounts', kind: 'mutation', body: account, schema: anything });
      const feature = { product_id: bench.vendorA.productId, id: 'client-errors', name: 'Client errors' };
      await admin.request({ method: 'POST', path: '/catalog/features', kind: 'mutation', body: feature, schema: anything });
      await expectCodeOf('catalog_item_exists', { method: 'POST', path: '/catalog/features', kind: 'mutation', body: feature, schema: anything });
      await expectCodeOf('invalid_entitlement', { method: 'POST', path: '/catalog/resolve', kind: 'read', body: { product_id: bench.vendorA.productId, tier: 'gold' }, schema: anything });
      const created = await admin.request({ method: 'POST', path: '/policies', kind: 'mutation', body: { product_id: bench.vendorA.productId, name: 'Client errors' }, schema: v.looseObject({ policy: v.looseObject({ id: v.string() }) }) });
      await expectCodeOf('policy_exists', { method: 'POST', path: '/policies', kind: 'mutation', body: { product_id: bench.vendorA.productId, name: 'Again', id: created.body.policy.id }, schema: anything });
    });

    it('maps license state refusals', async () => {
      const offlineBody = { release_id: 'cd'.repeat(16), bound_fingerprint_hex: 'ef'.repeat(32), max_seats: 1 };
      const [online] = await issueLicenses(bench, await seedPolicy(bench, bench.vendorA, { offline_allowed: false }));
      await expectCodeOf('olk_not_allowed', { method: 'POST', path: `/licenses/${online?.license_id}/offline-key`, kind: 'mutation', body: offlineBody, schema: anything });
      const [license] = await issueLicenses(bench, await seedPolicy(bench, bench.vendorA));
      const id = license?.license_id as string;
      await admin.request({ method: 'PATCH', path: `/licenses/${id}`, kind: 'mutation', body: { status: 'suspended' }, schema: anything });
      await expectCodeOf('license_not_active', { method: 'POST', path: `/licenses/${id}/offline-key`, kind: 'mutation', body: offlineBody, schema: anything });
      await admin.request({ method: 'POST', path: `/licenses/${id}/revoke`, kind: 'destructive', body: {}, schema: anything, options: { dryRun: false } });
      await expectCodeOf('already_revoked', { method: 'POST', path: `/licenses/${id}/revoke`, kind: 'destructive', body: {}, schema: anything, options: { dryRun: false } });
    });

  });

  describe(`admin client error mapping: epoch revocation [${engine.name}]`, () => {
    let bench: EpochBench;
    beforeAll(async () => {
      bench = await openEpochBench(engine);
    });
    afterAll(() => bench?.close());

    it('maps confirmation_mismatch and second_actor_required', async () => {
      const admin = createTransport({ baseUrl: bench.url, token: bench.vendorA.token, maxRetries: 0 });
      const epochId = await bench.activeEpoch({ productScope: bench.vendorA.productId });
      const revoke = (confirmation: string): AdminRequest<unknown> => ({ method: 'POST', path: `/epochs/${epochId}/revoke`, kind: 'destructive', body: { confirm_epoch_id: confirmation }, schema: anything, options: { dryRun: false } });
      await expectCode('confirmation_mismatch', revoke('0'.repeat(16)), admin);
      // The first confirmation opens the approval (202); the same token cannot be the second actor.
      await expect(admin.request(revoke(epochId))).resolves.toMatchObject({ status: 202 });
      await expectCode('second_actor_required', revoke(epochId), admin);
    });
  });

  describe(`admin client error mapping: coverage [${engine.name}]`, () => {
    it('covers every Admin error code: provoked above or listed as unreachable', () => {
      const accounted = new Set([...provoked, ...Object.keys(unreachable)]);
      expect(Object.keys(adminErrorCodes).filter((code) => !accounted.has(code))).toEqual([]);
      expect([...provoked].filter((code) => code in unreachable)).toEqual([]);
    });
  });
}
