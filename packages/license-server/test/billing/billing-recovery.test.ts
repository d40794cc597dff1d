/**
 * Durability of the billing queue across server instances: an event accepted by an instance that then
 * stops (or dies) before applying it is applied by the next instance; and, on PostgreSQL, concurrent
 * redeliveries and two workers never apply one event twice, and a license row held by another
 * transaction makes the attempt fail and retry with backoff instead of being lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { billingEnv, checkoutToken, eventRow, freshId, licenseRow, processed, sendEvent, stripeEvent, stripeSubscription } from './billing-fixtures';

async function freshLicense(bench: AdminHarness): Promise<string> {
  const [license] = await issueLicenses(bench, await seedPolicy(bench, bench.vendorA));
  return license?.license_id as string;
}

for (const engine of serverEngines) {
  describe(`billing queue recovery [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      // This instance accepts only: it stands for one that dies between accepting and applying.
      bench = await openAdminHarness(engine, { ...billingEnv, BILLING_WORKER: 'false' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('applies, on a new server instance, an event the previous instance accepted but never processed', async () => {
      const licenseId = await freshLicense(bench);
      const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
      const payload = stripeEvent('customer.subscription.created', stripeSubscription(freshId('sub'), { current_period_end: periodEnd, metadata: { tollgate_checkout: await checkoutToken(bench, { license_id: licenseId }) } }));
      expect((await sendEvent(bench.url, 'stripe', payload)).status).toBe(202);
      expect(await eventRow(bench.sql, 'stripe', payload['id'] as string)).toMatchObject({ status: 'pending', attempts: 0 });
      expect((await licenseRow(bench.sql, licenseId))?.expires_at).toBeNull();
      await bench.server.close();
      const next = await bench.sandbox.start(billingEnv);
      const row = await processed(next.context.sql, 'stripe', payload['id'] as string);
      expect(row).toMatchObject({ status: 'processed', outcome: 'license_updated', license_id: licenseId });
      expect((await licenseRow(next.context.sql, licenseId))?.expires_at?.getTime()).toBe(periodEnd * 1000 + 7 * 86_400_000);
      // The redelivery the provider sends because the first instance died reaches the new one: a duplicate.
      const again = await sendEvent(next.url, 'stripe', payload);
      expect([again.status, again.body.duplicate]).toEqual([200, true]);
    });
  });
}

const postgres = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(postgres === undefined)(`billing races [postgres]`, () => {
  let bench: AdminHarness;
  let second: string;
  beforeAll(async () => {
    bench = await openAdminHarness(postgres!, billingEnv);
    second = (await bench.sandbox.start(billingEnv)).url;
  }, 120_000);
  afterAll(() => bench?.close());

  it('of 20 concurrent deliveries of one event to two instances, queues one and applies it once', async () => {
    const licenseId = await freshLicense(bench);
    const payload = stripeEvent('customer.subscription.created', stripeSubscription(freshId('sub'), { metadata: { tollgate_checkout: await checkoutToken(bench, { license_id: licenseId }) } }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => sendEvent(index % 2 === 0 ? bench.url : second, 'stripe', payload)));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 200 && answer.body.duplicate === true)).toHaveLength(19);
    expect((await processed(bench.sql, 'stripe', payload['id'] as string))?.attempts).toBe(1);
    const { rows } = await bench.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_audit_events WHERE target_id = $1 AND actor = 'billing:stripe'", [licenseId]);
    expect(Number(rows[0]?.count)).toBe(1);
  });

  it('retries a refund whose license row another transaction holds, and revokes once it is free', async () => {
    const licenseId = await freshLicense(bench);
    // The refund finds the license only through the charge a paid invoice of its linked subscription recorded.
    const subscriptionId = freshId('sub');
    const charge = freshId('ch');
    const created = stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { metadata: { tollgate_checkout: await checkoutToken(bench, { license_id: licenseId }) } }));
    await sendEvent(bench.url, 'stripe', created);
    expect((await processed(bench.sql, 'stripe', created['id'] as string))?.outcome).toBe('license_updated');
    const paid = stripeEvent('invoice.paid', { id: freshId('in'), object: 'invoice', charge, subscription: subscriptionId });
    await sendEvent(bench.url, 'stripe', paid);
    expect((await processed(bench.sql, 'stripe', paid['id'] as string))?.outcome).toBe('payment_recorded');
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: bench.sandbox.env['LICENSE_DATABASE_URL'] });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM license_licenses WHERE license_id = $1 FOR UPDATE', [licenseId]);
      const payload = stripeEvent('charge.refunded', { id: charge, refunded: true, metadata: {} });
      expect((await sendEvent(bench.url, 'stripe', payload)).status).toBe(202);
      let row = await eventRow(bench.sql, 'stripe', payload['id'] as string);
      for (let round = 0; round < 200 && (row?.attempts ?? 0) === 0; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        row = await eventRow(bench.sql, 'stripe', payload['id'] as string);
      }
      expect(row).toMatchObject({ status: 'pending', outcome: null });
      expect(row?.attempts).toBeGreaterThanOrEqual(1);
      await holder.query('ROLLBACK');
      expect(await processed(bench.sql, 'stripe', payload['id'] as string)).toMatchObject({ status: 'processed', outcome: 'license_revoked' });
      expect((await licenseRow(bench.sql, licenseId))?.status).toBe('revoked');
    } finally {
      await holder.end();
    }
  });
});
