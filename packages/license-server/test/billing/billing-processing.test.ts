/**
 * The billing event job applying queued events to licenses, observed through the tables, the audit log
 * and the client protocol: the subscription lifecycle (grant, dunning grace, cancel at period end, end),
 * out-of-order delivery, duplicates, issuance to an account, and refunds/chargebacks revoking through
 * the Admin revoke path so the next validate answers a kill order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { seedPolicy } from '../admin/admin-license-fixtures';
import { newDevice, openClientBench, signedInAccount, type ClientBench } from '../client/client-harness';
import { killOrderOf, licensedDevice, ticketOf } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { billingEnv, billingEventId, checkoutToken, freshId, lemonEvent, licenseRow, paddleEvent, processed, sendEvent, stripeEvent, stripeSubscription, type Provider } from './billing-fixtures';

const day = 86_400;
const grace = 7 * day * 1000;
const seconds = () => Math.floor(Date.now() / 1000);

async function deliver(bench: ClientBench, provider: Provider, payload: Record<string, unknown>) {
  const answer = await sendEvent(bench.url, provider, payload);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  const eventId = billingEventId(provider, payload);
  return { eventId, row: await processed(bench.admin.sql, provider, eventId) };
}

async function auditOf(bench: ClientBench, licenseId: string) {
  const { rows } = await bench.admin.sql.query<{ actor: string; action: string; summary: string }>(
    "SELECT actor, action, summary FROM license_audit_events WHERE target_type = 'license' AND target_id = $1 ORDER BY seq",
    [licenseId],
  );
  return rows.map((row) => ({ actor: row.actor, action: row.action, summary: JSON.parse(row.summary) as Record<string, unknown> }));
}

for (const engine of serverEngines) {
  describe(`billing event processing [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, billingEnv);
    }, 120_000);
    afterAll(() => bench?.close());

    it('walks a Stripe subscription through grant, dunning grace and cancel at period end, auditing each change with the event id', async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = freshId('sub');
      const periodEnd = seconds() + 30 * day;
      const metadata = { tollgate_checkout: await checkoutToken(bench.admin, { license_id: licensed.licenseId, provider: 'stripe' }) };
      const created = await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { current_period_end: periodEnd, metadata }), seconds() - 30));
      expect(created.row).toMatchObject({ status: 'processed', outcome: 'license_updated', license_id: licensed.licenseId });
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(periodEnd * 1000 + grace);

      const failedAt = seconds() - 20;
      const pastDue = await deliver(bench, 'stripe', stripeEvent('customer.subscription.updated', stripeSubscription(subscriptionId, { status: 'past_due', current_period_end: periodEnd + 30 * day }), failedAt));
      expect(pastDue.row?.outcome).toBe('license_updated');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(failedAt * 1000 + grace);
      // Still inside the grace: the device keeps validating.
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));

      const cancel = await deliver(bench, 'stripe', stripeEvent('customer.subscription.updated', stripeSubscription(subscriptionId, { cancel_at_period_end: true, current_period_end: periodEnd }), seconds() - 10));
      expect(cancel.row?.outcome).toBe('license_updated');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(periodEnd * 1000);

      const audit = (await auditOf(bench, licensed.licenseId)).filter((entry) => entry.actor === 'billing:stripe');
      expect(audit.map((entry) => entry.summary['billing_event_id'])).toEqual([created.eventId, pastDue.eventId, cancel.eventId]);
      expect(audit.map((entry) => entry.summary['effect'])).toEqual(['grant', 'dunning', 'cancel']);
      const subscription = await bench.admin.call('GET', `/licenses/${licensed.licenseId}/preview-fallback`);
      expect(subscription.body.subscription).toMatchObject({ provider: 'stripe', subscription_id: subscriptionId, status: 'active', last_event_id: cancel.eventId });
      expect(subscription.body.access_until).toBe(new Date(periodEnd * 1000).toISOString());
    });

    it('never lets an older event overwrite a newer state, and applies a duplicate once', async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = freshId('sub');
      const metadata = { tollgate_checkout: await checkoutToken(bench.admin, { license_id: licensed.licenseId }) };
      const endedAt = seconds() - 5;
      expect((await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { metadata }), endedAt - 120))).row?.outcome).toBe('license_updated');
      const newer = stripeEvent('customer.subscription.deleted', stripeSubscription(subscriptionId, { status: 'canceled', ended_at: endedAt, metadata }), endedAt);
      const older = stripeEvent('customer.subscription.updated', stripeSubscription(subscriptionId, { metadata }), endedAt - 60);
      expect((await deliver(bench, 'stripe', newer)).row?.outcome).toBe('license_updated');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(endedAt * 1000);
      // The older "updated" arrives last: it is recorded as stale and the license stays ended.
      expect((await deliver(bench, 'stripe', older)).row?.outcome).toBe('stale');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(endedAt * 1000);
      // The newer event again: a duplicate, answered 200 and applied once.
      const again = await sendEvent(bench.url, 'stripe', newer);
      expect([again.status, again.body.duplicate]).toEqual([200, true]);
      const billingAudit = (await auditOf(bench, licensed.licenseId)).filter((entry) => entry.actor === 'billing:stripe');
      expect(billingAudit).toHaveLength(2);
    });

    it('revokes on a Stripe refund of a paid invoice, so the next validate is a refund kill order', async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = freshId('sub');
      const charge = freshId('ch');
      await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { metadata: { tollgate_checkout: await checkoutToken(bench.admin, { license_id: licensed.licenseId }) } })));
      const invoice = { id: freshId('in'), object: 'invoice', charge, payment_intent: freshId('pi'), parent: { subscription_details: { subscription: subscriptionId, metadata: {} } } };
      expect((await deliver(bench, 'stripe', stripeEvent('invoice.paid', invoice))).row?.outcome).toBe('payment_recorded');
      await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      const refund = await deliver(bench, 'stripe', stripeEvent('charge.refunded', { id: charge, object: 'charge', refunded: true, amount_refunded: 1000, metadata: {} }));
      expect(refund.row).toMatchObject({ outcome: 'license_revoked', license_id: licensed.licenseId });
      expect(await licenseRow(bench.admin.sql, licensed.licenseId)).toMatchObject({ status: 'revoked', revocation_reason: 5 });
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(5);
      const revoke = (await auditOf(bench, licensed.licenseId)).find((entry) => entry.action === 'license.revoke');
      expect(revoke).toMatchObject({ actor: 'billing:stripe', summary: { billing_event_id: refund.eventId, reversal: 'refund', reason: 5 } });
      // A later "active" update cannot bring a revoked license back.
      const late = await deliver(bench, 'stripe', stripeEvent('customer.subscription.updated', stripeSubscription(subscriptionId), seconds() + 1));
      expect(late.row?.outcome).toBe('already_revoked');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.status).toBe('revoked');
    });

    it('revokes on a Paddle chargeback (fraud kill order) after a Paddle subscription granted access', async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = freshId('sub');
      const endsAt = new Date(Date.now() + 30 * day * 1000);
      const activated = await deliver(
        bench,
        'paddle',
        paddleEvent('subscription.activated', { id: subscriptionId, status: 'active', current_billing_period: { starts_at: new Date().toISOString(), ends_at: endsAt.toISOString() }, custom_data: { tollgate_checkout: await checkoutToken(bench.admin, { license_id: licensed.licenseId, provider: 'paddle' }) } }),
      );
      expect(activated.row?.outcome).toBe('license_updated');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(endsAt.getTime() + grace);
      const chargeback = await deliver(bench, 'paddle', paddleEvent('adjustment.created', { id: freshId('adj'), action: 'chargeback', status: 'approved', type: 'full', subscription_id: subscriptionId, transaction_id: freshId('txn') }));
      expect(chargeback.row?.outcome).toBe('license_revoked');
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(4);
    });

    it('handles Lemon Squeezy: a subscription grants, a refunded subscription payment revokes', async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = String(100_000 + Math.floor(Math.random() * 1_000_000));
      const renewsAt = new Date(Date.now() + 30 * day * 1000);
      const created = await deliver(
        bench,
        'lemonsqueezy',
        lemonEvent('subscription_created', { id: subscriptionId, type: 'subscriptions', attributes: { status: 'active', renews_at: renewsAt.toISOString(), updated_at: new Date().toISOString() } }, { tollgate_checkout: await checkoutToken(bench.admin, { license_id: licensed.licenseId }) }),
      );
      expect(created.row?.outcome).toBe('license_updated');
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime()).toBe(renewsAt.getTime() + grace);
      const refunded = await deliver(
        bench,
        'lemonsqueezy',
        lemonEvent('subscription_payment_refunded', { id: '9', type: 'subscription-invoices', attributes: { subscription_id: Number(subscriptionId), status: 'refunded', refunded: true, updated_at: new Date().toISOString() } }),
      );
      expect(refunded.row?.outcome).toBe('license_revoked');
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(5);
    });

    it('issues a license to the account a new subscription names, which its owner activates by signing in; unmapped subscriptions change nothing', async () => {
      const account = await signedInAccount(bench);
      const policyId = await seedPolicy(bench.admin, bench.admin.vendorA, { seats: 2 });
      const subscriptionId = freshId('sub');
      const metadata = { tollgate_checkout: await checkoutToken(bench.admin, { policy_id: policyId, account_id: account.accountId, provider: 'stripe', price_id: 'price_pro' }) };
      const items = { data: [{ id: 'si_1', price: { id: 'price_pro' } }] };
      const issued = await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { metadata, items })));
      expect(issued.row?.outcome).toBe('license_issued');
      const licenseId = issued.row?.license_id as string;
      expect(await licenseRow(bench.admin.sql, licenseId)).toMatchObject({ status: 'active', account_id: account.accountId, policy_id: policyId });
      const seat = await bench.seat(newDevice(), { accountToken: account.accessToken });
      expect(hexEncode(seat.licenseId)).toBe(licenseId);
      // A redelivered "created" with a new event id reuses the subscription's license: no second issue.
      const again = await deliver(bench, 'stripe', stripeEvent('customer.subscription.updated', stripeSubscription(subscriptionId, { metadata, items })));
      expect(again.row).toMatchObject({ outcome: 'license_updated', license_id: licenseId });
      const { rows } = await bench.admin.sql.query<{ count: string }>('SELECT count(*) AS count FROM license_licenses WHERE account_id = $1', [account.accountId]);
      expect(Number(rows[0]?.count)).toBe(1);
      const unmapped = await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(freshId('sub'))));
      expect(unmapped.row).toMatchObject({ status: 'processed', outcome: 'unmapped:no_checkout_token', license_id: null });
    });
  });
}
