import type { RandomSource } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';
import type { BillingEvent } from './billing-event';
import { issueBillingLicense } from './billing-issue';
import { verifyCheckoutToken } from './checkout-token';

/** A new subscription's license, or why it has none (the event is processed as `unmapped:<reason>`). */
export type SubscriptionMapping =
  | { readonly kind: 'existing' | 'issued'; readonly licenseId: string; readonly vendorId: string }
  | { readonly kind: 'unmapped'; readonly reason: string };

/** What mapping needs. */
export interface SubscriptionMappingDeps {
  readonly checkoutTokenKey: Uint8Array;
  readonly licenseKeyHashKey: Uint8Array;
  readonly random?: RandomSource;
}

const unmapped = (reason: string): SubscriptionMapping => ({ kind: 'unmapped', reason });

/**
 * Whether the license already has a subscription that still matters: a link to another subscription
 * is never overwritten while it is live, only once it has expired or its cancellation took effect
 * (the vendor then issued a token naming the license again, for a new purchase).
 */
async function hasLiveSubscription(sql: SqlClient, licenseId: string, at: number): Promise<boolean> {
  const { rows } = await sql.query<{ status: string; current_period_end: Date | null }>('SELECT status, current_period_end FROM license_subscriptions WHERE license_id = $1 FOR UPDATE', [
    licenseId,
  ]);
  const row = rows[0];
  if (row === undefined) return false;
  if (row.status === 'expired') return false;
  if (row.status === 'canceled') return row.current_period_end !== null && row.current_period_end.getTime() > at;
  return true;
}

/**
 * Finds or issues the license of a subscription the server has no link for yet, only through the
 * checkout token (`tollgate_checkout`) the vendor's backend put into the checkout: its MAC verifies,
 * it was valid when the provider created the event, its provider matches, its bound price is among the
 * prices the payload names (when the payload names any), and its license or policy still belongs to
 * the vendor and product it was issued for. Nothing else in the metadata is read.
 *
 * @param sql - The processing transaction.
 * @param deps - Checkout-token key, key-hash key, randomness.
 * @param event - A paid (`grant`) subscription event.
 * @param now - The processing time.
 * @param accessUntil - The expiry of a license issued for it.
 * @returns The license, or why none.
 * @example
 * ```ts
 * const mapped = await mapNewSubscription(tx, deps, event, now, accessUntil);
 * ```
 */
export async function mapNewSubscription(sql: SqlClient, deps: SubscriptionMappingDeps, event: BillingEvent, now: Date, accessUntil: Date | null): Promise<SubscriptionMapping> {
  const token = event.mapping.checkoutToken;
  if (token === null) return unmapped('no_checkout_token');
  const claims = verifyCheckoutToken(deps.checkoutTokenKey, token);
  if (claims === undefined) return unmapped('invalid_checkout_token');
  if (claims.provider !== null && claims.provider !== event.provider) return unmapped('checkout_token_provider');
  if (event.occurredAt > claims.expiresAt * 1000) return unmapped('checkout_token_expired');
  if (claims.priceId !== null && event.mapping.priceIds.length > 0 && !event.mapping.priceIds.includes(claims.priceId)) return unmapped('checkout_token_price');
  if (claims.licenseId !== null) {
    const { rows } = await sql.query<{ vendor_id: string }>('SELECT vendor_id FROM license_licenses WHERE license_id = $1 AND vendor_id = $2 AND product_id = $3', [
      claims.licenseId,
      claims.vendorId,
      claims.productId,
    ]);
    if (rows[0] === undefined) return unmapped('no_license');
    if (await hasLiveSubscription(sql, claims.licenseId, event.occurredAt)) return unmapped('license_has_subscription');
    return { kind: 'existing', licenseId: claims.licenseId, vendorId: claims.vendorId };
  }
  if (claims.policyId === null || claims.accountId === null) return unmapped('invalid_checkout_token');
  const policies = await sql.query<{ policy_id: string }>('SELECT policy_id FROM license_policies WHERE policy_id = $1 AND vendor_id = $2 AND product_id = $3', [
    claims.policyId,
    claims.vendorId,
    claims.productId,
  ]);
  if (policies.rows[0] === undefined) return unmapped('policy_not_found');
  const issued = await issueBillingLicense(sql, {
    policyId: claims.policyId,
    accountId: claims.accountId,
    now,
    licenseKeyHashKey: deps.licenseKeyHashKey,
    expiresAt: accessUntil,
    ...(deps.random ? { random: deps.random } : {}),
  });
  if (issued.kind === 'refused') return unmapped(issued.reason);
  return { kind: 'issued', licenseId: issued.license.licenseId, vendorId: issued.license.vendorId };
}
