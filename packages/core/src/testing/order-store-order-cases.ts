import { expect, it } from 'vitest';
import type { OrderRecord, OrderStatus } from '../gateway/store/order-records';
import { at, enrollMerchant, freshAddress, hexId } from './gateway-stores-fixture';
import { claimOf, claimOn, createdOrder, hour, orderFor, payOrder, type OrderStoreConformanceFixture } from './order-store-fixture';
import { failedAnswer } from './payment-store-fixture';

/** Registers the order cases of the OrderStore suite (creation, reads, listing, cancellation). */
export function defineOrderCases(fixture: () => OrderStoreConformanceFixture): void {
  it('creates an order with its fixed-amount payment ref in one step, readable by its merchant only', async () => {
    const { merchants, orders, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const order = orderFor(merchant, { amount: '9'.repeat(78), invoiceId: 'INV-1', notifyUrl: 'https://hooks.example.com/o', metadataJson: '{"b":1,"a":"é"}' });
    const outcome = await orders.createOrder(order);
    const expected: OrderRecord = {
      id: order.id,
      merchantId: merchant.merchantId,
      refId: order.ref.id,
      payTo: merchant.payTo,
      network: 'base',
      asset: 'USDC',
      amount: '9'.repeat(78),
      invoiceId: 'INV-1',
      label: 'Order ✓',
      description: order.description,
      metadataJson: '{"b":1,"a":"é"}',
      notifyUrl: 'https://hooks.example.com/o',
      status: 'unpaid',
      paymentId: null,
      payer: null,
      txHash: null,
      receiptHash: null,
      refundReserved: '0',
      refunded: '0',
      createdAt: order.now,
      expiresAt: order.ref.expiresAt,
      paidAt: null,
      cancelledAt: null,
      updatedAt: order.now,
    };
    expect(outcome).toEqual({ kind: 'created', order: expected });
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: order.id })).toEqual(expected);
    expect(await orders.getOrder({ merchantId: other.merchantId, orderId: order.id })).toBeUndefined();
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: `ord_${hexId()}` })).toBeUndefined();
    expect(await refs.getRef(order.ref.id)).toEqual({ ...order.ref, kind: 'payment', refundOf: null, refundFrom: null, status: 'active', revokedAt: null });
  });

  it('refuses an order on a payTo the merchant does not own or retired, or with a taken invoice id, creating nothing', async () => {
    const { merchants, orders, refs } = fixture();
    const owner = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const attempts = [
      [orderFor({ merchantId: other.merchantId, payTo: owner.payTo }), { kind: 'payto_not_found' }],
      [orderFor({ merchantId: owner.merchantId, payTo: freshAddress() }), { kind: 'payto_not_found' }],
    ] as const;
    for (const [order, refusal] of attempts) {
      expect(await orders.createOrder(order)).toEqual(refusal);
      expect(await refs.getRef(order.ref.id)).toBeUndefined();
    }
    const first = await createdOrder(orders, orderFor(owner, { invoiceId: 'INV-9' }));
    const taken = orderFor(owner, { invoiceId: 'INV-9' });
    expect(await orders.createOrder(taken)).toEqual({ kind: 'invoice_taken', refId: first.refId });
    expect(await orders.getOrder({ merchantId: owner.merchantId, orderId: taken.id })).toBeUndefined();
    expect(await refs.getRef(taken.ref.id)).toBeUndefined();
    await merchants.retirePayTo({ merchantId: owner.merchantId, address: owner.payTo, now: at(1_000) });
    const retired = orderFor(owner);
    expect(await orders.createOrder(retired)).toEqual({ kind: 'payto_retired' });
    expect(await orders.getOrder({ merchantId: owner.merchantId, orderId: retired.id })).toBeUndefined();
  });

  it('lists one merchant’s orders newest first in keyset pages, splitting unpaid from expired at `now`', async () => {
    const fixed = fixture();
    const { merchants, orders } = fixed;
    const merchant = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const seconds = [5, 1, 3, 3, 3, 2, 4, 6];
    const created: OrderRecord[] = [];
    for (const [index, second] of seconds.entries()) {
      // Orders 0 and 1 expire after 10 s, the others after an hour.
      created.push(await createdOrder(orders, orderFor(merchant, { offsetMs: second * 1_000, expiresInMs: index < 2 ? 10_000 : hour })));
    }
    await createdOrder(orders, orderFor(other));
    const [expiring, expiringToo, paid, cancelled] = created as [OrderRecord, OrderRecord, OrderRecord, OrderRecord];
    await payOrder(fixed, paid);
    expect((await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: cancelled.id, now: at(9_000) })).kind).toBe('cancelled');
    const newestFirst = (list: readonly OrderRecord[]) =>
      [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((order) => order.id);
    const now = at(60_000);
    const ids = async (status?: OrderStatus, limit = 100) =>
      (await orders.listOrders({ merchantId: merchant.merchantId, now, limit, ...(status === undefined ? {} : { status }) })).map((order) => order.id);
    expect(await ids()).toEqual(newestFirst(created));
    expect(await ids('expired')).toEqual(newestFirst([expiring, expiringToo]));
    expect(await ids('unpaid')).toEqual(newestFirst(created.filter((order) => ![expiring, expiringToo, paid, cancelled].includes(order))));
    expect(await ids('paid')).toEqual([paid.id]);
    expect(await ids('cancelled')).toEqual([cancelled.id]);
    expect(await ids('refunded')).toEqual([]);
    const early = await orders.listOrders({ merchantId: merchant.merchantId, now: at(0), limit: 100, status: 'unpaid' });
    expect(early.map((order) => order.id)).toEqual(newestFirst(created.filter((order) => ![paid, cancelled].includes(order))));

    const pages: string[] = [];
    let before: { createdAt: Date; orderId: string } | undefined;
    for (;;) {
      const page = await orders.listOrders({ merchantId: merchant.merchantId, now, limit: 3, ...(before ? { before } : {}) });
      pages.push(...page.map((order) => order.id));
      const last = page[page.length - 1];
      if (page.length < 3 || last === undefined) break;
      before = { createdAt: last.createdAt, orderId: last.id };
    }
    expect(pages).toEqual(newestFirst(created));
    const unpaidPage = await orders.listOrders({ merchantId: merchant.merchantId, now, limit: 2, status: 'unpaid' });
    const next = await orders.listOrders({
      merchantId: merchant.merchantId,
      now,
      limit: 100,
      status: 'unpaid',
      before: { createdAt: (unpaidPage[1] as OrderRecord).createdAt, orderId: (unpaidPage[1] as OrderRecord).id },
    });
    expect([...unpaidPage, ...next].map((order) => order.id)).toEqual(await ids('unpaid'));
  });

  it('cancels an unpaid order and revokes its ref; cancelling again answers the same record', async () => {
    const fixed = fixture();
    const { merchants, orders, refs, payments } = fixed;
    const merchant = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const order = await createdOrder(orders, orderFor(merchant));
    expect(await orders.cancelOrder({ merchantId: other.merchantId, orderId: order.id, now: at(1_000) })).toEqual({ kind: 'not_found' });
    const cancelled = await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: order.id, now: at(2_000) });
    expect(cancelled).toEqual({ kind: 'cancelled', order: { ...order, status: 'cancelled', cancelledAt: at(2_000), updatedAt: at(2_000) } });
    expect(await refs.getRef(order.refId)).toMatchObject({ status: 'revoked', revokedAt: at(2_000) });
    const again = await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: order.id, now: at(5_000) });
    expect(again).toEqual({ kind: 'already_cancelled', order: cancelled.kind === 'cancelled' ? cancelled.order : undefined });
    expect((await payments.claimPayment(claimOf(order))).kind).toBe('not_payable');
  });

  it('refuses to cancel a paid or expired order, and an order whose ref has a claimed payment', async () => {
    const fixed = fixture();
    const { merchants, orders, refs, payments } = fixed;
    const merchant = await enrollMerchant(merchants);
    const paid = await createdOrder(orders, orderFor(merchant));
    await payOrder(fixed, paid);
    const paidNow = await orders.getOrder({ merchantId: merchant.merchantId, orderId: paid.id });
    expect(await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: paid.id, now: at(5_000) })).toEqual({ kind: 'not_cancellable', order: paidNow });

    const expiring = await createdOrder(orders, orderFor(merchant, { expiresInMs: 10_000 }));
    expect(await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: expiring.id, now: at(10_000) })).toEqual({ kind: 'not_cancellable', order: expiring });

    const inFlight = await createdOrder(orders, orderFor(merchant));
    const claimed = await claimOn(fixed, { merchantId: merchant.merchantId, payTo: merchant.payTo, refId: inFlight.refId, amount: inFlight.amount });
    expect(await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: inFlight.id, now: at(5_000) })).toEqual({ kind: 'payment_in_flight', order: inFlight });
    // Refused without a trace: the ref is still active, so the claimed payment can finish.
    expect(await refs.getRef(inFlight.refId)).toMatchObject({ status: 'active', revokedAt: null });
    expect(await orders.getOrder({ merchantId: merchant.merchantId, orderId: inFlight.id })).toEqual(inFlight);
    // A payment that failed for good is no longer in flight.
    await payments.failPayment({ paymentId: claimed.paymentId, errorReason: 'invalid_signature', txHash: null, answer: failedAnswer, now: at(6_000) });
    expect((await orders.cancelOrder({ merchantId: merchant.merchantId, orderId: inFlight.id, now: at(7_000) })).kind).toBe('cancelled');
  });
}
