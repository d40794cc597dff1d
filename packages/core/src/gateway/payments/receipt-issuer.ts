import { GatewayError } from '../../errors/gateway';
import { renderGatewayError } from '../../errors/render';
import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { buildPaymentSettledNotification } from '../../x402/notifications/payload';
import type { EvmSigner } from '../../x402/evm-signature';
import { buildPaymentReceipt, receiptHash, signReceipt, type PaymentReceipt } from '../../x402/receipt';
import { buildRefundReceipt, refundReceiptHash, signRefundReceipt, type RefundReceipt } from '../../x402/refund-receipt';
import { buildSettlementFailureResponse, buildSettlementResponse } from '../../x402/settlement-response';
import type { Network } from '../../x402/wire';
import { signX402Receipt, type X402SignedReceipt } from '../../x402/x402-offer-receipt';
import type { GatewayNetwork } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import { resolvePublicUrl } from '../service-deps';
import type { OrderStore } from '../store/order-store';
import type { PaymentCompletion, PaymentRecord, StoredSettlementAnswer } from '../store/payment-records';
import type { RefRecord } from '../store/records';
import type { NotificationJob } from '../notifications/notification-job';
import type { PaymentDeps } from './payment-deps';
import { buildRefundSettlementResponse } from './refund-settlement';

/** The facts of a built receipt that its answer and stored completion read, whatever its kind. */
type SettledReceipt = { network: Network; txHash: string; blockNumber?: string; issuedAt: number };

/** How one kind of receipt is signed, hashed and answered with. */
interface ReceiptKind<Receipt extends SettledReceipt> {
  sign(receipt: Receipt, signer: EvmSigner): Promise<string>;
  hash(receipt: Receipt): string;
  answer(params: { receipt: Receipt; signedReceipt: string; x402Receipt: X402SignedReceipt }): { body: unknown; header: string };
}

const paymentReceipts: ReceiptKind<PaymentReceipt> = { sign: signReceipt, hash: receiptHash, answer: buildSettlementResponse };
const refundReceipts: ReceiptKind<RefundReceipt> = { sign: signRefundReceipt, hash: refundReceiptHash, answer: buildRefundSettlementResponse };

/** A settled payment, for {@link ReceiptIssuer.completion}. */
export interface CompletionParams {
  readonly payment: PaymentRecord;
  readonly ref: RefRecord;
  readonly network: GatewayNetwork;
  readonly txHash: string;
  readonly blockNumber?: bigint;
  readonly now: Date;
}

/** Issues receipts and builds the stored answers of final payments. */
export interface ReceiptIssuer {
  /**
   * Everything `PaymentStore.completePayment` stores for a settled payment: the receipt (signed, with
   * the official x402 receipt artifact), the 200 answer and the merchant notification. A refund ref's
   * payment gets a refund receipt (`x402.refund.receipt`, see `buildRefundSettlementResponse`) and no
   * notification of its own (the store enqueues `order.refunded`).
   */
  completion(params: CompletionParams): Promise<PaymentCompletion>;
  /** The stored answer of a failed payment: 402 `settlement_failed` with a `PAYMENT-RESPONSE` of `success: false`. */
  failure(params: { payment: PaymentRecord; network: GatewayNetwork; reason: string; message: string; txHash: string | null }): StoredSettlementAnswer;
  /** The `PAYMENT-RESPONSE` of a pending payment: `success: false`, `errorReason: 'settlement_pending'`, the hash when known. */
  pendingResponse(params: { payment: Pick<PaymentRecord, 'payer' | 'txHash'>; network: GatewayNetwork }): string;
}

/**
 * The notification id of a payment: `ntf_` + 32 hex digits of sha256 over the payment id, so every
 * instance that finishes the payment builds the same notification.
 *
 * @param paymentId - The payment.
 * @returns The id.
 *
 * @example
 * ```ts
 * import { notificationIdOf } from '@tollgate/core/gateway';
 * notificationIdOf('pay_7d5d747be160e280504c099d984bcfe0'); // 'ntf_…'
 * ```
 */
export function notificationIdOf(paymentId: string): string {
  return `ntf_${hexEncode(sha256(utf8Encode(`tollgate/notification/v1:${paymentId}`))).slice(0, 32)}`;
}

/**
 * Creates the receipt issuer over the gateway's signing key.
 *
 * @param deps - Signer, public URL and, in order mode, the order store (a refund payment's intent).
 * @returns The issuer.
 *
 * @example
 * ```ts
 * import { createReceiptIssuer } from '@tollgate/core/gateway';
 * const issuer = createReceiptIssuer({ signer, publicUrl: 'https://pay.example.com' });
 * const completion = await issuer.completion({ payment, ref, network, txHash, now: new Date() });
 * ```
 */
export function createReceiptIssuer(deps: Pick<PaymentDeps, 'signer' | 'publicUrl'> & { readonly stores?: { readonly orders?: OrderStore } }): ReceiptIssuer {
  /**
   * A refund ref's payment: the refund receipt (bound to the original receipt by `refundOf`), its answer
   * (see `RefundSettlementBody`), and no notification here — the store's completion enqueues
   * `order.refunded` with this receipt in the same transaction.
   */
  async function refundCompletion({ payment, ref, network, txHash, blockNumber, now }: CompletionParams): Promise<PaymentCompletion> {
    const refund = await deps.stores?.orders?.getRefundByRef(ref.id);
    // A refund ref is only ever created with its intent (OrderStore.createRefund): a missing one is a wiring bug.
    if (refund === undefined || ref.refundOf === null) throw new Error(`The refund intent of refund ref ${ref.id} cannot be read (is stores.orders wired?).`);
    const snapshot = JSON.parse(ref.snapshotJson) as RefSnapshot;
    const issuedAt = Math.floor(now.getTime() / 1000);
    const receipt = buildRefundReceipt({
      refundId: refund.id,
      orderId: refund.orderId,
      refId: ref.id,
      paymentId: payment.paymentId,
      refundOf: ref.refundOf,
      gatewayOrigin: resolvePublicUrl(deps),
      network,
      from: payment.payer,
      to: payment.payTo,
      amount: payment.amount,
      authorizationNonce: payment.nonce,
      txHash,
      ...(blockNumber === undefined ? {} : { blockNumber }),
      issuedAt,
    });
    return signedCompletion(refundReceipts, receipt, { resourceUrl: snapshot.resource, payer: receipt.from }, { payment, now }, () => null);
  }

  /**
   * What both kinds of receipt share once built: the signature and the official x402 receipt artifact
   * (signed together), the 200 answer, and the completion the store keeps, with the notification `notify`
   * builds from the signature (`null` for none).
   */
  async function signedCompletion<Receipt extends SettledReceipt>(
    kind: ReceiptKind<Receipt>,
    receipt: Receipt,
    artifact: { resourceUrl: string; payer: string },
    { payment, now }: Pick<CompletionParams, 'payment' | 'now'>,
    notify: (signedReceipt: string) => NotificationJob | null,
  ): Promise<PaymentCompletion> {
    const [signedReceipt, x402Receipt] = await Promise.all([
      kind.sign(receipt, deps.signer),
      signX402Receipt({ network: receipt.network, ...artifact, issuedAt: receipt.issuedAt, transaction: receipt.txHash }, deps.signer),
    ]);
    const { body, header } = kind.answer({ receipt, signedReceipt, x402Receipt });
    return {
      paymentId: payment.paymentId,
      txHash: receipt.txHash,
      blockNumber: receipt.blockNumber ?? null,
      receiptHash: kind.hash(receipt),
      receiptJson: JSON.stringify(receipt),
      signedReceipt,
      answer: { outcome: 'settled', paymentResponse: header, body: JSON.stringify(body) },
      notification: notify(signedReceipt),
      now,
    };
  }

  return {
    async completion(params) {
      if (params.ref.kind === 'refund') return refundCompletion(params);
      const { payment, ref, network, txHash, blockNumber, now } = params;
      const snapshot = JSON.parse(ref.snapshotJson) as RefSnapshot;
      const issuedAt = Math.floor(now.getTime() / 1000);
      const receipt = buildPaymentReceipt({
        refId: ref.id,
        paymentId: payment.paymentId,
        ...(ref.invoiceId === null ? {} : { invoiceId: ref.invoiceId }),
        gatewayOrigin: resolvePublicUrl(deps),
        resourceUrl: snapshot.resource,
        network,
        payTo: payment.payTo,
        payer: payment.payer,
        amount: payment.amount,
        authorizationNonce: payment.nonce,
        txHash,
        ...(blockNumber === undefined ? {} : { blockNumber }),
        issuedAt,
      });
      return signedCompletion(paymentReceipts, receipt, { resourceUrl: receipt.resourceUrl, payer: receipt.payer }, { payment, now }, (signedReceipt) => ({
        merchantId: payment.merchantId,
        refId: ref.id,
        url: ref.notifyUrl,
        notification: buildPaymentSettledNotification({ id: notificationIdOf(payment.paymentId), createdAt: issuedAt, receipt, signedReceipt }),
      }));
    },

    failure({ payment, network, reason, message, txHash }) {
      const { header } = buildSettlementFailureResponse({
        network: network.caip2,
        errorReason: reason,
        transaction: txHash ?? '',
        payer: payment.payer,
      });
      const failed = new GatewayError('settlement_failed', message, { details: { paymentId: payment.paymentId, reason, ...(txHash === null ? {} : { transaction: txHash }) } });
      return { outcome: 'failed', paymentResponse: header, body: JSON.stringify(renderGatewayError(failed).body) };
    },

    pendingResponse({ payment, network }) {
      return buildSettlementFailureResponse({
        network: network.caip2,
        errorReason: 'settlement_pending',
        transaction: payment.txHash ?? '',
        payer: payment.payer,
      }).header;
    },
  };
}
