import { base64UrlEncode } from '../../crypto/base64';
import { constantTimeEqualString } from '../../crypto/constant-time';
import { hmacSha256 } from '../../crypto/hash';
import { isHexId } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import { billingProviders, type WebhookProvider } from './webhook-signature';

/**
 * HKDF label of the checkout-token key (a subkey of the license master key). Stable: changing it
 * invalidates every token handed out and not yet used.
 */
export const billingCheckoutTokenLabel = 'tollgate/license/billing-checkout-token/v1';

/** The longest a checkout token lives (30 days) and the default (24 hours), in seconds. */
export const checkoutTokenLifetime = { defaultSeconds: 86_400, maxSeconds: 30 * 86_400 } as const;

/** What a checkout token binds: the server made it, so a buyer cannot change any of it. */
export interface CheckoutTokenClaims {
  readonly vendorId: string;
  readonly productId: string;
  /** Issue a license of this policy to `accountId` when the subscription has none (exclusive with `licenseId`). */
  readonly policyId: string | null;
  /** Attach the subscription to this existing license. */
  readonly licenseId: string | null;
  readonly accountId: string | null;
  /** Only this provider's events may use it, when set. */
  readonly provider: WebhookProvider | null;
  /** The provider price (Stripe, Paddle) or variant (Lemon Squeezy) id the checkout must be for, when set. */
  readonly priceId: string | null;
  /** Unix seconds: a subscription created after this does not map. */
  readonly expiresAt: number;
}

const version = 'tgc1';
/** Provider price and variant ids: `price_…`, `pri_…`, a number. */
export const checkoutPriceIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function mac(key: Uint8Array, body: string): string {
  return base64UrlEncode(hmacSha256(key, utf8Encode(body)));
}

/**
 * Signs a checkout token: `tgc1.<vendor>.<product>.<policy>.<license>.<account>.<provider>.<price>.<expires>.<mac>`
 * (empty fields for what is not bound; the MAC is base64url HMAC-SHA-256 under the checkout-token
 * subkey over everything before it). About 300 characters: it fits Stripe's 500-character metadata values.
 *
 * @param key - `deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel)`.
 * @param claims - What the token binds.
 * @returns The token.
 * @example
 * ```ts
 * import { deriveLicenseSubkey, billingCheckoutTokenLabel, signCheckoutToken } from '@tollgate/core/license';
 * const token = signCheckoutToken(deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel), claims);
 * ```
 */
export function signCheckoutToken(key: Uint8Array, claims: CheckoutTokenClaims): string {
  const fields = [claims.vendorId, claims.productId, claims.policyId ?? '', claims.licenseId ?? '', claims.accountId ?? '', claims.provider ?? '', claims.priceId ?? '', String(claims.expiresAt)];
  const body = `${version}.${fields.join('.')}`;
  return `${body}.${mac(key, body)}`;
}

const optionalHex = (value: string | undefined): string | null | undefined => (value === '' ? null : value !== undefined && isHexId(value, 16) ? value : undefined);

/**
 * Verifies a checkout token's MAC (in constant time) and shape; the caller checks the expiry against
 * the event time and the bindings against the event.
 *
 * @param key - The checkout-token subkey.
 * @param token - The `tollgate_checkout` value from the provider's metadata.
 * @returns The claims, or `undefined` when the token is not one this server signed.
 * @example
 * ```ts
 * const claims = verifyCheckoutToken(key, event.mapping.checkoutToken ?? '');
 * ```
 */
export function verifyCheckoutToken(key: Uint8Array, token: string): CheckoutTokenClaims | undefined {
  if (token.length > 512) return undefined;
  const parts = token.split('.');
  if (parts.length !== 10 || parts[0] !== version) return undefined;
  const body = parts.slice(0, 9).join('.');
  if (!constantTimeEqualString(mac(key, body), parts[9]!)) return undefined;
  const [, vendorId, productId, policy, license, account, provider, price, expires] = parts as [string, string, string, string, string, string, string, string, string];
  const policyId = optionalHex(policy);
  const licenseId = optionalHex(license);
  const accountId = optionalHex(account);
  if (!isHexId(vendorId, 16) || !isHexId(productId, 16) || policyId === undefined || licenseId === undefined || accountId === undefined) return undefined;
  if (provider !== '' && !(billingProviders as readonly string[]).includes(provider)) return undefined;
  if (price !== '' && !checkoutPriceIdPattern.test(price)) return undefined;
  if (!/^[1-9][0-9]{0,10}$/.test(expires)) return undefined;
  return { vendorId, productId, policyId, licenseId, accountId, provider: provider === '' ? null : (provider as WebhookProvider), priceId: price === '' ? null : price, expiresAt: Number(expires) };
}
