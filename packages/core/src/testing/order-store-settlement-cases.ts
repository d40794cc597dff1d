import { expect, it } from 'vitest';
import { orderNotificationJob, paymentNotificationJob } from '../gateway/notifications/notification-job';
import { orderNotificationId } from '../x402/notifications/order-payloads';
import { at, enrollMerchant, refFor } from './gateway-stores-fixture';
import {
  claimOf,
  claimOn,
  createdOrder,
  createdRefund,
  drainNotifications,
  orderFor,
  paidOrder,
  payOrder,
  payRefund,
  refundFor,
  type OrderStoreConformanceFixture,
} from './order-store-fixture';
import { rejectionOf } from './order-store-refund-cases';
import { completionFor, failedAnswer } from './payment-store-fixture';

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

/** Registers the settlement cases of the OrderStore suite: effects of `PaymentStore.completePayment`, notifications, one payment per ref. */
export function defineSettlementCases(fixture: () => OrderStoreConformanceFixture): void {
  it('makes an order paid when its payment completes, enqueuing payment.settled and order.paid once', async () => {
    const fixed = fixture();
    const { orders, payments, merchants } = fixed;
    const merchant = await enrollMerchant(merchants);
    const order = await createdOrder(orders, orderFor(merchant, { invoiceId: 'INV-42', notifyUrl: 'https://hooks.example.com/o', metadataJson: '{"sku":"A-1","qty":2}' }));
    const { payment, completion } = await payOrder(fixed, order, at(3_000));
    const paid = await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id });
    expect(paid).toEqual({
      ...order,
      status: 'paid',
      paymentId: payment.paymentId,
      payer: payment.payer,
      txHash: completion.txHash,
      receiptHash: completion.receiptHash,
      paidAt: at(3_000),
      updatedAt: at(3_000),
    });
    expect((await payments.completePayment(completionFor(payment, { now: at(9_000) })))?.changed).toBe(false);
    const jobs = await drainNotifications(fixed);
    expect(jobs.map((job) => job.idempotencyKey).sort()).toEqual([paymentNotificationJob(payment.paymentId).idempotencyKey, `order-paid:${order.id}`].sort());
    const job = jobs.find((candidate) => candidate.idempotencyKey === `order-paid:${order.id}`);
    expect(job).toMatchObject({ runAt: at(3_000), maxAttempts: orderNotificationJob('order.paid', order.id).maxAttempts });
    expect(job?.payload).toEqual({
      merchantId: merchant.merchantId,
      refId: order.refId,
      url: 'https://hooks.example.com/o',
      notification: {
        event: 'order.paid',
        id: orderNotificationId('order.paid', order.id),
        createdAt: unix(at(3_000)),
        data: {
          orderId: order.id,
          refId: order.refId,
          paymentId: payment.paymentId,
          invoiceId: 'INV-42',
          amount: '10000',
          payer: payment.payer,
          payTo: merchant.payTo,
          network: 'base',
          txHash: completion.txHash,
          receiptHash: completion.receiptHash,
          receipt: JSON.parse(completion.receiptJson),
          signedReceipt: completion.signedReceipt,
          metadata: { sku: 'A-1', qty: 2 },
        },
      },
    });
  });

  it('makes an order paid even when its payment completes after the order expired (the chain is the truth)', async () => {
    const fixed = fixture();
    const { orders, merchants } = fixed;
    const merchant = await enrollMerchant(merchants);
    const order = await createdOrder(orders, orderFor(merchant, { expiresInMs: 10_000 }));
    await payOrder(fixed, order, at(60_000));
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toMatchObject({ status: 'paid', paidAt: at(60_000) });
    const [job] = (await drainNotifications(fixed)).filter((candidate) => candidate.idempotencyKey === `order-paid:${order.id}`);
    expect(job?.payload).toMatchObject({ url: null, notification: { data: { orderId: order.id } } });
    expect(job?.payload.notification.data).not.toHaveProperty('invoiceId');
    expect(job?.payload.notification.data).not.toHaveProperty('metadata');
  });

  it('enqueues order.refunded with what was refunded and what remains, and refund.rejected with the stored receipt', async () => {
    const fixed = fixture();
    const { orders } = fixed;
    const { merchant, order } = await paidOrder(fixed);
    await drainNotifications(fixed);
    const refund = await createdRefund(orders, refundFor(order, '4000'));
    await createdRefund(orders, refundFor(order, '1000'));
    const { payment, completion } = await payRefund(fixed, refund, at(120_000));
    const refunded = await drainNotifications(fixed);
    // A refund payment completed without a payment.settled notification enqueues only order.refunded.
    expect(refunded.map((job) => job.idempotencyKey)).toEqual([`order-refunded:${refund.id}`]);
    expect(refunded[0]?.payload).toEqual({
      merchantId: merchant.merchantId,
      refId: refund.refId,
      url: 'https://hooks.example.com/orders',
      notification: {
        event: 'order.refunded',
        id: orderNotificationId('order.refunded', refund.id),
        createdAt: unix(at(120_000)),
        data: {
          orderId: order.id,
          refId: refund.refId,
          paymentId: payment.paymentId,
          amount: '4000',
          payer: order.payer,
          payTo: order.payTo,
          network: 'base',
          txHash: completion.txHash,
          receiptHash: completion.receiptHash,
          receipt: JSON.parse(completion.receiptJson),
          signedReceipt: completion.signedReceipt,
          metadata: { sku: 'A-1', qty: 2 },
          refundId: refund.id,
          refunded: '4000',
          remaining: '5000',
          status: 'partially_refunded',
        },
      },
    });

    const rejected = await createdRefund(orders, refundFor(order, '2000'));
    const rejection = rejectionOf(rejected, 150_000, null);
    expect((await orders.rejectRefund(rejection)).kind).toBe('rejected');
    expect((await orders.rejectRefund(rejection)).kind).toBe('already_rejected');
    const jobs = await drainNotifications(fixed);
    expect(jobs.map((job) => job.idempotencyKey)).toEqual([`refund-rejected:${rejected.id}`]);
    expect(jobs[0]?.runAt).toEqual(at(150_000));
    expect(jobs[0]?.payload).toEqual({
      merchantId: merchant.merchantId,
      refId: rejected.refId,
      url: 'https://hooks.example.com/orders',
      notification: {
        event: 'refund.rejected',
        id: orderNotificationId('refund.rejected', rejected.id),
        createdAt: unix(at(150_000)),
        data: {
          orderId: order.id,
          refundId: rejected.id,
          refId: rejected.refId,
          amount: '2000',
          payer: order.payer,
          payTo: order.payTo,
          network: 'base',
          reason: null,
          receipt: JSON.parse(rejection.receiptJson),
          signedReceipt: rejection.signedReceipt,
          metadata: { sku: 'A-1', qty: 2 },
        },
      },
    });
  });

  it('lets an order ref or a refund ref take one payment at a time; a failed payment frees it, other refs take many', async () => {
    const fixed = fixture();
    const { orders, payments, merchants, refs } = fixed;
    const merchant = await enrollMerchant(merchants);
    const order = await createdOrder(orders, orderFor(merchant));
    const target = { merchantId: merchant.merchantId, payTo: merchant.payTo, refId: order.refId, amount: order.amount };
    const first = await claimOn(fixed, target);
    expect(await payments.claimPayment(claimOf(target))).toEqual({ kind: 'ref_used', holder: first });
    // The first payment's own replay still finds it.
    expect(await payments.claimPayment({ ...claimOf(target), paymentId: first.paymentId })).toMatchObject({ kind: 'existing', payment: { paymentId: first.paymentId } });
    await payments.failPayment({ paymentId: first.paymentId, errorReason: 'invalid_signature', txHash: null, answer: failedAnswer, now: at(4_000) });
    const second = await claimOn(fixed, target);
    await payments.completePayment(completionFor(second));
    expect(await payments.claimPayment(claimOf(target))).toMatchObject({ kind: 'ref_used', holder: { paymentId: second.paymentId, state: 'settled' } });

    const { order: paid } = await paidOrder(fixed);
    const refund = await createdRefund(orders, refundFor(paid, '100'));
    const refundTarget = { merchantId: refund.merchantId, payTo: refund.payer, refId: refund.refId, amount: '100' };
    const holder = await claimOn(fixed, refundTarget, { payer: refund.payTo });
    expect(await payments.claimPayment(claimOf(refundTarget, { payer: refund.payTo }))).toEqual({ kind: 'ref_used', holder });

    const plain = refFor(merchant);
    await refs.createRef(plain);
    const plainTarget = { ...target, refId: plain.id, amount: '10000' };
    await claimOn(fixed, plainTarget);
    expect((await payments.claimPayment(claimOf(plainTarget))).kind).toBe('claimed');
  });

  it('keeps order metadata a JSON object, and the order’s sums within its amount even against a raw UPDATE', async (context) => {
    const fixed = fixture();
    const { orders, merchants } = fixed;
    const merchant = await enrollMerchant(merchants);
    await expect(orders.createOrder(orderFor(merchant, { metadataJson: '[1,2]' }))).rejects.toThrow();
    const { order } = await paidOrder(fixed);
    await createdRefund(orders, refundFor(order, '6000'));
    if (fixed.sql === undefined) return context.skip('the table check is read through the fixture’s `sql` (SQL stores only)');
    for (const change of ['refunded = 4001', 'refund_reserved = 10001', 'refunded = amount + 1', 'refund_reserved = -1']) {
      await expect(fixed.sql.query(`UPDATE gateway_orders SET ${change} WHERE id = $1`, [order.id])).rejects.toMatchObject({ constraint: 'gateway_orders_refund_sum_check' });
    }
    await fixed.sql.query('UPDATE gateway_orders SET refunded = 4000 WHERE id = $1', [order.id]);
    expect(await orders.getOrder({ merchantId: order.merchantId, orderId: order.id })).toMatchObject({ refunded: '4000', refundReserved: '6000' });
  });
}
