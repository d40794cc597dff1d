/**
 * Regression of review14: buyer-controlled checkout metadata (Lemon Squeezy `checkout[custom]`, Paddle.js
 * `customData`) must not reach another customer's license. Refunds resolve only through links the server
 * made; a live subscription link is never overwritten; a new subscription links only through a
 * server-signed checkout token whose bindings (provider, price/variant, expiry) hold. The victim's
 * license is checked untouched after every attack. Also: a paid event without a period keeps the expiry,
 * Lemon Squeezy events sharing a `webhook_id` are distinct, and partial refunds never revoke.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPolicy } from '../admin/admin-license-fixtures';
import { openClientBench, signedInAccount, type ClientBench } from '../client/client-harness';
import { killOrderOf, licensedDevice, ticketOf, type LicensedDevice } from '../client/client-session-helpers';
import { serverEngines } from '../helpers';
import { billingEnv, billingEventId, checkoutToken, freshId, lemonEvent, licenseRow, paddleEvent, processed, sendEvent, stripeEvent, stripeSubscription, type Provider } from './billing-fixtures';

const day = 86_400_000;
const lemonId = () => String(100_000 + Math.floor(Math.random() * 1e8));

async function deliver(bench: ClientBench, provider: Provider, payload: Record<string, unknown>) {
  const answer = await sendEvent(bench.url, provider, payload);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return processed(bench.admin.sql, provider, billingEventId(provider, payload));
}

const linkOf = async (bench: ClientBench, licenseId: string) =>
  (await bench.admin.sql.query<{ provider: string; external_id: string }>('SELECT provider, external_id FROM license_subscriptions WHERE license_id = $1', [licenseId])).rows;

for (const engine of serverEngines) {
  describe(`billing metadata takeover is refused [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, billingEnv);
    }, 120_000);
    afterAll(() => bench?.close());

    /** A victim paying through Stripe, linked through a checkout token; returns the state to compare against. */
    async function stripeVictim(): Promise<{ victim: LicensedDevice; subscriptionId: string; token: string; expiresAt: number | undefined }> {
      const victim = await licensedDevice(bench);
      const subscriptionId = freshId('sub');
      const token = await checkoutToken(bench.admin, { license_id: victim.licenseId });
      const row = await deliver(bench, 'stripe', stripeEvent('customer.subscription.created', stripeSubscription(subscriptionId, { metadata: { tollgate_checkout: token } })));
      expect(row).toMatchObject({ outcome: 'license_updated', license_id: victim.licenseId });
      return { victim, subscriptionId, token, expiresAt: (await licenseRow(bench.admin.sql, victim.licenseId))?.expires_at?.getTime() };
    }

    async function expectUntouched(state: Awaited<ReturnType<typeof stripeVictim>>) {
      expect(await licenseRow(bench.admin.sql, state.victim.licenseId)).toMatchObject({ status: 'active', revocation_reason: null });
      expect((await licenseRow(bench.admin.sql, state.victim.licenseId))?.expires_at?.getTime()).toBe(state.expiresAt);
      expect(await linkOf(bench, state.victim.licenseId)).toEqual([{ provider: 'stripe', external_id: state.subscriptionId }]);
      await ticketOf(bench, await bench.validate(state.victim.device, state.victim.seat));
    }

    it("an attacker's refunded order naming the victim (plain id or the victim's own token) revokes nothing", async () => {
      const state = await stripeVictim();
      for (const custom of [{ tollgate_license_id: state.victim.licenseId }, { tollgate_checkout: state.token }]) {
        const refund = lemonEvent('order_refunded', { id: lemonId(), type: 'orders', attributes: { status: 'refunded', refunded: true, updated_at: new Date().toISOString() } }, custom);
        expect(await deliver(bench, 'lemonsqueezy', refund)).toMatchObject({ outcome: 'unmapped:no_license', license_id: null });
        const charge = stripeEvent('charge.refunded', { id: freshId('ch'), refunded: true, metadata: custom });
        expect(await deliver(bench, 'stripe', charge)).toMatchObject({ outcome: 'unmapped:no_license', license_id: null });
      }
      await expectUntouched(state);
    });

    it("an attacker's subscription naming the victim never replaces the victim's link, and its expiry ends nothing", async () => {
      const state = await stripeVictim();
      const attackerSub = lemonId();
      const attributes = { status: 'active', renews_at: new Date(Date.now() + day).toISOString(), updated_at: new Date().toISOString() };
      const plain = lemonEvent('subscription_created', { id: attackerSub, type: 'subscriptions', attributes }, { tollgate_license_id: state.victim.licenseId });
      expect((await deliver(bench, 'lemonsqueezy', plain))?.outcome).toBe('unmapped:no_checkout_token');
      // Even the victim's genuine token (seen in a shared link, say) cannot move a live link.
      const withToken = lemonEvent('subscription_updated', { id: attackerSub, type: 'subscriptions', attributes: { ...attributes, updated_at: new Date(Date.now() + 1000).toISOString() } }, { tollgate_checkout: state.token });
      expect((await deliver(bench, 'lemonsqueezy', withToken))?.outcome).toBe('unmapped:license_has_subscription');
      const expire = lemonEvent('subscription_expired', { id: attackerSub, type: 'subscriptions', attributes: { status: 'expired', ends_at: new Date().toISOString(), updated_at: new Date(Date.now() + 2000).toISOString() } }, { tollgate_checkout: state.token });
      expect((await deliver(bench, 'lemonsqueezy', expire))?.outcome).toBe('unmapped:no_license');
      await expectUntouched(state);
    });

    it('issues only the policy and price the token binds: tampering, another price, provider or an expired token map nothing', async () => {
      const account = await signedInAccount(bench);
      const premium = await seedPolicy(bench.admin, bench.admin.vendorA, { seats: 10 });
      const cheap = await seedPolicy(bench.admin, bench.admin.vendorA, { seats: 1 });
      const token = await checkoutToken(bench.admin, { policy_id: cheap, account_id: account.accountId, price_id: '11' });
      const licensesOf = async () => (await bench.admin.sql.query<{ policy_id: string }>('SELECT policy_id FROM license_licenses WHERE account_id = $1', [account.accountId])).rows;
      const created = (custom: Record<string, unknown>, variant: number) =>
        lemonEvent('subscription_created', { id: lemonId(), type: 'subscriptions', attributes: { status: 'active', variant_id: variant, renews_at: new Date(Date.now() + day).toISOString(), updated_at: new Date().toISOString() } }, custom);
      // Plain ids, as the PoC set them: ignored.
      expect((await deliver(bench, 'lemonsqueezy', created({ tollgate_policy_id: premium, tollgate_account_id: account.accountId }, 11)))?.outcome).toBe('unmapped:no_checkout_token');
      // The token with the premium policy spliced in: the MAC fails.
      const spliced = token.split('.');
      spliced[3] = premium;
      expect((await deliver(bench, 'lemonsqueezy', created({ tollgate_checkout: spliced.join('.') }, 11)))?.outcome).toBe('unmapped:invalid_checkout_token');
      // The genuine token on a checkout of another variant.
      expect((await deliver(bench, 'lemonsqueezy', created({ tollgate_checkout: token }, 12)))?.outcome).toBe('unmapped:checkout_token_price');
      // Bound to Stripe, used on Paddle.
      const stripeOnly = await checkoutToken(bench.admin, { policy_id: cheap, account_id: account.accountId, provider: 'stripe' });
      const paddle = paddleEvent('subscription.created', { id: freshId('sub'), status: 'active', current_billing_period: { ends_at: new Date(Date.now() + day).toISOString() }, custom_data: { tollgate_checkout: stripeOnly } });
      expect((await deliver(bench, 'paddle', paddle))?.outcome).toBe('unmapped:checkout_token_provider');
      // Used after it expired (the provider's event time is past the token's expiry).
      const shortLived = await checkoutToken(bench.admin, { policy_id: cheap, account_id: account.accountId, ttl_seconds: 60 });
      const late = stripeEvent('customer.subscription.created', stripeSubscription(freshId('sub'), { metadata: { tollgate_checkout: shortLived } }), Math.floor(Date.now() / 1000) + 3600);
      expect((await deliver(bench, 'stripe', late))?.outcome).toBe('unmapped:checkout_token_expired');
      expect(await licensesOf()).toEqual([]);
      // The genuine token on its own variant: the cheap policy, nothing else.
      const issued = await deliver(bench, 'lemonsqueezy', created({ tollgate_checkout: token }, 11));
      expect(issued?.outcome).toBe('license_issued');
      expect(await licensesOf()).toEqual([{ policy_id: cheap }]);
    });

    it("refunds through the server's own links still revoke: a Lemon Squeezy order recorded from its subscription", async () => {
      const licensed = await licensedDevice(bench);
      const subscriptionId = lemonId();
      const orderId = lemonId();
      const token = await checkoutToken(bench.admin, { license_id: licensed.licenseId, provider: 'lemonsqueezy' });
      const attributes = { status: 'active', order_id: Number(orderId), renews_at: new Date(Date.now() + 30 * day).toISOString(), updated_at: new Date().toISOString() };
      expect((await deliver(bench, 'lemonsqueezy', lemonEvent('subscription_created', { id: subscriptionId, type: 'subscriptions', attributes }, { tollgate_checkout: token })))?.outcome).toBe('license_updated');
      // A partial refund (Lemon Squeezy also sets refunded: true on it) leaves the license alone.
      const partial = lemonEvent('order_refunded', { id: orderId, type: 'orders', attributes: { status: 'partial_refund', refunded: true, updated_at: new Date().toISOString() } });
      const partialAnswer = await sendEvent(bench.url, 'lemonsqueezy', partial);
      expect([partialAnswer.status, partialAnswer.body.ignored]).toEqual([200, true]);
      expect((await licenseRow(bench.admin.sql, licensed.licenseId))?.status).toBe('active');
      const full = lemonEvent('order_refunded', { id: orderId, type: 'orders', attributes: { status: 'refunded', refunded: true, updated_at: new Date(Date.now() + 1000).toISOString() } });
      expect(await deliver(bench, 'lemonsqueezy', full)).toMatchObject({ outcome: 'license_revoked', license_id: licensed.licenseId });
      expect((await killOrderOf(bench, await bench.validate(licensed.device, licensed.seat))).reason).toBe(5);
    });

    it('keeps a time-limited expiry when a paid event carries no period end, and keys Lemon Squeezy events per event', async () => {
      const licensed = await licensedDevice(bench, {}, { expires_at: new Date(Date.now() + 90 * day).toISOString() });
      const before = (await licenseRow(bench.admin.sql, licensed.licenseId))?.expires_at?.getTime();
      expect(before).toBeGreaterThan(Date.now());
      const subscriptionId = lemonId();
      const token = await checkoutToken(bench.admin, { license_id: licensed.licenseId });
      const sameWebhook = freshId('wh');
      const first = lemonEvent('subscription_created', { id: subscriptionId, type: 'subscriptions', attributes: { status: 'active', updated_at: new Date().toISOString() } }, { tollgate_checkout: token });
      (first['meta'] as Record<string, unknown>)['webhook_id'] = sameWebhook;
      expect((await deliver(bench, 'lemonsqueezy', first))?.outcome).toBe('license_updated');
      const after = await licenseRow(bench.admin.sql, licensed.licenseId);
      expect(after?.expires_at).not.toBeNull();
      expect(after?.expires_at?.getTime()).toBe(before);
      // A second event from the same webhook configuration is its own event, not a duplicate.
      const second = lemonEvent('subscription_updated', { id: subscriptionId, type: 'subscriptions', attributes: { status: 'past_due', updated_at: new Date(Date.now() + 1000).toISOString() } });
      (second['meta'] as Record<string, unknown>)['webhook_id'] = sameWebhook;
      expect((await deliver(bench, 'lemonsqueezy', second))?.outcome).toBe('license_updated');
      // The exact redelivery is the duplicate.
      const again = await sendEvent(bench.url, 'lemonsqueezy', second);
      expect([again.status, again.body.duplicate]).toEqual([200, true]);
    });
  });
}
