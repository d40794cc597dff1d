import canonicalize from 'canonicalize';
import { GatewayError } from '../../errors/gateway';
import { PaymentVerificationError } from '../../x402/errors';
import { verifyExactPayment, type ExactSignatureStatus } from '../../x402/exact-payment';
import { verifySignedOffer } from '../../x402/tollgate-offer';
import { extractEchoedOffer } from '../../x402/tollgate-offer-extension';
import type { PaymentPayload } from '../../x402/wire';
import { resolvePublicUrl } from '../service-deps';
import type { OrderStore } from '../store/order-store';
import { createBoundedCache } from './bounded-cache';
import type { PaymentContext, PaymentContexts } from './payment-context';
import type { PaymentDeps, PaymentSettings } from './payment-deps';

/**
 * The offline checks of a new payment. Settlement runs them before the claim and before any facilitator
 * call: a payment failing them is never claimed.
 */
export interface PaymentChecks {
  /**
   * Refuses a payment that cannot be paid or does not verify, in this order: the payload's `resource`
   * (see {@link PaymentChecks.verifyResource}); the ref is payable (`ref_expired`, `ref_revoked`,
   * `payto_revoked`); for a refund ref, the authorization's `from` is the ref's `refundFrom` (the order's
   * payTo: only the merchant pays its payer back; reason `refund_payer_mismatch`); `verifyExactPayment` against the regenerated requirement (scheme, network,
   * `accepted`, `authorization.*`, signature); the echoed Tollgate offer, when there is one (signed by
   * this gateway, unexpired, bound to this origin, resource, payTo, amount, network, chain and asset).
   *
   * @returns `verified` when the signature was recovered here, `needs_facilitator` for a smart-wallet
   *   signature only the facilitator can check.
   * @throws GatewayError or PaymentVerificationError (`payment_verification_failed`, naming the field).
   */
  verify(payload: PaymentPayload, context: PaymentContext, nowSeconds: number): ExactSignatureStatus;
  /**
   * Refuses a payload whose `resource` (optional in x402 v2; official clients copy the 402's) names
   * another URL than this ref's: the EIP-3009 authorization does not bind a ref, so without this an
   * intercepted payment could be settled against another ref of the same payTo and amount. A string
   * comparison, cheap enough to run before the claim.
   *
   * @throws PaymentVerificationError, field `resource`, reason `mismatch`.
   */
  verifyResource(payload: PaymentPayload, context: PaymentContext): void;
  /**
   * Refuses a Tollgate offer that this gateway did not sign for this payment, as {@link PaymentChecks.verify}
   * checks an echoed one: signed by this gateway, bound to this origin, resource, payTo, amount, network,
   * chain and asset, and unexpired at `nowSeconds` (not judged when `undefined`: recovery looks at an
   * offer after the fact).
   *
   * @throws PaymentVerificationError naming the `offer.*` field.
   */
  verifyOffer(offer: unknown, context: PaymentContext, nowSeconds: number | undefined): void;
  /**
   * For a refund ref only (no read otherwise): its refund intent must still be open. A rejected or
   * expired intent's ref is revoked or expired, which {@link PaymentChecks.verify} already refuses; this
   * catches the one case a ref status cannot tell — an intent already paid — before the facilitator.
   *
   * @throws PaymentVerificationError field `ref`, reason `refund_not_open` (`details.refundStatus`);
   *   GatewayError `not_found` when the refund ref has no intent.
   */
  verifyRefundIntent(context: PaymentContext): Promise<void>;
}

/**
 * Creates the offline checks. Every payer of an offer granule echoes the same offer, so an offer that
 * verified for a (ref, amount) is remembered by its canonical JSON with its expiry: its signature is
 * recovered once, and later echoes only have their expiry checked.
 *
 * @param deps - Signer, public URL and the context resolver.
 * @param settings - Clock skew, minimum validity and cache size.
 * @returns The checks.
 *
 * @example
 * ```ts
 * import { createPaymentChecks } from '@tollgate/core/gateway';
 * createPaymentChecks({ ...deps, contexts }, settings).verify(payload, context, Math.floor(Date.now() / 1000));
 * ```
 */
export function createPaymentChecks(
  deps: Pick<PaymentDeps, 'signer' | 'publicUrl' | 'secp256k1'> & { readonly contexts: PaymentContexts; readonly stores?: { readonly orders?: OrderStore } },
  settings: PaymentSettings,
): PaymentChecks {
  const verifiedOffers = createBoundedCache<number>(settings.cacheSize);

  function verifyOffer(echoed: unknown, context: PaymentContext, now: number | undefined): void {
    const key = `${context.key}|${canonicalize(echoed) ?? ''}`;
    const expiry = verifiedOffers.get(key);
    if (expiry !== undefined) {
      if (now !== undefined && now > expiry) throw new PaymentVerificationError('offer.expiry', 'expired', 'The signed offer has expired.', { details: { expiry } });
      return;
    }
    const verified = verifySignedOffer(echoed, {
      expectedSigner: deps.signer.address,
      // Time 0 is before every expiry: only the binding and the signature are judged.
      now: now ?? 0,
      expected: {
        gatewayOrigin: resolvePublicUrl(deps),
        resourceUrl: context.resource.url,
        payTo: context.requirements.payTo as `0x${string}`,
        amount: context.amount,
        network: context.network.caip2,
        chainId: context.network.chainId,
        asset: context.network.usdc.address,
      },
    });
    verifiedOffers.set(key, verified.expiry);
  }

  function verifyResource(payload: PaymentPayload, context: PaymentContext): void {
    const named = payload.resource?.url;
    if (named !== undefined && named !== context.resource.url) {
      throw new PaymentVerificationError('resource', 'mismatch', 'The payment names another resource than this ref’s receive URL.');
    }
  }

  async function verifyRefundIntent(context: PaymentContext): Promise<void> {
    const orders = deps.stores?.orders;
    if (context.ref.kind !== 'refund' || orders === undefined) return;
    const refund = await orders.getRefundByRef(context.ref.id);
    if (refund === undefined) throw new GatewayError('not_found', 'No such ref for this payTo.');
    if (refund.status === 'open') return;
    const details = { refundId: refund.id, refundStatus: refund.status };
    if (refund.status === 'rejected') throw new GatewayError('ref_revoked', 'This refund was rejected by its merchant.', { details: { refId: context.ref.id, ...details } });
    if (refund.status === 'expired') throw new GatewayError('ref_expired', 'This refund intent has expired.', { details: { refId: context.ref.id, ...details } });
    throw new PaymentVerificationError('ref', 'refund_not_open', 'This refund was already paid; a refund ref is paid once.', { details });
  }

  /** Before the signature is recovered: a refund is paid by the order's payTo, whoever else signs. */
  function verifyRefundPayer(payload: PaymentPayload, context: PaymentContext): void {
    const authorization = (payload.payload as { authorization?: { from?: unknown } }).authorization;
    const from = authorization?.from;
    // A malformed authorization is verifyExactPayment's to name.
    if (typeof from !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(from) || context.ref.refundFrom === null) return;
    if (from.toLowerCase() !== context.ref.refundFrom.toLowerCase()) {
      throw new PaymentVerificationError('payload.authorization.from', 'refund_payer_mismatch', 'A refund is paid by the payTo that received the original payment; this authorization is from another address.', {
        details: { expected: context.ref.refundFrom },
      });
    }
  }

  return {
    verifyResource,
    verifyOffer,
    verifyRefundIntent,
    verify(payload, context, now) {
      verifyResource(payload, context);
      deps.contexts.assertPayable(context, now);
      if (context.ref.kind === 'refund') verifyRefundPayer(payload, context);
      const { signatureStatus } = verifyExactPayment({
        payload,
        expected: context.requirements,
        network: context.network,
        now,
        clockSkewSeconds: settings.clockSkewSeconds,
        minValiditySeconds: settings.minValiditySeconds,
        ...(deps.secp256k1 === undefined ? {} : { secp256k1: deps.secp256k1 }),
      });
      const echoed = extractEchoedOffer(payload);
      if (echoed !== undefined) verifyOffer(echoed, context, now);
      return signatureStatus;
    },
  };
}
