import { receiptHash, type PaymentReceipt } from '../receipt';

/**
 * The body of a `payment.settled` merchant notification, POSTed as JSON to the ref's `notifyUrl` or the
 * merchant's webhook URL and signed with `signNotification`. `id` is stable across delivery retries
 * (deduplicate on it); `data` repeats what the payer received, so the merchant can verify
 * `signedReceipt` over `receipt` itself and match `receiptHash` with later refunds.
 */
export interface PaymentSettledNotification {
  event: 'payment.settled';
  /** Unique per notification, the same on every retry. */
  id: string;
  /** Unix seconds when the notification was created (not when it was delivered). */
  createdAt: number;
  data: {
    refId: string;
    invoiceId?: string;
    receipt: PaymentReceipt;
    /** `receiptHash(receipt)`. */
    receiptHash: string;
    signedReceipt: string;
  };
}

/**
 * Builds the `payment.settled` notification of a receipt; `refId`, `invoiceId` and `receiptHash` are
 * taken from the receipt, so they cannot disagree with it.
 *
 * @param params - Notification id, creation time, the receipt and its signature.
 * @returns The notification.
 * @throws TypeError when `createdAt` is not Unix seconds or the id is empty.
 *
 * @example
 * ```ts
 * import { buildPaymentSettledNotification, serializeNotification, signNotification } from '@tollgate/core/x402';
 * const body = serializeNotification(buildPaymentSettledNotification({ id: jobId, createdAt: now, receipt, signedReceipt }));
 * const headers = signNotification({ body, keys, timestamp: now });
 * ```
 */
export function buildPaymentSettledNotification(params: { id: string; createdAt: number; receipt: PaymentReceipt; signedReceipt: string }): PaymentSettledNotification {
  if (typeof params.id !== 'string' || params.id === '') throw new TypeError('A notification needs an id.');
  if (!Number.isSafeInteger(params.createdAt) || params.createdAt < 0) throw new TypeError('createdAt must be Unix seconds.');
  const { receipt } = params;
  return {
    event: 'payment.settled',
    id: params.id,
    createdAt: params.createdAt,
    data: {
      refId: receipt.refId,
      ...(receipt.invoiceId === undefined ? {} : { invoiceId: receipt.invoiceId }),
      receipt,
      receiptHash: receiptHash(receipt),
      signedReceipt: params.signedReceipt,
    },
  };
}
