import { hexEncode } from '../../crypto/hex';
import { sha256 } from '../../crypto/hash';
import { parseJsonWithUniqueKeys } from '../../json';
import type { SubscriptionStatus } from '../model/licenses/subscription-store';
import { idOf, isoOf, mappingOf, objectOf, secondsOf, subscriptionEffect, type BillingEvent, type BillingEventParse } from './billing-event';
import type { WebhookProvider } from './webhook-signature';

type Json = Record<string, unknown>;
type Draft = Omit<BillingEvent, 'provider' | 'eventId' | 'eventType' | 'occurredAt'>;

// Payments, refunds and chargebacks map only through links the server recorded: their metadata is never read.
const noMapping = { checkoutToken: null, priceIds: [] };
/** The `price.id` of each item of a list (Stripe `items.data`, Paddle `items`). */
const itemPrices = (items: unknown): unknown[] => (Array.isArray(items) ? items.slice(0, 20).map((item) => objectOf(objectOf(item)?.['price'])?.['id']) : []);
const ids = (...values: unknown[]): string[] => values.map(idOf).filter((value): value is string => value !== null);

/**
 * The event names each provider sends that the service acts on (every other name is answered 200
 * `ignored`). Documented in the README's "Billing webhooks" table.
 */
export const recognizedBillingEvents: Readonly<Record<WebhookProvider, readonly string[]>> = {
  stripe: [
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'customer.subscription.paused',
    'customer.subscription.resumed',
    'invoice.paid',
    'charge.refunded',
    'charge.dispute.created',
  ],
  paddle: [
    'subscription.created',
    'subscription.updated',
    'subscription.activated',
    'subscription.trialing',
    'subscription.past_due',
    'subscription.paused',
    'subscription.resumed',
    'subscription.canceled',
    'adjustment.created',
    'adjustment.updated',
  ],
  lemonsqueezy: [
    'subscription_created',
    'subscription_updated',
    'subscription_cancelled',
    'subscription_resumed',
    'subscription_expired',
    'subscription_paused',
    'subscription_unpaused',
    'subscription_payment_refunded',
    'order_refunded',
  ],
};

const stripeStatuses: Readonly<Record<string, SubscriptionStatus>> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  paused: 'paused',
  canceled: 'canceled',
  unpaid: 'expired',
  incomplete_expired: 'expired',
};

function stripeEvent(type: string, object: Json): Draft | undefined {
  if (type.startsWith('customer.subscription.')) {
    const status = stripeStatuses[String(object['status'])];
    // `incomplete` (first payment pending) grants nothing yet: the `active` update that follows does.
    if (status === undefined) return undefined;
    const items = objectOf(object['items'])?.['data'];
    const firstItem = Array.isArray(items) ? objectOf(items[0]) : undefined;
    // Newer API versions moved the period to the subscription items.
    const periodEnd = secondsOf(object['current_period_end']) ?? secondsOf(firstItem?.['current_period_end']);
    const ended = type === 'customer.subscription.deleted' || status === 'canceled' || status === 'expired';
    const cancelsAtPeriodEnd = object['cancel_at_period_end'] === true || secondsOf(object['cancel_at']) !== null;
    return {
      effect: ended ? 'end' : subscriptionEffect(status, cancelsAtPeriodEnd),
      subscriptionId: idOf(object['id']),
      status: ended && status !== 'expired' ? 'canceled' : status,
      periodEnd: ended ? (secondsOf(object['ended_at']) ?? null) : (cancelsAtPeriodEnd ? (secondsOf(object['cancel_at']) ?? periodEnd) : periodEnd),
      reversal: null,
      paymentRefs: [],
      mapping: mappingOf([object['metadata']], itemPrices(objectOf(object['items'])?.['data'])),
    };
  }
  if (type === 'invoice.paid') {
    const parent = objectOf(objectOf(object['parent'])?.['subscription_details']);
    return {
      effect: 'record_payment',
      subscriptionId: idOf(object['subscription']) ?? idOf(parent?.['subscription']),
      status: null,
      periodEnd: null,
      reversal: null,
      paymentRefs: ids(object['charge'], object['payment_intent']),
      mapping: noMapping,
    };
  }
  if (type === 'charge.refunded') {
    // A partial refund leaves the purchase standing: only a full one revokes.
    if (object['refunded'] !== true) return undefined;
    return { effect: 'reverse', subscriptionId: null, status: null, periodEnd: null, reversal: 'refund', paymentRefs: ids(object['id'], object['payment_intent']), mapping: noMapping };
  }
  if (type === 'charge.dispute.created') {
    return { effect: 'reverse', subscriptionId: null, status: null, periodEnd: null, reversal: 'chargeback', paymentRefs: ids(object['charge'], object['payment_intent']), mapping: noMapping };
  }
  return undefined;
}

const paddleStatuses: Readonly<Record<string, SubscriptionStatus>> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  paused: 'paused',
  canceled: 'canceled',
};

function paddleEvent(type: string, data: Json): Draft | undefined {
  if (type.startsWith('subscription.')) {
    const status = paddleStatuses[String(data['status'])];
    if (status === undefined) return undefined;
    const scheduled = objectOf(data['scheduled_change']);
    const cancelAt = scheduled?.['action'] === 'cancel' ? isoOf(scheduled['effective_at']) : null;
    const periodEnd = isoOf(objectOf(data['current_billing_period'])?.['ends_at']);
    // Paddle's `canceled` is final (a scheduled cancellation stays `active` with a scheduled change).
    const ended = status === 'canceled';
    return {
      effect: ended ? 'end' : subscriptionEffect(status, cancelAt !== null),
      subscriptionId: idOf(data['id']),
      status,
      periodEnd: ended ? isoOf(data['canceled_at']) : (cancelAt ?? periodEnd),
      reversal: null,
      paymentRefs: [],
      mapping: mappingOf([data['custom_data']], itemPrices(data['items'])),
    };
  }
  // Adjustments: an approved full refund, or any chargeback, reverses the purchase.
  const action = data['action'];
  const approved = data['status'] === 'approved';
  const reversal = action === 'chargeback' ? 'chargeback' : action === 'refund' && approved && data['type'] !== 'partial' ? 'refund' : null;
  if (reversal === null) return undefined;
  return { effect: 'reverse', subscriptionId: idOf(data['subscription_id']), status: null, periodEnd: null, reversal, paymentRefs: ids(data['transaction_id']), mapping: noMapping };
}

const lemonStatuses: Readonly<Record<string, SubscriptionStatus>> = {
  on_trial: 'trialing',
  active: 'active',
  past_due: 'past_due',
  paused: 'paused',
  unpaid: 'expired',
  cancelled: 'canceled',
  expired: 'expired',
};

function lemonEvent(type: string, data: Json, meta: Json): Draft | undefined {
  const attributes = objectOf(data['attributes']) ?? {};
  if (type === 'subscription_payment_refunded' || type === 'order_refunded') {
    // Only a full refund revokes: a partial one (`status: partial_refund`, also with `refunded: true`) leaves the purchase standing.
    if (attributes['status'] !== 'refunded') return undefined;
    if (type === 'order_refunded') {
      // The order is found only through the reference its subscription's paid event recorded (never through custom data).
      return { effect: 'reverse', subscriptionId: null, status: null, periodEnd: null, reversal: 'refund', paymentRefs: lemonOrderRefs(data['id']), mapping: noMapping };
    }
    return { effect: 'reverse', subscriptionId: idOf(attributes['subscription_id']), status: null, periodEnd: null, reversal: 'refund', paymentRefs: [], mapping: noMapping };
  }
  const status = lemonStatuses[String(attributes['status'])];
  if (status === undefined) return undefined;
  // `cancelled` keeps access until `ends_at` (Lemon Squeezy's own grace); `expired` is final.
  const periodEnd = status === 'canceled' ? isoOf(attributes['ends_at']) : (isoOf(attributes['renews_at']) ?? isoOf(attributes['ends_at']));
  return { effect: subscriptionEffect(status, false), subscriptionId: idOf(data['id']), status, periodEnd, reversal: null, paymentRefs: lemonOrderRefs(attributes['order_id']), mapping: mappingOf([meta['custom_data']], [attributes['variant_id']]) };
}

/** A Lemon Squeezy order id as a payment reference (`order:<id>`), recorded from subscription events so `order_refunded` finds its license. */
function lemonOrderRefs(orderId: unknown): string[] {
  const id = idOf(orderId);
  return id === null || id.length > 190 ? [] : [`order:${id}`];
}

/**
 * The Lemon Squeezy dedupe key. `meta.webhook_id` is not used: it is not documented as unique per
 * event (it may name the webhook configuration, the same for every event). The key is the event name,
 * the object's type and id, and its `updated_at` (a redelivery repeats all four; two changes of one
 * object differ in `updated_at`), as a SHA-256 digest so it always fits; without them, the body's digest.
 */
function lemonEventId(meta: Json, data: Json, body: Uint8Array): string {
  const name = idOf(meta['event_name']);
  const type = idOf(data['type']);
  const id = idOf(data['id']);
  const updatedAt = objectOf(data['attributes'])?.['updated_at'];
  if (name === null || type === null || id === null || typeof updatedAt !== 'string' || isoOf(updatedAt) === null) return `sha256:${hexEncode(sha256(body))}`;
  return `lsq:${hexEncode(sha256(new TextEncoder().encode(JSON.stringify([name, type, id, updatedAt]))))}`;
}

/**
 * Normalises a verified webhook body into a {@link BillingEvent}. The body is parsed from the same bytes
 * the signature covered (never re-serialised). An event name outside {@link recognizedBillingEvents},
 * or a recognised one whose payload has no effect (a partial refund, a pending adjustment, an
 * incomplete subscription), is `ignored`; a body that is not a JSON object, or lacks its event id, type
 * or time, is `malformed`.
 *
 * @param provider - Which provider sent it.
 * @param body - The raw, verified body.
 * @returns The event, `ignored` with its type, or `malformed` with a message.
 * @example
 * ```ts
 * import { parseBillingEvent } from '@tollgate/core/license';
 * const parsed = parseBillingEvent('paddle', rawBody);
 * if (parsed.kind === 'event') await enqueue(parsed.event);
 * ```
 */
export function parseBillingEvent(provider: WebhookProvider, body: Uint8Array): BillingEventParse {
  let root: Json | undefined;
  try {
    const parsed = parseJsonWithUniqueKeys(new TextDecoder('utf-8', { fatal: true }).decode(body));
    root = parsed.ok ? objectOf(parsed.value) : undefined;
  } catch {
    root = undefined;
  }
  if (root === undefined) return { kind: 'malformed', message: 'The body is not a JSON object.' };
  let eventId: string | null;
  let eventType: string | null;
  let occurredAt: number | null;
  let draft: () => Draft | undefined;
  if (provider === 'stripe') {
    eventId = idOf(root['id']);
    eventType = idOf(root['type']);
    occurredAt = secondsOf(root['created']);
    const object = objectOf(objectOf(root['data'])?.['object']) ?? {};
    draft = () => stripeEvent(eventType as string, object);
  } else if (provider === 'paddle') {
    eventId = idOf(root['event_id']);
    eventType = idOf(root['event_type']);
    occurredAt = isoOf(root['occurred_at']);
    const data = objectOf(root['data']) ?? {};
    draft = () => paddleEvent(eventType as string, data);
  } else {
    const meta = objectOf(root['meta']) ?? {};
    const data = objectOf(root['data']) ?? {};
    eventType = idOf(meta['event_name']);
    eventId = lemonEventId(meta, data, body);
    occurredAt = isoOf(objectOf(data['attributes'])?.['updated_at']) ?? isoOf(meta['event_created_at']);
    draft = () => lemonEvent(eventType as string, data, meta);
  }
  if (eventType === null) return { kind: 'malformed', message: 'The body names no event type.' };
  if (!recognizedBillingEvents[provider].includes(eventType)) return { kind: 'ignored', eventType };
  if (eventId === null) return { kind: 'malformed', message: 'The body names no event id.' };
  if (occurredAt === null) return { kind: 'malformed', message: 'The body names no event time.' };
  const normalised = draft();
  if (normalised === undefined) return { kind: 'ignored', eventType };
  return { kind: 'event', event: { provider, eventId, eventType, occurredAt, ...normalised } };
}
