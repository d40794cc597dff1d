import type { ExtensionEntry, PaymentPayload } from './wire';
import type { SignedTollgateOffer } from './tollgate-offer';

/** The `PaymentRequired.extensions` key of Tollgate's signed offer. */
export const TOLLGATE_OFFER = 'tollgate-offer';

/** JSON Schema of the extension's `info` (a {@link SignedTollgateOffer}). */
export const tollgateOfferSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    format: { const: 'eip712' },
    payload: {
      type: 'object',
      properties: {
        gatewayOrigin: { type: 'string' },
        resourceUrl: { type: 'string' },
        paymentId: { type: 'string' },
        payTo: { type: 'string' },
        amount: { type: 'string' },
        network: { type: 'string' },
        chainId: { type: 'integer' },
        asset: { type: 'string' },
        expiry: { type: 'integer' },
        nonce: { type: 'string' },
      },
      required: ['gatewayOrigin', 'resourceUrl', 'paymentId', 'payTo', 'amount', 'network', 'chainId', 'asset', 'expiry', 'nonce'],
    },
    signature: { type: 'string' },
  },
  required: ['format', 'payload', 'signature'],
} as const;

/**
 * An offer expiry rounded up to a multiple of `granularitySeconds`: every offer created within one
 * granule gets the same expiry, hence the same signed bytes, so a gateway can sign once per ref, amount
 * and granule and serve the cached offer. The validity seen by a client lies between
 * `validitySeconds` and `validitySeconds + granularitySeconds`.
 *
 * @param now - Unix seconds.
 * @param validitySeconds - Minimum validity.
 * @param granularitySeconds - Bucket size (default 60).
 * @returns The expiry in Unix seconds.
 *
 * @example
 * ```ts
 * import { alignedOfferExpiry } from '@tollgate/core/x402';
 * alignedOfferExpiry(1_000, 300, 60); // 1320
 * ```
 */
export function alignedOfferExpiry(now: number, validitySeconds: number, granularitySeconds = 60): number {
  if (![now, validitySeconds, granularitySeconds].every(Number.isSafeInteger) || granularitySeconds <= 0 || validitySeconds < 0) {
    throw new RangeError('alignedOfferExpiry takes integer seconds and a positive granularity.');
  }
  return Math.ceil((now + validitySeconds) / granularitySeconds) * granularitySeconds;
}

/**
 * The extension entry for `PaymentRequired.extensions['tollgate-offer']`. Official x402 clients echo
 * every declared extension in their payment payload, so the offer comes back with the payment.
 *
 * @param offer - The signed offer.
 * @returns `{ info: offer, schema }`.
 *
 * @example
 * ```ts
 * import { tollgateOfferExtension, TOLLGATE_OFFER } from '@tollgate/core/x402';
 * const extensions = { [TOLLGATE_OFFER]: tollgateOfferExtension(offer) };
 * ```
 */
export function tollgateOfferExtension(offer: SignedTollgateOffer): ExtensionEntry<SignedTollgateOffer> {
  return { info: offer, schema: tollgateOfferSchema };
}

/**
 * The offer a client echoed in `payload.extensions['tollgate-offer'].info`, unverified.
 *
 * @param payload - The decoded payment payload.
 * @returns The raw echoed value, or `undefined` when the client did not echo one.
 *
 * @example
 * ```ts
 * import { extractEchoedOffer, verifySignedOffer } from '@tollgate/core/x402';
 * const echoed = extractEchoedOffer(payload);
 * if (echoed !== undefined) verifySignedOffer(echoed, { expectedSigner, now, expected });
 * ```
 */
export function extractEchoedOffer(payload: PaymentPayload): unknown {
  const entry = payload.extensions?.[TOLLGATE_OFFER];
  if (entry === undefined) return undefined;
  return typeof entry === 'object' && entry !== null ? (entry as { info?: unknown }).info : entry;
}

