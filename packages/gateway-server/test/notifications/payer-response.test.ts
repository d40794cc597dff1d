// A settlement's notification never holds up the payer: the merchant's receiver here reads the request
// and never answers, yet the payer gets the receipt, and the receiver then holds a correctly signed
// notification for exactly that receipt. No timing assertion is needed: the payer's answer came back
// while the receiver was still (and forever) silent. (Whether the notification reached the receiver
// before or after the payer's answer depends on the worker's poll and does not matter.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyNotification } from '@tollgate/core';
import { receiptHash, type PaymentSettledNotification } from '@tollgate/core/x402';
import { createNodeNotificationTransport } from '@tollgate/core/node';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { decodeHeader, fundedPayer, officialFetch, payableRef, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { startReceiver, type Receiver } from '../../../core/test/support/notification-receivers';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startPaymentStack();
  receiver = await startReceiver({ answers: ['hang'] });
  // The ref's notifyUrl is a public HTTPS URL (as refs require); the test transport carries the request to
  // the loopback receiver instead of the internet.
  const loopback = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
  gateway = await startTestGateway(stack.gatewayEnv, {
    // Payer authorizations are signed against the chain's clock, so the gateway runs on real time.
    clock: new TestWallClock(),
    notifications: { pollIntervalMs: 50, transport: { post: (_url, request) => loopback.post(new URL(receiver.url), request) } },
  });
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.close();
  await stack?.stop();
});

describe('merchant notifications and the payer', () => {
  it('answers the payer with the receipt while the merchant receiver hangs, then delivers a signed notification', async () => {
    const ref = await payableRef(gateway, { extra: { notifyUrl: 'https://hooks.example.com/tollgate' } });
    const payer = await fundedPayer(stack, 1_000_000n);
    const response = await officialFetch(stack, payer)(`${gateway.url}${ref.path}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { extensions: { 'offer-receipt': { receipt: PaymentSettledNotification['data']['receipt']; signedReceipt: string } } };
    const { receipt, signedReceipt } = body.extensions['offer-receipt'];
    expect(decodeHeader(response.headers.get('payment-response'))).toMatchObject({ success: true });

    const [delivered] = await receiver.received(1);
    // The receiver holds the notification and has answered nothing: the payer's 200 never waited for it.
    expect(receiver.answered).toBe(0);
    const headers = delivered!.headers;
    const verified = verifyNotification({
      body: delivered!.body,
      headers: { 'tollgate-signature': String(headers['tollgate-signature']), 'tollgate-timestamp': String(headers['tollgate-timestamp']) },
      keys: { [ref.merchant.notifyHmacKeyId]: ref.merchant.notifyHmacKey },
      now: Math.floor(gateway.clock.now() / 1000),
    });
    expect(verified.keyId).toBe(ref.merchant.notifyHmacKeyId);
    const notification = JSON.parse(delivered!.body) as PaymentSettledNotification;
    expect(notification).toMatchObject({ event: 'payment.settled', data: { refId: ref.refId, receipt, signedReceipt, receiptHash: receiptHash(receipt) } });
    expect(headers['idempotency-key']).toBe(notification.id);
  });
});
