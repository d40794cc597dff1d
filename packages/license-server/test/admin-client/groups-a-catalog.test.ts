/**
 * The admin client's `catalog`, `policies`, `accounts` and `products` groups against a real license
 * server: every method once with its answer checked, and refusals as `AdminApiError` with the server's code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '@tollgate/core/crypto';
import { createAdminClient, type AdminClient } from '@tollgate/admin-client';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: Promise<unknown>): Promise<{ name: string; code: string; status?: number }> {
  const outcome = await call.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.resolved)}`);
  return outcome.error as { name: string; code: string; status?: number };
}

/** Every item of an async iterable. */
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

// One server for the file, on PGlite: these tests check the mapping of the client, not races.
const engine = serverEngines[0];
if (engine === undefined) throw new Error('no test engine');

describe(`admin client: catalog, policies, accounts, products [${engine.name}]`, () => {
  let bench: AdminHarness;
  let admin: AdminClient;
  let productId: string;

  beforeAll(async () => {
    bench = await openAdminHarness(engine);
    admin = createAdminClient({ baseUrl: bench.url, token: bench.vendorA.token });
    productId = bench.vendorA.productId;
  });
  afterAll(() => bench?.close());

  it('publishes, lists and edits catalog features, groups and tiers, and resolves entitlements', async () => {
    const pdf = await admin.catalog.features.create({ productId, id: 'export.pdf', name: 'PDF export', description: 'Writes PDF' });
    expect(pdf).toMatchObject({ id: 'export.pdf', product_id: productId, name: 'PDF export', description: 'Writes PDF' });
    expect(pdf).not.toHaveProperty('features');
    await admin.catalog.features.create({ productId, id: 'sync', name: 'Sync' });
    const group = await admin.catalog.groups.create({ productId, id: 'export', name: 'Export', features: ['export.pdf'] });
    expect(group).toMatchObject({ id: 'export', features: ['export.pdf'] });
    const tier = await admin.catalog.tiers.create({ productId, id: 'pro', name: 'Pro', features: ['sync'], groups: ['export'] });
    expect(tier).toMatchObject({ id: 'pro', features: ['sync'], groups: ['export'] });
    await admin.catalog.tiers.create({ productId, id: 'basic', name: 'Basic', features: ['sync'] });

    // Two pages of one feature each.
    expect((await all(admin.catalog.features.list({ productId, limit: 1 }))).map((item) => item.id)).toEqual(['export.pdf', 'sync']);
    expect((await all(admin.catalog.groups.list({ productId }))).map((item) => item.id)).toEqual(['export']);
    expect((await all(admin.catalog.tiers.list({ productId }))).map((item) => item.id)).toEqual(['pro', 'basic']);

    expect(await admin.catalog.features.update('sync', { productId, description: 'Cloud sync' })).toMatchObject({ id: 'sync', name: 'Sync', description: 'Cloud sync' });
    expect(await admin.catalog.groups.update('export', { productId, name: 'Exports' })).toMatchObject({ name: 'Exports', features: ['export.pdf'] });
    expect(await admin.catalog.tiers.update('basic', { productId, groups: ['export'] })).toMatchObject({ features: ['sync'], groups: ['export'] });

    const snapshot = await admin.catalog.resolve({ productId, tier: 'pro', overrides: { remove: ['sync'] } });
    expect(snapshot).toMatchObject({ product_id: productId, tier: 'pro', features: ['export.pdf'], digest: expect.stringMatching(/^[0-9a-f]{64}$/) });

    expect(await rejection(admin.catalog.features.create({ productId, id: 'sync', name: 'Again' }))).toMatchObject({ name: 'AdminApiError', code: 'catalog_item_exists', status: 409 });
    expect(await rejection(admin.catalog.groups.create({ productId, id: 'ghosts', name: 'Ghosts', features: ['nope'] }))).toMatchObject({ code: 'invalid_entitlement', status: 422 });
    expect(await rejection(admin.catalog.tiers.update('gold', { productId, name: 'Gold' }))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await rejection(admin.catalog.resolve({ productId: bench.vendorB.productId }))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('creates, reads, replaces and versions policies', async () => {
    await admin.catalog.features.create({ productId, id: 'policy-feature', name: 'Policy feature' });
    await admin.catalog.tiers.create({ productId, id: 'policy-tier', name: 'Policy tier', features: ['policy-feature'] });
    const created = await admin.policies.create({ product_id: productId, name: 'Team', seats: 5, tier: 'policy-tier', offline_allowed: true });
    expect(created.version).toBe(1);
    expect(created.warnings).toEqual(expect.any(Array));
    expect(created.policy).toMatchObject({ product_id: productId, name: 'Team', seats: 5, tier: 'policy-tier', offline_allowed: true, expiry_behavior: 'deny', telemetry: 'off' });
    const policyId = created.policy.id;

    const read = await admin.policies.get(policyId);
    expect(read).toMatchObject({ policy: created.policy, version: 1, updated_at: expect.any(String) });
    const replaced = await admin.policies.update(policyId, { ...read.policy, seats: 8 });
    expect(replaced).toMatchObject({ version: 2, policy: { id: policyId, seats: 8 } });
    const first = await admin.policies.get(policyId, { version: 1 });
    expect(first).toMatchObject({ version: 1, policy: { seats: 5 }, actor: expect.any(String) });

    const versions = await all(admin.policies.versions(policyId, { limit: 1 }));
    expect(versions.map((row) => [row.version, row.policy.seats])).toEqual([
      [2, 8],
      [1, 5],
    ]);
    const listed = await all(admin.policies.list({ productId }));
    expect(listed.find((row) => row.policy.id === policyId)).toMatchObject({ version: 2, policy: { seats: 8 } });

    expect(await rejection(admin.policies.create({ id: policyId, product_id: productId, name: 'Duplicate' }))).toMatchObject({ code: 'policy_exists', status: 409 });
    expect(await rejection(admin.policies.create({ product_id: productId, name: 'Bad tier', tier: 'no-such-tier' }))).toMatchObject({ code: 'invalid_entitlement', status: 422 });
    expect(await rejection(admin.policies.get(policyId, { version: 9 }))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await rejection(admin.policies.update(policyId, { ...read.policy, product_id: randomId() }))).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('creates and lists accounts by product and email', async () => {
    const email = `Ada-${randomId()}@Example.com`;
    const account = await admin.accounts.create({ productId, email, password: 'correct horse battery', maxDevices: 3 });
    expect(account).toMatchObject({ product_id: productId, email: email.toLowerCase(), max_devices: 3, status: 'active' });
    expect(account).not.toHaveProperty('password');
    await admin.accounts.create({ productId, email: `grace-${randomId()}@example.com`, password: 'another long password' });

    expect((await all(admin.accounts.list({ productId, limit: 1 }))).length).toBeGreaterThanOrEqual(2);
    expect((await all(admin.accounts.list({ email: ` ${email.toUpperCase()} ` }))).map((row) => row.account_id)).toEqual([account.account_id]);
    expect(await rejection(admin.accounts.create({ productId, email, password: 'correct horse battery' }))).toMatchObject({ code: 'account_exists', status: 409 });
    expect(await rejection(admin.accounts.create({ productId: bench.vendorB.productId, email: 'x@example.com', password: 'correct horse battery' }))).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it('reads and sets a product’s alert webhook', async () => {
    const unset = await admin.products.getAlertWebhook(productId);
    expect(unset).toMatchObject({ product_id: productId, alert_webhook: null });
    const set = await admin.products.setAlertWebhook(productId, { url: 'https://alerts.example.com/hook', threshold: 70 });
    expect(set).toMatchObject({ product_id: productId, alert_webhook: { url: 'https://alerts.example.com/hook', threshold: 70 } });
    expect((await admin.products.getAlertWebhook(productId)).alert_webhook).toEqual({ url: 'https://alerts.example.com/hook', threshold: 70 });
    expect(await rejection(admin.products.setAlertWebhook(productId, { url: 'http://127.0.0.1/hook', threshold: 70 }))).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(await rejection(admin.products.getAlertWebhook(bench.vendorB.productId))).toMatchObject({ code: 'not_found', status: 404 });
  });
});
