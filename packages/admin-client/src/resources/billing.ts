import * as v from 'valibot';
import type { AdminTransport, MutationOptions } from '../transport-types';

/**
 * A signed checkout token: put `token` into the provider checkout's custom data under `metadata_key`
 * (`tollgate_checkout`); the paid subscription event then links to the license it names (or issues one).
 */
export const checkoutTokenSchema = v.looseObject({
  token: v.string(),
  metadata_key: v.string(),
  product_id: v.string(),
  license_id: v.nullable(v.string()),
  policy_id: v.nullable(v.string()),
  account_id: v.nullable(v.string()),
  provider: v.nullable(v.string()),
  price_id: v.nullable(v.string()),
  expires_at: v.string(),
});
/** A signed checkout token. */
export type CheckoutToken = v.InferOutput<typeof checkoutTokenSchema>;

/** The billing providers a checkout token can be narrowed to. */
export type BillingProvider = 'stripe' | 'paddle' | 'lemonsqueezy';

/** Fields every checkout token takes. */
interface CheckoutTokenCommon {
  readonly provider?: BillingProvider;
  /** The provider price or variant the checkout sells (1 to 64 of `[A-Za-z0-9_-]`). */
  readonly priceId?: string;
  /** Validity, 60 s to 30 days (default a day). */
  readonly ttlSeconds?: number;
}

/**
 * What `createCheckoutToken` takes: an existing license (`licenseId`, not revoked), or a license to
 * issue under `policyId` to the active account `accountId` of the same product.
 */
export type CheckoutTokenInput =
  | (CheckoutTokenCommon & { readonly licenseId: string; readonly policyId?: never; readonly accountId?: never })
  | (CheckoutTokenCommon & { readonly policyId: string; readonly accountId: string; readonly licenseId?: never });

/** The `billing` group. */
export interface BillingResource {
  /**
   * Signs a checkout token (`POST /billing/checkout-tokens`, 201).
   *
   * @example `const { token, metadata_key } = await admin.billing.createCheckoutToken({ policyId, accountId, provider: 'stripe' });`
   */
  createCheckoutToken(input: CheckoutTokenInput, options?: MutationOptions): Promise<CheckoutToken>;
}

const checkoutAnswerSchema = v.pipe(v.looseObject({ checkout_token: checkoutTokenSchema }), v.transform((answer) => answer.checkout_token));

/**
 * Builds the `billing` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const billing = createBillingResource(transport);
 * const { token } = await billing.createCheckoutToken({ licenseId, ttlSeconds: 3600 });
 * ```
 */
export function createBillingResource(transport: AdminTransport): BillingResource {
  return {
    createCheckoutToken: async (input, options) => {
      const body = {
        license_id: input.licenseId,
        policy_id: input.policyId,
        account_id: input.accountId,
        provider: input.provider,
        price_id: input.priceId,
        ttl_seconds: input.ttlSeconds,
      };
      return (await transport.request({ method: 'POST', path: '/billing/checkout-tokens', kind: 'mutation', body, schema: checkoutAnswerSchema, options })).body;
    },
  };
}
