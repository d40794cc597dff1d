import { expect } from 'vitest';
import { at, enrollMerchant } from './gateway-stores-fixture';
import {
  claimOf,
  createdOrder,
  createdRefund,
  drainNotifications,
  orderFor,
  paidOrder,
  refundFor,
  type OrderStoreConformanceFixture,
} from './order-store-fixture';
import { rejectionOf } from './order-store-refund-cases';
import { completionFor, held } from './payment-store-fixture';
import { raceCase } from './race-case';

/** Registers the race cases of the OrderStore suite (skipped on a single-connection fixture). */
export function defineOrderRaceCases(fixture: () => OrderStoreConformanceFixture): void {
  raceCase('lets exactly as many of 20 parallel refund intents through as the order can pay back', fixture, async () => {
    const fixed = fixture();
    const { orders } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => orders.createRefund(refundFor(order, '700', { offsetMs: 60_000 + n }))));
    // 14 × 700 = 9800 ≤ 10000 < 15 × 700.
    expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(14);
    expect(outcomes.filter((outcome) => outcome.kind === 'exceeds_remaining')).toHaveLength(6);
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ refundReserved: '9800', refunded: '0' });
    expect(await orders.listRefunds({ merchantId: merchant.merchantId, orderId: order.id, now: at(90_000) })).toHaveLength(14);
  });

  raceCase('never lets both a cancellation and a payment claim of the order through', fixture, async () => {
    const fixed = fixture();
    const { orders, payments, merchants, refs } = fixed;
    const merchant = await enrollMerchant(merchants);
    for (let round = 0; round < 12; round++) {
      const order = await createdOrder(orders, orderFor(merchant));
      const claim = claimOf({ merchantId: merchant.merchantId, payTo: merchant.payTo, refId: order.refId, amount: order.amount });
      const [cancelled, claimed] = await Promise.all([
        orders.cancelOrder({ merchantId: merchant.merchantId, orderId: order.id, now: at(1_000) }),
        payments.claimPayment(claim),
      ]);
      // Exactly one wins: a refused cancellation saw the claim, a refused claim found the ref revoked.
      if (cancelled.kind === 'cancelled') expect(claimed.kind).toBe('not_payable');
      else expect([cancelled.kind, claimed.kind]).toEqual(['payment_in_flight', 'claimed']);
      expect((await refs.getRef(order.refId))?.status).toBe(cancelled.kind === 'cancelled' ? 'revoked' : 'active');
    }
  });

  raceCase('never lets both a rejection and a payment claim of the refund through', fixture, async () => {
    const fixed = fixture();
    const { orders, payments } = fixed;
    const { order } = await paidOrder(fixed, '1000000');
    for (let round = 0; round < 12; round++) {
      const refund = await createdRefund(orders, refundFor(order, '100', { offsetMs: 60_000 + round }));
      const claim = claimOf({ merchantId: refund.merchantId, payTo: refund.payer, refId: refund.refId, amount: '100' }, { payer: refund.payTo });
      const [rejected, claimed] = await Promise.all([orders.rejectRefund(rejectionOf(refund)), payments.claimPayment(claim)]);
      if (rejected.kind === 'rejected') expect(claimed.kind).toBe('not_payable');
      else expect([rejected.kind, claimed.kind]).toEqual(['payment_in_flight', 'claimed']);
    }
  });

  raceCase('applies a refund payment once when its completion runs twice at the same time', fixture, async () => {
    const fixed = fixture();
    const { orders, payments } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    const refund = await createdRefund(orders, refundFor(order, '2500'));
    const claim = claimOf({ merchantId: refund.merchantId, payTo: refund.payer, refId: refund.refId, amount: '2500' }, { payer: refund.payTo });
    const payment = held(await payments.claimPayment(claim));
    await drainNotifications(fixed);
    const results = await Promise.all(Array.from({ length: 2 }, () => payments.completePayment(completionFor(payment, { notification: null, now: at(120_000) }))));
    expect(results.filter((result) => result?.changed)).toHaveLength(1);
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ refunded: '2500', refundReserved: '0', status: 'partially_refunded' });
    expect((await drainNotifications(fixed)).map((job) => job.idempotencyKey)).toEqual([`order-refunded:${refund.id}`]);
  });

  raceCase('lets exactly one of 20 parallel payments of one refund ref be claimed', fixture, async () => {
    const fixed = fixture();
    const { orders, payments } = fixed;
    const { order } = await paidOrder(fixed);
    const refund = await createdRefund(orders, refundFor(order, '5000'));
    const target = { merchantId: refund.merchantId, payTo: refund.payer, refId: refund.refId, amount: '5000' };
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => payments.claimPayment(claimOf(target, { payer: refund.payTo }))));
    const claimed = outcomes.filter((outcome) => outcome.kind === 'claimed');
    expect(claimed).toHaveLength(1);
    const winner = claimed[0]?.kind === 'claimed' ? claimed[0].payment.paymentId : undefined;
    expect(outcomes.filter((outcome) => outcome.kind === 'ref_used' && outcome.holder.paymentId === winner)).toHaveLength(19);
  });
}
