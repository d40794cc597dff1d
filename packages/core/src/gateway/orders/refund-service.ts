import * as v from 'valibot';
import { isAddressEqual, zeroAddress, type Address } from 'viem';
import { randomBytes, randomId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import type { EvmSigner } from '../../x402/evm-signature';
import { paymentReceiptSchema, receiptHash, verifySignedReceipt, type PaymentReceipt } from '../../x402/receipt';
import { buildRejectedRefundReceipt, refundReceiptHash, signRefundReceipt, type RejectedRefundReceipt } from '../../x402/refund-receipt';
import { issuePath } from '../../x402/wire';
import type { GatewayEvents } from '../gateway-events';
import type { AuthenticatedMerchant } from '../merchants/account-service';
import { resolvePublicUrl, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { RefundRecord } from '../store/order-records';
import type { OrderStore } from '../store/order-store';
import { orderNotFound } from './order-service';
import { receiptHashHex, refundReceiveUrl, refundView, type RefundView } from './order-views';
import { buildRefSnapshot } from '../refs/ref-snapshot';
import { defaultRefundLifetimeSeconds, isOrderId, isRefundId, type CreateRefundRequest, type RejectRefundRequest, type StatelessRejectionRequest } from './schemas';

/** `POST /refund-receipt/rejected`: a signed rejected-refund receipt (nothing is stored). */
export interface StatelessRejection {
  readonly receipt: RejectedRefundReceipt;
  readonly signedReceipt: string;
  /** The rejected-refund receipt's hash (64 hex digits). */
  readonly receiptHash: string;
}

/** Dependencies of {@link createRefundService}. */
export interface RefundServiceDeps extends GatewayServiceDeps {
  /** `orders` for the intents, `merchants` for who owns the payTo of a receipt. */
  readonly stores: Pick<GatewayStores, 'merchants'> & { readonly orders: OrderStore };
  /** The key that signs receipts: it signs rejected-refund receipts too. */
  readonly signer: EvmSigner;
  /** Receipt keys whose payment receipts `POST /refund-receipt/rejected` accepts (the current one and rotated-out ones). */
  readonly acceptedReceiptSigners: readonly Address[];
  /** Told `ref_revoked` when a rejection revoked a refund ref. */
  readonly events?: Pick<GatewayEvents, 'emit'>;
}

/** Refund intents of orders, and rejected-refund receipts. Another merchant's order or receipt is answered like a missing one. */
export interface RefundService {
  /**
   * Creates a refund intent and its refund ref, reserving `amount` on the order.
   *
   * @throws GatewayError `not_found`; `conflict` with `details.reason` `not_refundable` (the order is not
   *   paid or partially refunded; `details.status`) or `exceeds_remaining` (`details.remaining`).
   */
  createRefund(caller: AuthenticatedMerchant, orderId: string, input: CreateRefundRequest): Promise<RefundView>;
  /** @throws GatewayError `not_found`. */
  getRefund(caller: AuthenticatedMerchant, orderId: string, refundId: string): Promise<RefundView>;
  /** The order's refunds, oldest first. @throws GatewayError `not_found`. */
  listRefunds(caller: AuthenticatedMerchant, orderId: string): Promise<{ items: RefundView[] }>;
  /**
   * Rejects an open refund intent: revokes its ref, releases the reservation and stores a signed
   * rejected-refund receipt (idempotent: a rejected intent is answered again, receipt unchanged).
   *
   * @throws GatewayError `not_found`; `conflict` with `details.reason` `not_open` (paid or expired;
   *   `details.status`) or `payment_in_flight` (a payment of its refund ref is being settled).
   */
  rejectRefund(caller: AuthenticatedMerchant, orderId: string, refundId: string, input: RejectRefundRequest): Promise<RefundView>;
  /**
   * Signs a rejected-refund receipt for a payment receipt this gateway issued to one of the caller's payTos.
   *
   * @throws GatewayError `receipt_invalid` (malformed, or not signed by an accepted receipt key), `not_found`
   *   (the receipt's payTo is not the caller's).
   */
  rejectReceipt(caller: AuthenticatedMerchant, input: StatelessRejectionRequest): Promise<StatelessRejection>;
}

function refundNotFound(): GatewayError {
  return new GatewayError('not_found', 'No such refund of this order.', { details: { reason: 'no_such_refund' } });
}

function notOpen(refund: RefundRecord): GatewayError {
  return new GatewayError('conflict', `A refund that is ${refund.status} cannot be rejected.`, { details: { reason: 'not_open', status: refund.status, refundId: refund.id } });
}

function inFlight(refundId: string): GatewayError {
  return new GatewayError('conflict', 'A payment of this refund is being settled: it cannot be rejected now. Read the refund again shortly.', {
    details: { reason: 'payment_in_flight', refundId },
  });
}

/**
 * The refund half of order mode. A refund intent is a refund ref (kind `refund`: it pays the order's
 * payer, accepts only the order's payTo as payer, and is bound to the original receipt) plus a
 * reservation on the order, created in one transaction; the store guards the sum in SQL, so concurrent
 * intents never exceed what was paid.
 *
 * @param deps - Order and merchant stores, the receipt signer and accepted receipt keys, networks, public URL, clock, randomness, events.
 * @returns The service.
 * @example
 * ```ts
 * import { createRefundService } from '@tollgate/core/gateway';
 * const refunds = createRefundService({ stores, signer, acceptedReceiptSigners: [signer.address], events, keys, networks, publicUrl, clock });
 * const refund = await refunds.createRefund(caller, orderId, { amount: '5000', reason: 'Late delivery' });
 * ```
 */
export function createRefundService(deps: RefundServiceDeps): RefundService {
  const random = deps.random ?? randomBytes;
  const { orders, merchants } = deps.stores;
  const now = () => new Date(deps.clock.now());
  const origin = () => resolvePublicUrl(deps);

  return {
    async createRefund(caller, orderId, input) {
      if (!isOrderId(orderId)) throw orderNotFound();
      const order = await orders.getOrder({ merchantId: caller.merchantId, orderId });
      if (order === undefined) throw orderNotFound();
      if ((order.status !== 'paid' && order.status !== 'partially_refunded') || order.payer === null || order.receiptHash === null) {
        throw new GatewayError('conflict', `An order that is ${order.status.replace('_', ' ')} cannot be refunded.`, { details: { reason: 'not_refundable', status: order.status, orderId } });
      }
      const refundId = `rfd_${randomId(random)}`;
      const refId = randomId(random);
      const refundOf = `sha256:${receiptHashHex(order.receiptHash)}`;
      const createdAt = now();
      const expiresAt = Math.floor(createdAt.getTime() / 1000) + (input.expiresInSecs ?? defaultRefundLifetimeSeconds);
      const snapshot = buildRefSnapshot({
        network: order.network,
        payTo: order.payer,
        asset: 'USDC',
        amount: input.amount,
        resource: refundReceiveUrl(origin(), { payer: order.payer, refId, refundOf }),
        expiresAt,
      });
      const outcome = await orders.createRefund({
        id: refundId,
        merchantId: caller.merchantId,
        orderId,
        amount: input.amount,
        reason: input.reason ?? null,
        ref: {
          id: refId,
          kind: 'refund',
          refundOf,
          refundFrom: order.payTo,
          merchantId: caller.merchantId,
          payTo: order.payer,
          network: order.network,
          asset: order.asset,
          amount: input.amount,
          invoiceId: null,
          label: null,
          notifyUrl: null,
          snapshotJson: JSON.stringify(snapshot),
          createdAt,
          expiresAt: new Date(expiresAt * 1000),
        },
        now: createdAt,
      });
      switch (outcome.kind) {
        case 'created':
          return refundView(outcome.refund, origin());
        case 'not_refundable':
          throw new GatewayError('conflict', `An order that is ${outcome.order.status.replace('_', ' ')} cannot be refunded.`, {
            details: { reason: 'not_refundable', status: outcome.order.status, orderId },
          });
        case 'exceeds_remaining':
          throw new GatewayError('conflict', `The refund exceeds what is left to refund on this order (${outcome.remaining}).`, {
            details: { reason: 'exceeds_remaining', field: 'amount', remaining: outcome.remaining, orderId },
          });
        case 'not_found':
          throw orderNotFound();
      }
    },

    async getRefund(caller, orderId, refundId) {
      if (!isOrderId(orderId) || !isRefundId(refundId)) throw refundNotFound();
      const refund = await orders.getRefund({ merchantId: caller.merchantId, orderId, refundId, now: now() });
      if (refund === undefined) throw refundNotFound();
      return refundView(refund, origin());
    },

    async listRefunds(caller, orderId) {
      if (!isOrderId(orderId)) throw orderNotFound();
      const refunds = await orders.listRefunds({ merchantId: caller.merchantId, orderId, now: now() });
      if (refunds === undefined) throw orderNotFound();
      return { items: refunds.map((refund) => refundView(refund, origin())) };
    },

    async rejectRefund(caller, orderId, refundId, input) {
      if (!isOrderId(orderId) || !isRefundId(refundId)) throw refundNotFound();
      const at = now();
      const refund = await orders.getRefund({ merchantId: caller.merchantId, orderId, refundId, now: at });
      if (refund === undefined) throw refundNotFound();
      // Answered before signing anything; the store decides again under its locks.
      if (refund.status === 'rejected') return refundView(refund, origin());
      if (refund.status !== 'open') throw notOpen(refund);
      const receipt = buildRejectedRefundReceipt({
        refundOf: `sha256:${receiptHashHex(refund.originalReceiptHash)}`,
        refundId: refund.id,
        orderId: refund.orderId,
        originalPayer: refund.payer,
        originalPayTo: refund.payTo,
        amount: refund.amount,
        ...(input.reason === undefined ? {} : { reason: input.reason }),
        gatewayOrigin: origin(),
        network: deps.networks.require(refund.network),
        issuedAt: Math.floor(at.getTime() / 1000),
      });
      const signedReceipt = await signRefundReceipt(receipt, deps.signer);
      const outcome = await orders.rejectRefund({
        merchantId: caller.merchantId,
        orderId,
        refundId,
        reason: input.reason ?? null,
        receiptJson: JSON.stringify(receipt),
        signedReceipt,
        now: at,
      });
      switch (outcome.kind) {
        case 'rejected':
          deps.events?.emit({ type: 'ref_revoked', refId: outcome.refund.refId });
          return refundView(outcome.refund, origin());
        case 'already_rejected':
          return refundView(outcome.refund, origin());
        case 'not_open':
          throw notOpen(outcome.refund);
        case 'payment_in_flight':
          throw inFlight(refundId);
        case 'not_found':
          throw refundNotFound();
      }
    },

    async rejectReceipt(caller, input) {
      const parsed = v.safeParse(paymentReceiptSchema, input.receipt);
      if (!parsed.success) {
        const field = issuePath(parsed.issues);
        throw new GatewayError('receipt_invalid', `The receipt is malformed at ${field === '' ? 'receipt' : `receipt.${field}`}: expected a payment receipt this gateway issued.`, {
          details: { reason: 'malformed_receipt', field: field === '' ? 'receipt' : `receipt.${field}` },
        });
      }
      const receipt = parsed.output as PaymentReceipt;
      const payTo = await merchants.getPayTo(receipt.payTo);
      if (payTo === undefined || payTo.merchantId !== caller.merchantId) {
        throw new GatewayError('not_found', 'No receipt of yours matches this request.', { details: { reason: 'not_owned' } });
      }
      // The zero address never signs: a valid signature comes back as `wrong_signer` with the address it recovers to.
      const checked = verifySignedReceipt(input.signedReceipt, receipt, zeroAddress);
      const signer = checked.valid ? checked.signer : checked.reason === 'wrong_signer' ? checked.signer : undefined;
      if (signer === undefined || !deps.acceptedReceiptSigners.some((accepted) => isAddressEqual(accepted, signer))) {
        throw new GatewayError('receipt_invalid', "The receipt's signature is not one of this gateway's receipt keys.", {
          details: { reason: 'signature', ...(signer === undefined ? {} : { signer }) },
        });
      }
      const network = deps.networks.byCaip2(receipt.network);
      if (network === undefined) {
        throw new GatewayError('receipt_invalid', 'The receipt names a network this gateway does not serve.', { details: { reason: 'unknown_network', field: 'receipt.network' } });
      }
      const rejected = buildRejectedRefundReceipt({
        refundOf: `sha256:${receiptHash(receipt)}`,
        originalPayer: receipt.payer,
        originalPayTo: receipt.payTo,
        ...(input.reason === undefined ? {} : { reason: input.reason }),
        gatewayOrigin: origin(),
        network,
        issuedAt: Math.floor(deps.clock.now() / 1000),
      });
      return { receipt: rejected, signedReceipt: await signRefundReceipt(rejected, deps.signer), receiptHash: refundReceiptHash(rejected) };
    },
  };
}
