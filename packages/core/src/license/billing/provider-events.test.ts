import { describe, expect, it } from 'vitest';
import { billingAccessUntil } from './apply-billing-event';
import type { BillingEvent } from './billing-event';
import { parseBillingEvent } from './provider-events';
import type { WebhookProvider } from './webhook-signature';

const licenseId = 'ab'.repeat(16);
const token = 'tgc1.checkout-token';
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const parse = (provider: WebhookProvider, value: unknown) => parseBillingEvent(provider, bytes(value));
const eventOf = (provider: WebhookProvider, value: unknown): BillingEvent => {
  const parsed = parse(provider, value);
  if (parsed.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(parsed)}`);
  return parsed.event;
};

const stripeSubscription = (type: string, object: Record<string, unknown>) => ({
  id: 'evt_1',
  type,
  created: 1_760_000_000,
  data: { object: { id: 'sub_1', status: 'active', current_period_end: 1_762_000_000, metadata: { tollgate_checkout: token, tollgate_license_id: licenseId }, ...object } },
});

describe('parseBillingEvent: Stripe', () => {
  it('maps subscription states to effects', () => {
    const active = eventOf('stripe', stripeSubscription('customer.subscription.created', {}));
    expect(active).toMatchObject({ eventId: 'evt_1', occurredAt: 1_760_000_000_000, effect: 'grant', subscriptionId: 'sub_1', status: 'active', periodEnd: 1_762_000_000_000 });
    // Only the checkout token is read: plain ids are ignored (a buyer may set custom data).
    expect(active.mapping).toEqual({ checkoutToken: token, priceIds: [] });
    const priced = eventOf('stripe', stripeSubscription('customer.subscription.created', { items: { data: [{ price: { id: 'price_a' } }, { price: { id: 'price_b' } }, { price: {} }] } }));
    expect(priced.mapping.priceIds).toEqual(['price_a', 'price_b']);
    expect(eventOf('stripe', stripeSubscription('customer.subscription.updated', { status: 'past_due' })).effect).toBe('dunning');
    const cancelling = eventOf('stripe', stripeSubscription('customer.subscription.updated', { cancel_at_period_end: true }));
    expect(cancelling).toMatchObject({ effect: 'cancel', periodEnd: 1_762_000_000_000 });
    const deleted = eventOf('stripe', stripeSubscription('customer.subscription.deleted', { status: 'canceled', ended_at: 1_760_000_100 }));
    expect(deleted).toMatchObject({ effect: 'end', status: 'canceled', periodEnd: 1_760_000_100_000 });
    expect(eventOf('stripe', stripeSubscription('customer.subscription.updated', { status: 'unpaid' })).effect).toBe('end');
    // The period moved to the items in newer API versions.
    const items = eventOf('stripe', stripeSubscription('customer.subscription.updated', { current_period_end: undefined, items: { data: [{ current_period_end: 1_763_000_000 }] } }));
    expect(items.periodEnd).toBe(1_763_000_000_000);
  });

  it('ignores an incomplete subscription, a partial refund and unknown names', () => {
    expect(parse('stripe', stripeSubscription('customer.subscription.created', { status: 'incomplete' }))).toEqual({ kind: 'ignored', eventType: 'customer.subscription.created' });
    expect(parse('stripe', { id: 'evt_2', type: 'charge.refunded', created: 1, data: { object: { id: 'ch_1', refunded: false } } }).kind).toBe('ignored');
    expect(parse('stripe', { id: 'evt_3', type: 'customer.created', created: 1, data: { object: {} } })).toEqual({ kind: 'ignored', eventType: 'customer.created' });
  });

  it('maps refunds, disputes and paid invoices with their payment ids', () => {
    const refund = eventOf('stripe', { id: 'evt_4', type: 'charge.refunded', created: 1_760_000_000, data: { object: { id: 'ch_1', payment_intent: 'pi_1', refunded: true } } });
    expect(refund).toMatchObject({ effect: 'reverse', reversal: 'refund', paymentRefs: ['ch_1', 'pi_1'] });
    const dispute = eventOf('stripe', { id: 'evt_5', type: 'charge.dispute.created', created: 1_760_000_000, data: { object: { id: 'dp_1', charge: 'ch_1' } } });
    expect(dispute).toMatchObject({ effect: 'reverse', reversal: 'chargeback', paymentRefs: ['ch_1'] });
    const invoice = eventOf('stripe', {
      id: 'evt_6',
      type: 'invoice.paid',
      created: 1_760_000_000,
      data: { object: { id: 'in_1', charge: 'ch_1', payment_intent: 'pi_1', parent: { subscription_details: { subscription: 'sub_1', metadata: { tollgate_license_id: licenseId } } } } },
    });
    expect(invoice).toMatchObject({ effect: 'record_payment', subscriptionId: 'sub_1', paymentRefs: ['ch_1', 'pi_1'], mapping: { checkoutToken: null, priceIds: [] } });
    // A refund's metadata is never read: it resolves only through recorded payments.
    const tagged = eventOf('stripe', { id: 'evt_7', type: 'charge.refunded', created: 1_760_000_000, data: { object: { id: 'ch_2', refunded: true, metadata: { tollgate_checkout: token } } } });
    expect(tagged.mapping).toEqual({ checkoutToken: null, priceIds: [] });
  });
});

describe('parseBillingEvent: Paddle and Lemon Squeezy', () => {
  it('maps Paddle subscriptions, scheduled cancellations and adjustments', () => {
    const base = { event_id: 'evt_p1', occurred_at: '2025-10-09T10:00:00.123456Z', data: { id: 'sub_p1', status: 'active', current_billing_period: { ends_at: '2025-11-09T10:00:00Z' }, custom_data: { tollgate_checkout: token }, items: [{ price: { id: 'pri_1' } }] } };
    expect(eventOf('paddle', { ...base, event_type: 'subscription.activated' })).toMatchObject({ mapping: { checkoutToken: token, priceIds: ['pri_1'] }, effect: 'grant', periodEnd: Date.parse('2025-11-09T10:00:00Z'), occurredAt: Date.parse('2025-10-09T10:00:00.123Z') });
    const scheduled = eventOf('paddle', { ...base, event_type: 'subscription.updated', data: { ...base.data, scheduled_change: { action: 'cancel', effective_at: '2025-11-09T10:00:00Z' } } });
    expect(scheduled.effect).toBe('cancel');
    expect(eventOf('paddle', { ...base, event_type: 'subscription.canceled', data: { ...base.data, status: 'canceled', canceled_at: '2025-10-09T10:00:00Z' } }).effect).toBe('end');
    const refund = { event_id: 'evt_p2', event_type: 'adjustment.updated', occurred_at: '2025-10-09T10:00:00Z', data: { action: 'refund', status: 'approved', type: 'full', subscription_id: 'sub_p1', transaction_id: 'txn_1' } };
    expect(eventOf('paddle', refund)).toMatchObject({ effect: 'reverse', reversal: 'refund', subscriptionId: 'sub_p1' });
    expect(parse('paddle', { ...refund, data: { ...refund.data, status: 'pending_approval' } }).kind).toBe('ignored');
    expect(parse('paddle', { ...refund, data: { ...refund.data, type: 'partial' } }).kind).toBe('ignored');
    expect(eventOf('paddle', { ...refund, data: { ...refund.data, action: 'chargeback', status: 'approved' } }).reversal).toBe('chargeback');
  });

  it('maps Lemon Squeezy subscriptions and refunds, keyed per event (not by meta.webhook_id)', () => {
    const payload = {
      meta: { event_name: 'subscription_cancelled', custom_data: { tollgate_checkout: token }, webhook_id: 'wh_config' },
      data: { id: '42', type: 'subscriptions', attributes: { status: 'cancelled', order_id: 900, variant_id: 77, ends_at: '2025-11-09T10:00:00.000000Z', updated_at: '2025-10-09T10:00:00.000000Z' } },
    };
    const cancelled = eventOf('lemonsqueezy', payload);
    expect(cancelled).toMatchObject({ effect: 'cancel', subscriptionId: '42', status: 'canceled', periodEnd: Date.parse('2025-11-09T10:00:00Z'), paymentRefs: ['order:900'] });
    expect(cancelled.mapping).toEqual({ checkoutToken: token, priceIds: ['77'] });
    expect(cancelled.eventId).toMatch(/^lsq:[0-9a-f]{64}$/);
    // The same webhook id with another change of the object is another event; a redelivery is the same one.
    const later = { ...payload, data: { ...payload.data, attributes: { ...payload.data.attributes, updated_at: '2025-10-09T11:00:00.000000Z' } } };
    expect(eventOf('lemonsqueezy', later).eventId).not.toBe(cancelled.eventId);
    expect(eventOf('lemonsqueezy', { ...payload, meta: { ...payload.meta, webhook_id: 'wh_other' } }).eventId).toBe(cancelled.eventId);
    expect(eventOf('lemonsqueezy', { ...payload, meta: { ...payload.meta, event_name: 'subscription_updated' } }).eventId).not.toBe(cancelled.eventId);
    // Without an object id or time, the body's digest.
    expect(eventOf('lemonsqueezy', { ...payload, data: { ...payload.data, id: undefined } }).eventId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const refunded = eventOf('lemonsqueezy', {
      meta: { event_name: 'subscription_payment_refunded', custom_data: {} },
      data: { id: '7', type: 'subscription-invoices', attributes: { subscription_id: 42, status: 'refunded', refunded: true, updated_at: '2025-10-10T00:00:00Z' } },
    });
    expect(refunded).toMatchObject({ effect: 'reverse', subscriptionId: '42', reversal: 'refund' });
    const order = { meta: { event_name: 'order_refunded', custom_data: { tollgate_checkout: token } }, data: { id: '900', type: 'orders', attributes: { status: 'refunded', refunded: true, updated_at: '2025-10-10T00:00:00Z' } } };
    expect(eventOf('lemonsqueezy', order)).toMatchObject({ effect: 'reverse', subscriptionId: null, paymentRefs: ['order:900'], mapping: { checkoutToken: null } });
    // A partial refund (`refunded: true`, `status: partial_refund`) leaves the purchase standing.
    expect(parse('lemonsqueezy', { ...order, data: { ...order.data, attributes: { ...order.data.attributes, status: 'partial_refund' } } }).kind).toBe('ignored');
    expect(parse('lemonsqueezy', { meta: { event_name: 'subscription_payment_refunded' }, data: { id: '8', type: 'subscription-invoices', attributes: { subscription_id: 42, status: 'partial_refund', refunded: true, updated_at: '2025-10-10T00:00:00Z' } } }).kind).toBe('ignored');
  });

  it('calls bodies without an id, a type or a time malformed, and never throws on junk', () => {
    expect(parse('stripe', [1, 2]).kind).toBe('malformed');
    expect(parse('stripe', { type: 'customer.subscription.created', created: 1 }).kind).toBe('malformed');
    expect(parse('paddle', { event_id: 'e', event_type: 'subscription.created' }).kind).toBe('malformed');
    expect(parseBillingEvent('lemonsqueezy', new Uint8Array([0xff, 0xfe])).kind).toBe('malformed');
    expect(parseBillingEvent('stripe', new TextEncoder().encode('{"id":"a","id":"b"}')).kind).toBe('malformed');
  });
});

describe('billingAccessUntil', () => {
  const grace = 7 * 86_400;
  const event = (effect: BillingEvent['effect'], periodEnd: number | null): BillingEvent => ({
    provider: 'stripe',
    eventId: 'e',
    eventType: 't',
    occurredAt: 1_000_000,
    effect,
    subscriptionId: 's',
    status: 'active',
    periodEnd,
    reversal: null,
    paymentRefs: [],
    mapping: { checkoutToken: null, priceIds: [] },
  });
  it('grants through the period plus grace, dunning for the grace, cancel to the period end, end now', () => {
    expect(billingAccessUntil(event('grant', 5_000_000), grace)?.getTime()).toBe(5_000_000 + grace * 1000);
    // No period in the payload: the event time plus the grace, never "forever".
    expect(billingAccessUntil(event('grant', null), grace).getTime()).toBe(1_000_000 + grace * 1000);
    expect(billingAccessUntil(event('dunning', 5_000_000), grace)?.getTime()).toBe(1_000_000 + grace * 1000);
    expect(billingAccessUntil(event('cancel', 5_000_000), grace)?.getTime()).toBe(5_000_000);
    expect(billingAccessUntil(event('cancel', null), grace)?.getTime()).toBe(1_000_000);
    expect(billingAccessUntil(event('end', 5_000_000), grace)?.getTime()).toBe(1_000_000);
  });
});
