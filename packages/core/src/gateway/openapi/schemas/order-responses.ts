import * as v from 'valibot';
import type { RejectedRefundReceipt } from '../../../x402/refund-receipt';
import { rejectedRefundReceiptSchema } from '../../../x402/refund-receipt';
import type { OrderPage } from '../../orders/order-service';
import type { OrderView, RefundRejectionView, RefundView } from '../../orders/order-views';
import type { StatelessRejection } from '../../orders/refund-service';
import { orderStatuses } from '../../orders/schemas';
import { named } from '../../../openapi/descriptors';
import { addressOut, decimalOut, describes, hash32Out, refIdOut, unixSeconds } from './common';

/** Response schemas of order mode's order and refund routes (`order-routes.ts`, `refund-routes.ts`), each tied to its service type. */

/** An order id: `ord_` + 32 lowercase hex digits. */
export const orderIdOut = v.pipe(v.string(), v.regex(/^ord_[0-9a-f]{32}$/));
/** A refund intent id: `rfd_` + 32 lowercase hex digits. */
export const refundIdOut = v.pipe(v.string(), v.regex(/^rfd_[0-9a-f]{32}$/));

const hex64 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('A receipt hash: 64 lowercase hex digits.'));
const refundOfOut = v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/), v.description("sha256:<receiptHash> of the order's payment receipt."));
const atomic = (description: string) => v.pipe(decimalOut, v.description(`${description} Atomic units.`));
const nullableSeconds = v.nullable(unixSeconds);
const url = (description: string) => v.pipe(v.string(), v.description(description));

/** The rejected-refund receipt (`x402.refund.rejected`), as `x402/refund-receipt.ts` parses it. */
export const rejectedRefundReceiptComponent = named('RejectedRefundReceipt', rejectedRefundReceiptSchema);

/** An order (`components.schemas.Order`), as every order route answers it. */
export const orderResponse = named(
  'Order',
  describes<OrderView>()(
    v.object({
      orderId: orderIdOut,
      status: v.pipe(v.picklist(orderStatuses), v.description('expired: unpaid past expiresAt.')),
      amount: atomic('The price.'),
      payTo: addressOut,
      network: v.string(),
      asset: v.string(),
      invoiceId: v.nullable(v.string()),
      label: v.nullable(v.string()),
      description: v.nullable(v.string()),
      metadata: v.pipe(v.nullable(v.record(v.string(), v.string())), v.description('As sent at creation.')),
      notifyUrl: v.nullable(v.string()),
      refId: v.pipe(refIdOut, v.description("The order's fixed-amount ref (GET /ref/{refId} shows its snapshot).")),
      refUrl: url('<origin>/ref/<refId>.'),
      payUrl: url('<origin>/pay/<refId>: the page where a payer pays with a browser wallet.'),
      receiveUrl: url('<origin>/receive/<payTo>?ref=<refId>: where an x402 client pays.'),
      createdAt: unixSeconds,
      expiresAt: unixSeconds,
      paidAt: nullableSeconds,
      cancelledAt: nullableSeconds,
      payment: v.nullable(
        v.object({
          paymentId: v.string(),
          payer: addressOut,
          txHash: hash32Out,
          receiptHash: v.pipe(hex64, v.description('What refundOf=sha256:<receiptHash> names.')),
        }),
      ),
      refunded: atomic('Paid back by settled refunds.'),
      refundReserved: atomic('Held by open refund intents.'),
      refundable: atomic('What a new refund intent may still take (0 unless paid or partially refunded).'),
    }),
  ),
);

/** `GET /order` → 200. */
export const orderPageResponse = named(
  'OrderPage',
  describes<OrderPage>()(
    v.object({
      items: v.array(orderResponse.schema),
      nextCursor: v.optional(v.pipe(v.string(), v.description('Present while more items exist: pass it back unchanged as cursor.'))),
    }),
  ),
);

// The service types leave the stored rejection receipt `unknown` (it is answered as stored); the document states its shape.
type DocumentedRefund = Omit<RefundView, 'rejection'> & { rejection: (Omit<RefundRejectionView, 'receipt'> & { receipt: RejectedRefundReceipt }) | null };

/** A refund intent (`components.schemas.RefundIntent`), as every refund route answers it. */
export const refundIntentResponse = named(
  'RefundIntent',
  describes<DocumentedRefund>()(
    v.object({
      refundId: refundIdOut,
      orderId: orderIdOut,
      status: v.pipe(v.picklist(['open', 'paid', 'rejected', 'expired']), v.description('expired: open past expiresAt (its reservation is released).')),
      amount: atomic('The refund.'),
      payer: v.pipe(addressOut, v.description("Who receives the refund: the order's payer.")),
      payTo: v.pipe(addressOut, v.description("Who pays it: the order's payTo, the only payer the refund ref accepts.")),
      network: v.string(),
      asset: v.string(),
      refundOf: refundOfOut,
      refId: v.pipe(refIdOut, v.description('The refund ref.')),
      receiveUrl: url("<origin>/receive/<payer>?ref=<refId>&refundOf=sha256:<hash>: where the merchant's payTo pays the refund with an x402 client."),
      reason: v.nullable(v.string()),
      createdAt: unixSeconds,
      expiresAt: unixSeconds,
      paidAt: nullableSeconds,
      payment: v.nullable(v.object({ paymentId: v.string(), txHash: hash32Out, receiptHash: v.pipe(hex64, v.description("The refund receipt's hash.")) })),
      rejection: v.pipe(
        v.nullable(
          v.object({
            reason: v.nullable(v.string()),
            rejectedAt: unixSeconds,
            receipt: rejectedRefundReceiptComponent.schema,
            signedReceipt: v.pipe(v.string(), v.description('The gateway signature of receipt; send both to POST /verify-refund-receipt.')),
          }),
        ),
        v.description('The signed rejected-refund receipt, the same on every read.'),
      ),
    }),
  ),
);

/** `GET /order/:orderId/refunds` → 200. */
export const refundIntentListResponse = named('RefundIntentList', describes<{ items: DocumentedRefund[] }>()(v.object({ items: v.array(refundIntentResponse.schema) })));

/** `POST /refund-receipt/rejected` → 200. */
export const statelessRejectionResponse = named(
  'StatelessRefundRejection',
  describes<StatelessRejection>()(
    v.object({
      receipt: rejectedRefundReceiptComponent.schema,
      signedReceipt: v.pipe(v.string(), v.description('The gateway signature of receipt; send both to POST /verify-refund-receipt.')),
      receiptHash: v.pipe(hex64, v.description("The rejected-refund receipt's hash.")),
    }),
  ),
);
