import { expect, it } from 'vitest';
import type { RefundRecord } from '../gateway/store/order-records';
import type { RefundRejection } from '../gateway/store/order-store';
import { at, enrollMerchant, hexId } from './gateway-stores-fixture';
import {
  claimOf,
  claimOn,
  createdOrder,
  createdRefund,
  hour,
  orderFor,
  paidOrder,
  payRefund,
  refundFor,
  type OrderStoreConformanceFixture,
} from './order-store-fixture';

/** A rejection of `refund` at `offsetMs` after the epoch, with a receipt naming it. */
export function rejectionOf(refund: RefundRecord, offsetMs = 90_000, reason: string | null = 'not eligible'): RefundRejection {
  const receipt = { type: 'x402.refund.rejected', version: 1, refundId: refund.id, orderId: refund.orderId, refundOf: refund.originalReceiptHash, reason };
  return {
    merchantId: refund.merchantId,
    orderId: refund.orderId,
    refundId: refund.id,
    reason,
    receiptJson: JSON.stringify(receipt),
    signedReceipt: `0x${hexId(65)}`,
    now: at(offsetMs),
  };
}

/** Registers the refund cases of the OrderStore suite (intents, reservation, settlement, rejection, expiry). */
export function defineRefundCases(fixture: () => OrderStoreConformanceFixture): void {
  it('creates a refund intent with its refund ref, reserving its amount, readable by the merchant of the order only', async () => {
    const fixed = fixture();
    const { orders, refs, merchants } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const other = await enrollMerchant(merchants);
    const intent = refundFor(order, '3000');
    const outcome = await orders.createRefund(intent);
    const expected: RefundRecord = {
      id: intent.id,
      orderId: order.id,
      merchantId: merchant.merchantId,
      refId: intent.ref.id,
      amount: '3000',
      originalReceiptHash: `sha256:${order.receiptHash}`,
      originalPaymentId: order.paymentId as string,
      payer: order.payer as string,
      payTo: order.payTo,
      network: order.network,
      asset: order.asset,
      reason: 'damaged',
      status: 'open',
      paymentId: null,
      txHash: null,
      receiptHash: null,
      rejectionReason: null,
      rejectionReceiptJson: null,
      signedRejectionReceipt: null,
      createdAt: intent.now,
      expiresAt: intent.ref.expiresAt,
      paidAt: null,
      rejectedAt: null,
      updatedAt: intent.now,
    };
    expect(outcome).toEqual({ kind: 'created', refund: expected, order: { ...order, refundReserved: '3000', updatedAt: intent.now } });
    const now = at(90_000);
    expect(await orders.getRefund({ merchantId: merchant.merchantId, orderId: order.id, refundId: intent.id, now })).toEqual(expected);
    expect(await orders.listRefunds({ merchantId: merchant.merchantId, orderId: order.id, now })).toEqual([expected]);
    expect(await orders.getRefundByRef(intent.ref.id)).toEqual(expected);
    expect(await orders.getRefund({ merchantId: other.merchantId, orderId: order.id, refundId: intent.id, now })).toBeUndefined();
    expect(await orders.getRefund({ merchantId: merchant.merchantId, orderId: `ord_${hexId()}`, refundId: intent.id, now })).toBeUndefined();
    expect(await orders.listRefunds({ merchantId: other.merchantId, orderId: order.id, now })).toBeUndefined();
    expect(await orders.getRefundByRef(order.refId)).toBeUndefined();

    const ref = { ...intent.ref, kind: 'refund', status: 'active', revokedAt: null };
    expect(await refs.getRef(intent.ref.id)).toEqual(ref);
    expect(await refs.getPaymentTarget(intent.ref.id)).toEqual({ ref, payToStatus: 'active' });
    expect(await refs.getPaymentStatus(intent.ref.id)).toEqual({ refStatus: 'active', payToStatus: 'active' });
    // Refund refs are not among the refs the merchant receives on.
    expect(await refs.listRefs({ merchantId: merchant.merchantId, payTo: order.payer as string, limit: 10 })).toEqual([]);
    // The merchant's payTo retiring does not stop it from paying a refund back.
    await merchants.retirePayTo({ merchantId: merchant.merchantId, address: merchant.payTo, now: at(100_000) });
    expect(await refs.getPaymentStatus(intent.ref.id)).toEqual({ refStatus: 'active', payToStatus: 'active' });
    await claimOn(fixed, { merchantId: merchant.merchantId, payTo: order.payer as string, refId: intent.ref.id, amount: '3000' }, { payer: order.payTo });
  });

  it('never reserves more than what is left, and refunds only paid orders; another merchant’s order is not found', async () => {
    const fixed = fixture();
    const { orders, refs, merchants } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    await createdRefund(orders, refundFor(order, '3000'));
    const tooMuch = refundFor(order, '7001');
    const current = await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id });
    expect(await orders.createRefund(tooMuch)).toEqual({ kind: 'exceeds_remaining', order: current, remaining: '7000' });
    expect(await refs.getRef(tooMuch.ref.id)).toBeUndefined();
    expect(await orders.getRefundByRef(tooMuch.ref.id)).toBeUndefined();
    const rest = await orders.createRefund(refundFor(order, '7000'));
    expect(rest).toMatchObject({ kind: 'created', order: { refundReserved: '10000', refunded: '0', status: 'paid' } });
    expect(await orders.createRefund(refundFor(order, '1'))).toMatchObject({ kind: 'exceeds_remaining', remaining: '0' });

    const other = await enrollMerchant(merchants);
    expect(await orders.createRefund({ ...refundFor(order, '1'), merchantId: other.merchantId })).toEqual({ kind: 'not_found' });
    const unpaid = await createdOrder(orders, orderFor(merchant));
    const paidLike = { ...unpaid, payer: order.payer, receiptHash: order.receiptHash };
    expect(await orders.createRefund(refundFor(paidLike, '1'))).toEqual({ kind: 'not_refundable', order: unpaid });
    expect((await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: unpaid.id, now: at(1_000) })).kind).toBe('cancelled');
    expect(await orders.createRefund(refundFor(paidLike, '1'))).toMatchObject({ kind: 'not_refundable', order: { status: 'cancelled' } });
  });

  it('settles refund payments: the intent is paid, its amount moves from reserved to refunded, the order becomes (partially) refunded', async () => {
    const fixed = fixture();
    const { orders } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const first = await createdRefund(orders, refundFor(order, '4000'));
    const second = await createdRefund(orders, refundFor(order, '6000', { offsetMs: 61_000 }));
    const { payment, completion } = await payRefund(fixed, first, at(120_000));
    const now = at(130_000);
    expect(await orders.getRefund({ merchantId: merchant.merchantId, orderId: order.id, refundId: first.id, now })).toEqual({
      ...first,
      status: 'paid',
      paymentId: payment.paymentId,
      txHash: completion.txHash,
      receiptHash: completion.receiptHash,
      paidAt: at(120_000),
      updatedAt: at(120_000),
    });
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({
      status: 'partially_refunded',
      refunded: '4000',
      refundReserved: '6000',
      updatedAt: at(120_000),
    });
    await payRefund(fixed, second, at(125_000));
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ status: 'refunded', refunded: '10000', refundReserved: '0' });
    expect((await orders.listRefunds({ merchantId: merchant.merchantId, orderId: order.id, now }))?.map((refund) => [refund.id, refund.status])).toEqual([
      [first.id, 'paid'],
      [second.id, 'paid'],
    ]);
    expect(await orders.createRefund(refundFor(order, '1'))).toMatchObject({ kind: 'not_refundable', order: { status: 'refunded' } });
  });

  it('rejects an open refund: its ref revoked, its reservation released, its receipt stored; rejecting again answers the same', async () => {
    const fixed = fixture();
    const { orders, refs, payments } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const refund = await createdRefund(orders, refundFor(order, '2500'));
    const rejection = rejectionOf(refund);
    const outcome = await orders.rejectRefund(rejection);
    const rejected: RefundRecord = {
      ...refund,
      status: 'rejected',
      rejectionReason: 'not eligible',
      rejectionReceiptJson: rejection.receiptJson,
      signedRejectionReceipt: rejection.signedReceipt,
      rejectedAt: rejection.now,
      updatedAt: rejection.now,
    };
    expect(outcome).toEqual({ kind: 'rejected', refund: rejected });
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ refundReserved: '0', status: 'paid' });
    expect(await refs.getRef(refund.refId)).toMatchObject({ status: 'revoked', revokedAt: rejection.now });
    const again = await orders.rejectRefund({ ...rejectionOf(refund, 95_000, 'other'), signedReceipt: '0x00' });
    expect(again).toEqual({ kind: 'already_rejected', refund: rejected });
    const claim = claimOf({ merchantId: merchant.merchantId, payTo: refund.payer, refId: refund.refId, amount: refund.amount }, { payer: refund.payTo });
    expect((await payments.claimPayment(claim)).kind).toBe('not_payable');
    // The released amount can be reserved again.
    expect((await orders.createRefund(refundFor(order, '10000'))).kind).toBe('created');
  });

  it('refuses to reject a paid refund, one whose refund ref has a claimed payment, and another merchant’s or order’s refund', async () => {
    const fixed = fixture();
    const { orders, refs, merchants } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const paid = await createdRefund(orders, refundFor(order, '1000'));
    await payRefund(fixed, paid);
    const paidNow = await orders.getRefundByRef(paid.refId);
    expect(await orders.rejectRefund(rejectionOf(paid, 200_000))).toEqual({ kind: 'not_open', refund: paidNow });

    const inFlight = await createdRefund(orders, refundFor(order, '2000'));
    await claimOn(fixed, { merchantId: merchant.merchantId, payTo: inFlight.payer, refId: inFlight.refId, amount: '2000' }, { payer: inFlight.payTo });
    expect(await orders.rejectRefund(rejectionOf(inFlight))).toEqual({ kind: 'payment_in_flight', refund: inFlight });
    expect(await refs.getRef(inFlight.refId)).toMatchObject({ status: 'active', revokedAt: null });
    expect(await orders.getRefundByRef(inFlight.refId)).toEqual(inFlight);
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ refundReserved: '2000', refunded: '1000' });

    const open = await createdRefund(orders, refundFor(order, '500'));
    const other = await enrollMerchant(merchants);
    expect(await orders.rejectRefund({ ...rejectionOf(open), merchantId: other.merchantId })).toEqual({ kind: 'not_found' });
    const { order: otherOrder } = await paidOrder(fixed);
    expect(await orders.rejectRefund({ ...rejectionOf(open), orderId: otherOrder.id })).toEqual({ kind: 'not_found' });
    expect(await orders.rejectRefund({ ...rejectionOf(open), refundId: `rfd_${hexId()}` })).toEqual({ kind: 'not_found' });
    expect(await orders.getRefundByRef(open.refId)).toEqual(open);
  });

  it('reads an open intent past its expiry as expired, and releases it at the next write on its order, unless a payment of it is claimed', async () => {
    const fixed = fixture();
    const { orders, refs } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    // Created 60 s after the epoch, expiring 10 s later.
    const lapsed = await createdRefund(orders, refundFor(order, '4000', { expiresInMs: 10_000 }));
    const claimed = await createdRefund(orders, refundFor(order, '5000', { offsetMs: 61_000, expiresInMs: 9_000 }));
    await claimOn(fixed, { merchantId: merchant.merchantId, payTo: claimed.payer, refId: claimed.refId, amount: '5000' }, { payer: claimed.payTo });
    const ids = { merchantId: merchant.merchantId, orderId: order.id };
    expect(await orders.getRefund({ ...ids, refundId: lapsed.id, now: at(69_999) })).toMatchObject({ status: 'open' });
    expect(await orders.getRefund({ ...ids, refundId: lapsed.id, now: at(70_000) })).toEqual({ ...lapsed, status: 'expired' });
    expect((await orders.listRefunds({ ...ids, now: at(80_000) }))?.map((refund) => refund.status)).toEqual(['expired', 'open']);
    expect(await orders.getRefundByRef(lapsed.refId)).toMatchObject({ status: 'open' });

    // 1000 are free; releasing the lapsed intent frees 4000 more; the claimed one stays reserved.
    const next = await orders.createRefund(refundFor(order, '5000', { offsetMs: 90_000 }));
    expect(next).toMatchObject({ kind: 'created', order: { refundReserved: '10000' } });
    expect(await orders.getRefundByRef(lapsed.refId)).toEqual({ ...lapsed, status: 'expired', updatedAt: at(90_000) });
    expect(await refs.getRef(lapsed.refId)).toMatchObject({ status: 'revoked', revokedAt: at(90_000) });
    expect(await orders.getRefundByRef(claimed.refId)).toMatchObject({ status: 'open' });
    expect(await refs.getRef(claimed.refId)).toMatchObject({ status: 'active' });
  });

  it('answers not_open when rejecting an intent past its expiry, releasing it as expired', async () => {
    const fixed = fixture();
    const { orders } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const lapsed = await createdRefund(orders, refundFor(order, '4000', { expiresInMs: hour }));
    const outcome = await orders.rejectRefund(rejectionOf(lapsed, 60_000 + hour));
    expect(outcome).toEqual({ kind: 'not_open', refund: { ...lapsed, status: 'expired', updatedAt: at(60_000 + hour) } });
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ refundReserved: '0' });
  });
}
