import type { SubscriptionStatus } from '../model/licenses/subscription-store';
import type { WebhookProvider } from './webhook-signature';

/**
 * What an event does to the license behind it:
 * - `grant`: the subscription is paid (created, active, trialing, resumed): access through the paid
 *   period plus the dunning grace (so a renewal webhook arriving late never cuts a paying customer off);
 *   a subscription without a license yet gets one issued when its metadata names a policy and account;
 * - `dunning`: a renewal payment failed (past due): access for the dunning grace from the event;
 * - `cancel`: cancelled at the period end: access until the paid period ends, no grace;
 * - `end`: ended now (deleted, expired, unpaid, paused): access ends at the event;
 * - `reverse`: a full refund or a chargeback: the license is revoked (kill order on the next validate);
 * - `record_payment`: a paid invoice: remembers its payment ids so a later refund naming only the
 *   payment finds the license; changes no access.
 */
export type BillingEffect = 'grant' | 'dunning' | 'cancel' | 'end' | 'reverse' | 'record_payment';

/**
 * What ties a provider object to a license: the server-signed checkout token the vendor's backend put
 * in the checkout's metadata (`tollgate_checkout`), and the prices the payload says were bought. Plain
 * `tollgate_license_id` / `tollgate_policy_id` metadata is ignored: buyers can set custom data in the
 * browser on Lemon Squeezy and Paddle (docs: "License mapping").
 */
export interface BillingLicenseMapping {
  /** `tollgate_checkout`, unverified here (the worker verifies it). */
  readonly checkoutToken: string | null;
  /** Provider price (Stripe, Paddle) or variant (Lemon Squeezy) ids the payload names. */
  readonly priceIds: readonly string[];
}

/** A recognised event, normalised across providers: what the queue stores and the worker applies. */
export interface BillingEvent {
  readonly provider: WebhookProvider;
  /** The dedupe key: Stripe `id`, Paddle `event_id`, Lemon Squeezy `meta.webhook_id` or a body digest. */
  readonly eventId: string;
  readonly eventType: string;
  /** When the provider says the change happened (ms): orders events of one subscription. */
  readonly occurredAt: number;
  readonly effect: BillingEffect;
  /** The provider's subscription id, when the event names one. */
  readonly subscriptionId: string | null;
  /** The subscription's normalised status after the event (`null` for payments and reversals). */
  readonly status: SubscriptionStatus | null;
  /** The end of the paid period (ms), when known. */
  readonly periodEnd: number | null;
  /** Refunds and chargebacks: which one (it picks the kill reason shown to the device). */
  readonly reversal: 'refund' | 'chargeback' | null;
  /** Payment ids the event names (Stripe charge and payment-intent ids). */
  readonly paymentRefs: readonly string[];
  readonly mapping: BillingLicenseMapping;
}

/** The outcome of normalising a verified body. */
export type BillingEventParse =
  | { readonly kind: 'event'; readonly event: BillingEvent }
  | { readonly kind: 'ignored'; readonly eventType: string }
  | { readonly kind: 'malformed'; readonly message: string };

/** A JSON object, or `undefined` for anything else. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const printableId = /^[\x21-\x7e]{1,200}$/;

/** A provider id (printable ASCII, 1–200 characters), or `null`. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return typeof value === 'string' && printableId.test(value) ? value : null;
}

/** Unix seconds (a number) as milliseconds, or `null`. */
export function secondsOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < 1e11 ? value * 1000 : null;
}

/** An RFC 3339 / ISO 8601 time as milliseconds, or `null`. */
export function isoOf(value: unknown): number | null {
  if (typeof value !== 'string' || value.length > 64 || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) return null;
  const time = Date.parse(value);
  // Before 1970 no billing event happened; it also keeps year 0 (which PostgreSQL refuses) out.
  return Number.isFinite(time) && time >= 0 ? time : null;
}

/**
 * The mapping of an object: the first `tollgate_checkout` string (at most 512 characters) of the
 * metadata sources, and the price ids given.
 */
export function mappingOf(metadata: readonly unknown[], priceIds: readonly unknown[] = []): BillingLicenseMapping {
  let checkoutToken: string | null = null;
  for (const source of metadata) {
    const value = objectOf(source)?.['tollgate_checkout'];
    if (typeof value === 'string' && value.length > 0 && value.length <= 512) {
      checkoutToken = value;
      break;
    }
  }
  const prices = priceIds.map(idOf).filter((value): value is string => value !== null);
  return { checkoutToken, priceIds: [...new Set(prices)].slice(0, 20) };
}

/** The effect of a subscription in `status`, given whether it is set to cancel at its period end. */
export function subscriptionEffect(status: SubscriptionStatus, cancelsAtPeriodEnd: boolean): BillingEffect {
  switch (status) {
    case 'trialing':
    case 'active':
      return cancelsAtPeriodEnd ? 'cancel' : 'grant';
    case 'past_due':
      return 'dunning';
    case 'paused':
    case 'expired':
      return 'end';
    case 'canceled':
      return 'cancel';
  }
}
