import * as v from 'valibot';
import { isHexId } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import { adminOperation, type AdminOperation } from '../admin/admin-operation';
import { parseAdminInput } from '../admin/admin-input';
import { requireLicense, refuseRevokedLicense } from '../admin/licenses/license-access';
import { checkoutPriceIdPattern, checkoutTokenLifetime, signCheckoutToken, type CheckoutTokenClaims } from './checkout-token';
import { billingProviders } from './webhook-signature';

const hexId = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((id) => isHexId(id, 16), `${field} must be 32 lowercase hex digits`),
  );

/** The body of `POST /v1/admin/billing/checkout-tokens`. */
export const checkoutTokenRequestSchema = v.strictObject(
  {
    license_id: v.optional(hexId('license_id')),
    policy_id: v.optional(hexId('policy_id')),
    account_id: v.optional(hexId('account_id')),
    provider: v.optional(v.picklist(billingProviders, `provider must be one of ${billingProviders.join(', ')}`)),
    price_id: v.optional(v.pipe(v.string('price_id must be a string'), v.regex(checkoutPriceIdPattern, 'price_id must be 1 to 64 letters, digits, _ or -'))),
    ttl_seconds: v.optional(
      v.pipe(
        v.number('ttl_seconds must be a number'),
        v.integer('ttl_seconds must be a whole number'),
        v.minValue(60, 'ttl_seconds must be at least 60'),
        v.maxValue(checkoutTokenLifetime.maxSeconds, `ttl_seconds must be at most ${checkoutTokenLifetime.maxSeconds}`),
      ),
    ),
  },
  'the body must be license_id, or policy_id with account_id, with optionally provider, price_id and ttl_seconds, and nothing else',
);

/**
 * `POST /v1/admin/billing/checkout-tokens` (scope `licenses:rw`, a journaled, audited mutation): signs
 * the checkout token the vendor's backend puts into the provider checkout's custom data as
 * `tollgate_checkout` (Stripe `subscription_data.metadata`, Paddle `customData`, Lemon Squeezy
 * `checkout_data.custom`). The paid subscription event then links through it only: to the license
 * `license_id` names (an existing license of the vendor, not revoked), or to a new license of
 * `policy_id` issued to the active account `account_id` (same product). `provider` and `price_id`
 * (the provider price or variant the checkout sells) narrow it; it is valid for `ttl_seconds`
 * (default a day, at most 30 days). 404 `not_found` for another vendor's license, policy or account.
 *
 * @param deps - The checkout-token key.
 * @returns The operation.
 * @example
 * ```ts
 * import { billingCheckoutTokenLabel, checkoutTokenOperation, deriveLicenseSubkey } from '@tollgate/core/license';
 * const operation = checkoutTokenOperation({ checkoutTokenKey: deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel) });
 * ```
 */
export function checkoutTokenOperation(deps: { readonly checkoutTokenKey: Uint8Array }): AdminOperation {
  return adminOperation({
    method: 'POST',
    path: '/billing/checkout-tokens',
    docs: { summary: 'Signs a checkout token linking a new subscription to an existing license (license_id) or one to issue (policy_id + account_id).', body: checkoutTokenRequestSchema, status: 201 },
    scopes: ['licenses:rw'],
    kind: 'mutation',
    run: async (call) => {
      const input = parseAdminInput(checkoutTokenRequestSchema, call.body);
      if ((input.license_id === undefined) === (input.policy_id === undefined)) throw new AdminError('invalid_request', 'Name exactly one of license_id (an existing license) or policy_id (a license to issue).');
      const vendorId = call.actor.vendorId;
      let target: Pick<CheckoutTokenClaims, 'productId' | 'policyId' | 'licenseId' | 'accountId'>;
      if (input.license_id !== undefined) {
        if (input.account_id !== undefined) throw new AdminError('invalid_request', 'account_id goes with policy_id: a license keeps its own account.');
        const license = await requireLicense(call, input.license_id);
        refuseRevokedLicense(license);
        target = { productId: license.productId, policyId: null, licenseId: license.licenseId, accountId: null };
      } else {
        if (input.account_id === undefined) throw new AdminError('invalid_request', 'policy_id needs account_id: the account the issued license belongs to.');
        const policies = await call.sql.query<{ product_id: string }>('SELECT product_id FROM license_policies WHERE policy_id = $1 AND vendor_id = $2', [input.policy_id, vendorId]);
        const policy = policies.rows[0];
        if (policy === undefined) throw new AdminError('not_found', 'No such policy.');
        const accounts = await call.sql.query<{ status: string }>('SELECT status FROM license_accounts WHERE account_id = $1 AND vendor_id = $2 AND product_id = $3', [
          input.account_id,
          vendorId,
          policy.product_id,
        ]);
        if (accounts.rows[0] === undefined) throw new AdminError('not_found', "No such account of the policy's product.");
        if (accounts.rows[0].status !== 'active') throw new AdminError('invalid_request', 'The account is not active.');
        target = { productId: policy.product_id, policyId: input.policy_id ?? null, licenseId: null, accountId: input.account_id };
      }
      const expiresAt = Math.floor(call.now.getTime() / 1000) + (input.ttl_seconds ?? checkoutTokenLifetime.defaultSeconds);
      const claims: CheckoutTokenClaims = { vendorId, ...target, provider: input.provider ?? null, priceId: input.price_id ?? null, expiresAt };
      const token = signCheckoutToken(deps.checkoutTokenKey, claims);
      await call.audit({
        action: 'billing.checkout_token',
        targetType: claims.licenseId === null ? 'policy' : 'license',
        targetId: claims.licenseId ?? (claims.policyId as string),
        summary: { account_id: claims.accountId, provider: claims.provider, price_id: claims.priceId, expires_at: new Date(expiresAt * 1000).toISOString() },
      });
      return {
        status: 201,
        body: {
          checkout_token: {
            token,
            metadata_key: 'tollgate_checkout',
            product_id: claims.productId,
            license_id: claims.licenseId,
            policy_id: claims.policyId,
            account_id: claims.accountId,
            provider: claims.provider,
            price_id: claims.priceId,
            expires_at: new Date(expiresAt * 1000).toISOString(),
          },
        },
      };
    },
  });
}
