import { notificationQueue, type NotificationJob } from '../gateway/notifications/notification-job';
import type { NewOrder, NewRefund, OrderRecord, RefundRecord } from '../gateway/store/order-records';
import type { OrderStore } from '../gateway/store/order-store';
import type { NewPaymentClaim, PaymentCompletion, PaymentRecord } from '../gateway/store/payment-records';
import { at, enrollMerchant, hexId, refFor, type EnrolledMerchant, type PaymentStoreConformanceFixture } from './gateway-stores-fixture';
import type { Job } from '../storage/jobs/job-queue';
import { claimFor, completionFor, held, jobsOf } from './payment-store-fixture';

// Helpers of the OrderStore suite's cases.

/** What the OrderStore suite opens: the order store under test with the other stores of its database. */
export interface OrderStoreConformanceFixture extends PaymentStoreConformanceFixture {
  readonly orders: OrderStore;
}

/** One hour in milliseconds: orders expire an hour after the epoch unless told otherwise. */
export const hour = 3_600_000;

/** A new order of `merchant` for `amount`, created `offsetMs` after the epoch, expiring an hour later. */
export function orderFor(
  merchant: Pick<EnrolledMerchant, 'merchantId' | 'payTo'>,
  overrides: { amount?: string; offsetMs?: number; expiresInMs?: number; invoiceId?: string | null; notifyUrl?: string | null; metadataJson?: string | null } = {},
): NewOrder {
  const now = at(overrides.offsetMs ?? 0);
  const ref = refFor(merchant, {
    id: `ref_${hexId()}`,
    amount: overrides.amount ?? '10000',
    invoiceId: overrides.invoiceId ?? null,
    label: 'Order ✓',
    notifyUrl: overrides.notifyUrl ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + (overrides.expiresInMs ?? hour)),
  });
  return { id: `ord_${hexId()}`, merchantId: merchant.merchantId, ref, description: 'Two coffees, one "flat white"', metadataJson: overrides.metadataJson ?? null, now };
}

/** Creates an order through the port; fails the test unless it is created. */
export async function createdOrder(orders: OrderStore, order: NewOrder): Promise<OrderRecord> {
  const outcome = await orders.createOrder(order);
  if (outcome.kind !== 'created') throw new Error(`expected the order to be created, got ${outcome.kind}`);
  return outcome.order;
}

/** A claim of a fresh payment of `target.refId` (a fresh payer unless given). */
export function claimOf(target: { merchantId: string; payTo: string; refId: string; amount: string }, overrides: Partial<NewPaymentClaim> = {}): NewPaymentClaim {
  const merchant = { merchantId: target.merchantId, payTo: target.payTo, apiKeyHash: '', apiKeyId: '', notifyKeyId: '' };
  return claimFor({ merchant, refId: target.refId }, { amount: target.amount, ...overrides });
}

/** Claims a payment of `target.refId`; fails the test unless claimed. */
export async function claimOn(
  fixture: Pick<OrderStoreConformanceFixture, 'payments'>,
  target: { merchantId: string; payTo: string; refId: string; amount: string },
  overrides: Partial<NewPaymentClaim> = {},
): Promise<PaymentRecord> {
  const outcome = await fixture.payments.claimPayment(claimOf(target, overrides));
  if (outcome.kind !== 'claimed') throw new Error(`expected a new claim, got ${outcome.kind}`);
  return held(outcome);
}

/** Claims and completes a payment of `order`'s ref; returns the payment and its completion. */
export async function payOrder(
  fixture: Pick<OrderStoreConformanceFixture, 'payments'>,
  order: OrderRecord,
  completionAt: Date = at(3_000),
): Promise<{ payment: PaymentRecord; completion: PaymentCompletion }> {
  const payment = await claimOn(fixture, { merchantId: order.merchantId, payTo: order.payTo, refId: order.refId, amount: order.amount });
  const completion = completionFor(payment, { now: completionAt });
  const done = await fixture.payments.completePayment(completion);
  if (done?.changed !== true) throw new Error('expected the payment to complete');
  return { payment: done.payment, completion };
}

/** An enrolled merchant with a paid order of `amount`. */
export async function paidOrder(fixture: OrderStoreConformanceFixture, amount = '10000'): Promise<{ merchant: EnrolledMerchant; order: OrderRecord }> {
  const merchant = await enrollMerchant(fixture.merchants);
  const created = await createdOrder(fixture.orders, orderFor(merchant, { amount, notifyUrl: 'https://hooks.example.com/orders', metadataJson: '{"sku":"A-1","qty":2}' }));
  await payOrder(fixture, created);
  const order = await fixture.orders.getOrder({ merchantId: merchant.merchantId, orderId: created.id });
  if (order?.status !== 'paid') throw new Error('expected the order to be paid');
  return { merchant, order };
}

/** A refund intent of `amount` on a paid `order`, created `offsetMs` after the epoch, expiring an hour later. */
export function refundFor(order: OrderRecord, amount: string, overrides: { offsetMs?: number; expiresInMs?: number; reason?: string | null } = {}): NewRefund {
  if (order.payer === null || order.receiptHash === null) throw new Error('refunds are made of paid orders');
  const now = at(overrides.offsetMs ?? 60_000);
  const ref = refFor(
    { merchantId: order.merchantId, payTo: order.payer },
    {
      id: `ref_${hexId()}`,
      amount,
      createdAt: now,
      expiresAt: new Date(now.getTime() + (overrides.expiresInMs ?? hour)),
    },
  );
  return {
    id: `rfd_${hexId()}`,
    merchantId: order.merchantId,
    orderId: order.id,
    amount,
    reason: overrides.reason === undefined ? 'damaged' : overrides.reason,
    ref: { ...ref, kind: 'refund', refundOf: `sha256:${order.receiptHash}`, refundFrom: order.payTo },
    now,
  };
}

/** Every notification job the stores enqueued so far, claimed off the queue (in run order). */
export async function drainNotifications(fixture: OrderStoreConformanceFixture): Promise<Job<NotificationJob>[]> {
  const jobs = jobsOf(fixture);
  const drained: Job<NotificationJob>[] = [];
  for (;;) {
    const job = await jobs.claim<NotificationJob>(notificationQueue, { leaseMs: 60_000 });
    if (job === null) return drained;
    drained.push(job);
  }
}

/** Claims and completes the payment of `refund`'s refund ref, paid by the order's payTo; returns the payment and its completion. */
export async function payRefund(
  fixture: Pick<OrderStoreConformanceFixture, 'payments'>,
  refund: RefundRecord,
  completionAt: Date = at(120_000),
): Promise<{ payment: PaymentRecord; completion: PaymentCompletion }> {
  const payment = await claimOn(fixture, { merchantId: refund.merchantId, payTo: refund.payer, refId: refund.refId, amount: refund.amount }, { payer: refund.payTo });
  const completion = completionFor(payment, { now: completionAt, notification: null });
  const done = await fixture.payments.completePayment(completion);
  if (done?.changed !== true) throw new Error('expected the refund payment to complete');
  return { payment: done.payment, completion };
}

/** Creates a refund intent through the port; fails the test unless it is created. */
export async function createdRefund(orders: OrderStore, refund: NewRefund): Promise<RefundRecord> {
  const outcome = await orders.createRefund(refund);
  if (outcome.kind !== 'created') throw new Error(`expected the refund to be created, got ${outcome.kind}`);
  return outcome.refund;
}
