/**
 * The admin client's `licenses`, `machines` and `billing` groups against a real license server: every
 * method once with its answer checked, a paginated `for await`, dry runs that change nothing, and server
 * refusals surfacing as `AdminApiError` with the server's code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '@tollgate/core/crypto';
import { createSqlVendorStore } from '@tollgate/core/license';
import { createAdminClient, type AdminClient } from '@tollgate/admin-client';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { seedCatalog, seedMachines, seedPolicy, seedSubscription, snapshotTables } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: Promise<unknown>): Promise<{ name: string; code: string; status?: number; requestId?: string }> {
  const outcome = await call.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.resolved)}`);
  return outcome.error as { name: string; code: string; status?: number };
}

// One server for the file, on PGlite: these tests check the mapping of the client, not races.
const engine = serverEngines[0];
if (engine === undefined) throw new Error('no test engine');

describe(`admin client: licenses, machines, billing [${engine.name}]`, () => {
  let bench: AdminHarness;
  let admin: AdminClient;
  let policyId: string;
  /** Paths of every request the client sent, to count pages. */
  const requested: string[] = [];

  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    const recordingFetch: typeof fetch = (input, init) => {
      requested.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return fetch(input, init);
    };
    admin = createAdminClient({ baseUrl: bench.url, token: bench.vendorA.token, fetch: recordingFetch });
    await seedCatalog(bench, bench.vendorA, [
      { kind: 'feature', id: 'sync' },
      { kind: 'feature', id: 'export.pdf' },
      { kind: 'tier', id: 'basic', features: ['sync'] },
      { kind: 'tier', id: 'pro', features: ['export.pdf', 'sync'] },
    ]);
    policyId = await seedPolicy(bench, bench.vendorA, { tier: 'basic' });
  });
  afterAll(() => bench?.close());

  const issueOne = async () => {
    const [license] = await admin.licenses.issue({ policyId });
    if (license === undefined) throw new Error('nothing issued');
    return license;
  };

  it('issues, reads, updates and re-tiers licenses with camelCase inputs', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    const issued = await admin.licenses.issue({ policyId, count: 2, seatsOverride: 2, expiresAt, metadata: { crm: 'acct-9' } });
    expect(issued).toHaveLength(2);
    const [first] = issued;
    expect(first).toMatchObject({ policy_id: policyId, product_id: bench.vendorA.productId, status: 'active', seats: 2, seats_override: 2, tier: 'basic', metadata: { crm: 'acct-9' } });
    expect(first?.key.slice(-4)).toBe(first?.key_hint);
    expect(Date.parse(first?.expires_at ?? '')).toBe(expiresAt.getTime());
    const licenseId = first?.license_id as string;

    const read = await admin.licenses.get(licenseId);
    expect(read).toMatchObject({ license_id: licenseId, key_hint: first?.key_hint });
    expect(read).not.toHaveProperty('key');

    const suspended = await admin.licenses.update(licenseId, { status: 'suspended', seatsOverride: null, versionScopeOverride: { min: '1.0.0', maxExclusive: '2.0.0' } });
    expect(suspended).toMatchObject({ status: 'suspended', seats: 3, seats_override: null, version_scope_override: { min: '1.0.0', max_exclusive: '2.0.0' } });
    const reopened = await admin.licenses.update(licenseId, { status: 'active', expiresAt: null, entitlementOverrides: { add: ['export.pdf'] } });
    expect(reopened).toMatchObject({ status: 'active', expires_at: null, entitlement_overrides: { add: ['export.pdf'], remove: [] } });

    const moved = await admin.licenses.changeTier(licenseId, { tier: 'pro' });
    expect(moved.license).toMatchObject({ license_id: licenseId, tier: 'pro', tier_override: 'pro' });
    expect(moved.entitlements).toMatchObject({ product_id: bench.vendorA.productId, tier: 'pro', features: ['export.pdf', 'sync'], digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('walks every page of licenses.list with for await, and reads one page with page()', async () => {
    // A product of its own, so other tests' licenses do not change the count.
    const productId = randomId();
    await createSqlVendorStore(bench.sql).createProduct({ productId, vendorId: bench.vendorA.vendorId, name: 'Paged product', createdAt: new Date() });
    const pagedPolicy = await seedPolicy(bench, { ...bench.vendorA, productId });
    const issued = await admin.licenses.issue({ policyId: pagedPolicy, count: 5 });
    await admin.licenses.update(issued[0]?.license_id as string, { status: 'suspended' });

    const before = requested.length;
    const seen: string[] = [];
    for await (const license of admin.licenses.list({ productId, limit: 2 })) seen.push(license.license_id);
    expect(seen.sort()).toEqual(issued.map((license) => license.license_id).sort());
    // 5 licenses by 2: three GET /licenses requests.
    expect(requested.slice(before).filter((path) => path === '/v1/admin/licenses')).toHaveLength(3);

    const firstPage = await admin.licenses.list({ productId, limit: 2 }).page();
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const secondPage = await admin.licenses.list({ productId, limit: 2 }).page(firstPage.nextCursor);
    expect(secondPage.items.map((license) => license.license_id)).not.toContain(firstPage.items[0]?.license_id);

    const suspended: string[] = [];
    for await (const license of admin.licenses.list({ productId, status: 'suspended' })) suspended.push(license.license_id);
    expect(suspended).toEqual([issued[0]?.license_id]);
  });

  it('previews the fallback of a subscribed license and lists its machines', async () => {
    const license = await issueOne();
    await seedSubscription(bench, bench.vendorA, license.license_id);
    const preview = await admin.licenses.previewFallback(license.license_id);
    expect(preview).toMatchObject({
      license_id: license.license_id,
      subscription: { provider: 'stripe', subscription_id: `sub_${license.license_id}`, status: 'active' },
      expiry_behavior: 'deny',
      current: { tier: 'basic', features: ['sync'] },
      on_lapse: { access: 'denied', entitlements: null },
    });

    const machineIds = await seedMachines(bench, bench.vendorA, license.license_id, 2);
    const listed = await admin.licenses.machines(license.license_id);
    expect(listed.license_id).toBe(license.license_id);
    expect(listed.truncated).toBe(false);
    expect(listed.machines.map((machine) => machine.machine_id).sort()).toEqual([...machineIds].sort());
    expect(listed.machines[0]).toMatchObject({ license_id: license.license_id, status: 'active', platform: 'linux-x64', revoked_at: null });
  });

  it('mints an offline key', async () => {
    const license = await issueOne();
    const releaseId = 'cd'.repeat(16);
    const key = await admin.licenses.createOfflineKey(license.license_id, { releaseId, boundFingerprintHex: 'ef'.repeat(32), maxSeats: 2 });
    expect(key).toMatchObject({ license_id: license.license_id, release_id: releaseId, bound_fingerprint_hex: 'ef'.repeat(32), max_seats: 2, kind: 'offline-key', tier: 'basic', features: ['sync'] });
    expect(key.envelope_base64.length).toBeGreaterThan(100);
    expect(key.certificate_base64.length).toBeGreaterThan(100);
    const refused = await rejection(admin.licenses.createOfflineKey(license.license_id, { releaseId, maxSeats: 4 }));
    expect(refused).toMatchObject({ name: 'AdminApiError', code: 'invalid_request', status: 400 });
  });

  it('revokes a license: a dry run changes nothing, { dryRun: false } executes, a second revoke is 409', async () => {
    const license = await issueOne();
    await seedMachines(bench, bench.vendorA, license.license_id, 2);
    const before = await snapshotTables(bench);
    const preview = await admin.licenses.revoke(license.license_id, { reason: 4 });
    expect(preview).toMatchObject({ dry_run: true, license_id: license.license_id, already_revoked: false, machines_affected: 2, would_publish_batch: true });
    expect(await snapshotTables(bench)).toBe(before);
    expect((await admin.licenses.get(license.license_id)).status).toBe('active');

    const executed = await admin.licenses.revoke(license.license_id, { reason: 4 }, { dryRun: false });
    if (executed.dry_run) throw new Error('a confirmed revoke answered a dry run');
    expect(executed.license).toMatchObject({ license_id: license.license_id, status: 'revoked', revocation_reason: 4, revocation_seq: executed.revocation.seq });
    expect(executed.revocation.machines_revoked).toBe(2);
    expect(await admin.licenses.revoke(license.license_id)).toMatchObject({ dry_run: true, already_revoked: true, would_publish_batch: false });

    const again = await rejection(admin.licenses.revoke(license.license_id, {}, { dryRun: false }));
    expect(again).toMatchObject({ name: 'AdminApiError', code: 'already_revoked', status: 409 });
    expect((await rejection(admin.licenses.update(license.license_id, { status: 'active' }))).code).toBe('already_revoked');
  });

  it('maps 404 and 422 refusals to AdminApiError with the server’s code', async () => {
    expect(await rejection(admin.licenses.get(randomId()))).toMatchObject({ name: 'AdminApiError', code: 'not_found', status: 404 });
    // A license of vendor B is not found for vendor A, never forbidden.
    const foreignPolicy = await seedPolicy(bench, bench.vendorB);
    expect(await rejection(admin.licenses.issue({ policyId: foreignPolicy }))).toMatchObject({ code: 'not_found', status: 404 });
    const license = await issueOne();
    expect(await rejection(admin.licenses.changeTier(license.license_id, { tier: 'platinum' }))).toMatchObject({ code: 'invalid_entitlement', status: 422 });
    expect(await rejection(admin.licenses.previewFallback(license.license_id))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('lists, revokes and erases machines', async () => {
    const license = await issueOne();
    const [older, newer] = await seedMachines(bench, bench.vendorA, license.license_id, 2);
    const listed: string[] = [];
    for await (const machine of admin.machines.list({ licenseId: license.license_id, limit: 1 })) listed.push(machine.machine_id);
    expect(listed).toEqual([newer, older]);

    const preview = await admin.machines.revoke(older as string);
    expect(preview).toMatchObject({ dry_run: true, machine_id: older, license_id: license.license_id, already_revoked: false, would_publish_batch: true });
    const revoked = await admin.machines.revoke(older as string, { reason: 2 }, { dryRun: false });
    if (revoked.dry_run) throw new Error('a confirmed revoke answered a dry run');
    expect(revoked.machine).toMatchObject({ machine_id: older, status: 'revoked' });
    expect(revoked.revocation.seq).toBe(revoked.machine.revocation_seq);
    const revokedOnly: string[] = [];
    for await (const machine of admin.machines.list({ licenseId: license.license_id, status: 'revoked' })) revokedOnly.push(machine.machine_id);
    expect(revokedOnly).toEqual([older]);
    expect(await rejection(admin.machines.revoke(older as string, {}, { dryRun: false }))).toMatchObject({ code: 'already_revoked', status: 409 });

    const before = await snapshotTables(bench);
    const erasePreview = await admin.machines.erase(newer as string);
    if (!erasePreview.dry_run) throw new Error('an unconfirmed erase executed');
    expect(erasePreview).toMatchObject({ subject: { kind: 'machine', id: newer }, license_id: license.license_id, machine_ids: [newer], audit_tombstone: false });
    expect(erasePreview.would_erase['machine']).toBe(1);
    expect(await snapshotTables(bench)).toBe(before);
    const erased = await admin.machines.erase(newer as string, { dryRun: false });
    if (erased.dry_run) throw new Error('a confirmed erase answered a dry run');
    expect(erased.erased['machine']).toBe(1);
    expect((await admin.licenses.machines(license.license_id)).machines.map((machine) => machine.machine_id)).toEqual([older]);
    expect(await rejection(admin.machines.erase(newer as string))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('signs checkout tokens for a license or for a policy and account', async () => {
    const license = await issueOne();
    const forLicense = await admin.billing.createCheckoutToken({ licenseId: license.license_id, provider: 'stripe', priceId: 'price_123', ttlSeconds: 3600 });
    expect(forLicense).toMatchObject({ metadata_key: 'tollgate_checkout', product_id: bench.vendorA.productId, license_id: license.license_id, policy_id: null, provider: 'stripe', price_id: 'price_123' });
    expect(Date.parse(forLicense.expires_at) - Date.now()).toBeLessThanOrEqual(3600_000);
    expect(forLicense.token.length).toBeGreaterThan(20);

    const account = await admin.accounts.create({ productId: bench.vendorA.productId, email: `buyer-${randomId()}@example.com`, password: 'a long enough password' });
    const forPolicy = await admin.billing.createCheckoutToken({ policyId, accountId: account.account_id });
    expect(forPolicy).toMatchObject({ license_id: null, policy_id: policyId, account_id: account.account_id, provider: null });
    expect(await rejection(admin.billing.createCheckoutToken({ policyId, accountId: randomId() }))).toMatchObject({ code: 'not_found', status: 404 });
  });
});
