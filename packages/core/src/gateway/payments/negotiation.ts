import { GatewayError } from '../../errors/gateway';
import { renderGatewayError } from '../../errors/render';
import { encodeX402Header } from '../../x402/headers';
import { declarePaymentIdentifier, PAYMENT_IDENTIFIER } from '../../x402/payment-identifier';
import { buildPaymentRequired } from '../../x402/requirements';
import { createSignedOffer } from '../../x402/tollgate-offer';
import { alignedOfferExpiry, TOLLGATE_OFFER, tollgateOfferExtension } from '../../x402/tollgate-offer-extension';
import type { PaymentRequired } from '../../x402/wire';
import { OFFER_RECEIPT, signX402Offer, x402OffersExtension } from '../../x402/x402-offer-receipt';
import { resolvePublicUrl, epochSeconds } from '../service-deps';
import { createBoundedCache } from './bounded-cache';
import type { PaymentContext, PaymentContexts, ReceiveRequest } from './payment-context';
import type { PaymentDeps, PaymentSettings } from './payment-deps';

/** The 402 answer of a receive request without `PAYMENT-SIGNATURE`. */
export interface NegotiatedPayment {
  /** The `PAYMENT-REQUIRED` header value: standard base64 of the PaymentRequired JSON. */
  readonly header: string;
  /** The response body: the gateway error envelope with `payment_required`, as JSON text. */
  readonly body: string;
  readonly paymentRequired: PaymentRequired;
  /** Unix seconds until which the signed offers in it hold. */
  readonly offerExpiry: number;
}

/** Builds 402 answers. */
export interface Negotiation {
  /**
   * The 402 for a receive request: resolves the ref, refuses what cannot be paid (see
   * `PaymentContexts`), then serves the cached answer of this (ref, amount, offer granule).
   */
  negotiate(request: ReceiveRequest): Promise<NegotiatedPayment>;
  /** The 402 of an already resolved and checked context. */
  paymentRequired(context: PaymentContext, nowSeconds: number): Promise<NegotiatedPayment>;
}

/** The text official x402 clients show when the 402 comes. */
export const paymentRequiredMessage = 'PAYMENT-SIGNATURE header is required';

/**
 * Creates the negotiation service. Per (ref, amount) the answer depends only on the offer expiry
 * granule, so it is signed once per granule (two ECDSA signatures: the official x402 offer and
 * Tollgate's offer) and cached; concurrent requests of a new granule share one signing. Offers never
 * outlive their ref: the expiry is capped at the ref's `expiresAt`.
 *
 * The Tollgate offer's `paymentId` is informational: it names the offer, which every payer of the same
 * granule receives, so it never binds a payment (clients choose their own payment-identifier id).
 *
 * @param deps - Signer, public URL, clock and the context resolver.
 * @param settings - Payment settings.
 * @returns The service.
 *
 * @example
 * ```ts
 * import { createNegotiation } from '@tollgate/core/gateway';
 * const negotiation = createNegotiation({ ...deps, contexts }, settings);
 * const { header, body } = await negotiation.negotiate({ payTo, query: { ref: refId } });
 * ```
 */
export function createNegotiation(deps: PaymentDeps & { readonly contexts: PaymentContexts }, settings: PaymentSettings): Negotiation {
  const answers = createBoundedCache<{ expiry: number; answer: Promise<NegotiatedPayment> }>(settings.cacheSize);

  async function build(context: PaymentContext, expiry: number): Promise<NegotiatedPayment> {
    const resourceUrl = context.resource.url;
    const [x402Offer, offer] = await Promise.all([
      signX402Offer({ resourceUrl, requirements: context.requirements, acceptIndex: 0, validUntil: expiry }, deps.signer),
      createSignedOffer({ gatewayOrigin: resolvePublicUrl(deps), resourceUrl, requirements: context.requirements, network: context.network, expiry }, deps.signer),
    ]);
    const paymentRequired = buildPaymentRequired({
      error: paymentRequiredMessage,
      resource: context.resource,
      accepts: [context.requirements],
      extensions: {
        [PAYMENT_IDENTIFIER]: declarePaymentIdentifier(),
        [OFFER_RECEIPT]: x402OffersExtension([x402Offer]),
        [TOLLGATE_OFFER]: tollgateOfferExtension(offer),
      },
    });
    const required = new GatewayError('payment_required', 'Payment required: pay with an x402 v2 client (PAYMENT-REQUIRED header) and retry with PAYMENT-SIGNATURE.', {
      details: { refId: context.ref.id, network: context.network.caip2, amount: context.amount, asset: context.requirements.asset, payTo: context.requirements.payTo },
    });
    // Rendered like every gateway error, once per cached negotiation: the 402 serves this text as is.
    const body = JSON.stringify(renderGatewayError(required).body);
    return { header: encodeX402Header(paymentRequired), body, paymentRequired, offerExpiry: expiry };
  }

  const negotiation: Negotiation = {
    async negotiate(request) {
      const context = await deps.contexts.resolve(request);
      const now = Math.floor(deps.clock.now() / 1000);
      deps.contexts.assertPayable(context, now);
      return negotiation.paymentRequired(context, now);
    },

    paymentRequired(context, nowSeconds) {
      const expiry = Math.min(
        alignedOfferExpiry(nowSeconds, settings.offerValiditySeconds, settings.offerGranularitySeconds),
        epochSeconds(context.ref.expiresAt),
      );
      const cached = answers.get(context.key);
      if (cached !== undefined && cached.expiry === expiry) return cached.answer;
      const answer = build(context, expiry);
      answers.set(context.key, { expiry, answer });
      // A failed signing must not stay cached.
      answer.catch(() => {
        if (answers.get(context.key)?.answer === answer) answers.delete(context.key);
      });
      return answer;
    },
  };
  return negotiation;
}
