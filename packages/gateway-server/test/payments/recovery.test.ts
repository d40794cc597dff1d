// No lost hashes: settlements whose facilitator answer is lost, late or ambiguous are finished from chain
// evidence (AuthorizationUsed + the Transfer to payTo) without a second settle call.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { notificationQueue, type PaymentReceipt } from '@tollgate/core';
import { decodePaymentResponseHeader } from '@tollgate/core/x402';
import { call, expectError, startTestGateway, type TestGateway } from '../helpers/gateway';
import { demoPayer, officialPaymentHeader, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
beforeAll(async () => {
  // The facilitator waits 500 ms for a receipt, then answers settlement_pending with the hash.
  stack = await startPaymentStack({ receiptTimeoutMs: 500 });
});
afterAll(() => stack?.stop());
beforeEach(() => {
  stack.resetCounts();
  stack.faults.beforeSettleResponse = undefined;
  stack.faults.onTransactionBroadcast = undefined;
});

const rpc = (method: string, params: unknown[] = []) => stack.chain.request({ method, params } as never);

async function paymentRow(gateway: TestGateway, refId: string) {
  const { rows } = await gateway.server.database.sql.query<{ payment_id: string; state: string; tx_hash: string | null; settle_started_at: Date | null; error_reason: string | null }>(
    'SELECT payment_id, state, tx_hash, settle_started_at, error_reason FROM gateway_payments WHERE ref_id = $1',
    [refId],
  );
  return rows[0];
}

async function notificationCount(gateway: TestGateway, paymentId: string): Promise<number> {
  const { rows } = await gateway.server.database.sql.query('SELECT id FROM tollgate_jobs WHERE queue = $1 AND idempotency_key = $2', [notificationQueue, `payment:${paymentId}`]);
  return rows.length;
}

function receiptOf(text: string): PaymentReceipt {
  return (JSON.parse(text) as { extensions: { 'offer-receipt': { receipt: PaymentReceipt } } }).extensions['offer-receipt'].receipt;
}

describe('a facilitator that loses the answer after broadcasting', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: '1500' }, { clock: new TestWallClock(), recoveryPollIntervalMs: 50 });
  });
  afterAll(() => gateway?.close());

  const pay = (path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });

  it('killed mid-settle (connection dropped after the transfer): the payment completes from chain evidence, settle is never called again', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    stack.faults.beforeSettleResponse = (_result, control) => control.dropConnection();
    const response = await pay(ref.path, header);
    expect(response.status, response.text).toBe(200);
    const receipt = receiptOf(response.text);
    const [transfer] = await transfersTo(stack, ref.merchant.payTo);
    expect(receipt).toMatchObject({ txHash: transfer?.transactionHash, amount: '10000', blockNumber: expect.stringMatching(/^[1-9][0-9]*$/) });
    expect((await pay(ref.path, header)).text).toBe(response.text);
    expect(stack.counts.settle).toBe(1);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    expect(await notificationCount(gateway, receipt.paymentId)).toBe(1);
  });

  it('hung after broadcasting: the gateway’s settle times out and chain evidence completes the payment', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    let release: () => void = () => undefined;
    stack.faults.onTransactionBroadcast = () => new Promise<void>((resolve) => (release = resolve));
    try {
      const started = performance.now();
      const response = await pay(ref.path, header);
      expect(response.status, response.text).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_400);
      expect(receiptOf(response.text).txHash).toBe((await transfersTo(stack, ref.merchant.payTo))[0]?.transactionHash);
      expect(stack.counts.settle).toBe(1);
    } finally {
      release();
    }
  });

  it('not mined yet: 202 settlement_pending with the hash; replays wait without settling again; the recovery job finishes it once mined', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    await rpc('evm_setAutomine', [false]);
    let hash: string | undefined;
    try {
      const pending = await pay(ref.path, header);
      const details = expectError(pending, 202, 'settlement_pending');
      hash = details['transaction'] as string;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(details['paymentId']).toBe((await paymentRow(gateway, ref.refId))?.payment_id);
      expect(pending.headers.get('retry-after')).toBe('5');
      expect(decodePaymentResponseHeader(pending.headers.get('payment-response') ?? undefined)).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: hash });
      expectError(await pay(ref.path, header), 202, 'settlement_pending');
      expect(await paymentRow(gateway, ref.refId)).toMatchObject({ state: 'pending', tx_hash: hash });
    } finally {
      await rpc('evm_mine');
      await rpc('evm_setAutomine', [true]);
    }
    // The recovery job retries with backoff on the gateway's clock.
    await vi.waitFor(
      async () => {
        gateway.clock.advance(3_000);
        expect((await paymentRow(gateway, ref.refId))?.state).toBe('settled');
      },
      { timeout: 10_000, interval: 100 },
    );
    const settled = await pay(ref.path, header);
    expect(settled.status, settled.text).toBe(200);
    expect(receiptOf(settled.text)).toMatchObject({ txHash: hash, blockNumber: expect.any(String) });
    expect(stack.counts.settle).toBe(1);
    expect(await notificationCount(gateway, receiptOf(settled.text).paymentId)).toBe(1);
  });
});

describe('an instance that stops answering mid-settle', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(stack.gatewayEnv, { clock: new TestWallClock(), recoveryPollIntervalMs: 50 });
  });
  afterAll(() => gateway?.close());

  it('is relieved by the sweep: once the lease ends, the claim turns pending and its recovery job finishes it from the chain', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    let release: () => void = () => undefined;
    stack.faults.onTransactionBroadcast = () => new Promise<void>((resolve) => (release = resolve));
    const stuck = call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    try {
      await vi.waitFor(async () => expect((await paymentRow(gateway, ref.refId))?.settle_started_at).toBeInstanceOf(Date), { timeout: 10_000, interval: 50 });
      // The claim's lease is verify (10 s) + settle (60 s) + 30 s: let it run out on the gateway's clock.
      gateway.clock.advance(101_000);
      // The recovery job retries with backoff on the gateway's clock: move it on while waiting, so a first
      // attempt that found no evidence yet (a loaded machine) is retried instead of waiting for ever.
      await vi.waitFor(
        async () => {
          gateway.clock.advance(3_000);
          expect((await paymentRow(gateway, ref.refId))?.state).toBe('settled');
        },
        { timeout: 20_000, interval: 100 },
      );
    } finally {
      release();
    }
    const original = await stuck;
    expect(original.status, original.text).toBe(200);
    expect((await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } })).text).toBe(original.text);
    expect(stack.counts.settle).toBe(1);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });
});

// Last: it moves the chain's time forward.
describe('an authorization that expires unused', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(stack.gatewayEnv, { clock: new TestWallClock(), recoveryPollIntervalMs: 50 });
  });
  afterAll(() => gateway?.close());

  it('fails the pending payment once the chain is past validBefore: 402 settlement_failed, nothing transferred', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    await rpc('evm_setAutomine', [false]);
    try {
      expectError(await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }), 202, 'settlement_pending');
      await rpc('anvil_dropAllTransactions');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    await rpc('evm_increaseTime', [400]);
    await rpc('evm_mine');
    await vi.waitFor(
      async () => {
        gateway.clock.advance(3_000);
        expect((await paymentRow(gateway, ref.refId))?.state).toBe('failed');
      },
      { timeout: 10_000, interval: 100 },
    );
    const failed = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    expect(expectError(failed, 402, 'settlement_failed')).toMatchObject({ reason: 'authorization_expired' });
    expect(decodePaymentResponseHeader(failed.headers.get('payment-response') ?? undefined)).toMatchObject({ success: false, errorReason: 'authorization_expired' });
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    expect(stack.counts.settle).toBe(1);
  });
});
