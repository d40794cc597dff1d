// The money-safety findings of the review and the attack pass, each replayed on a real anvil chain through
// the facilitator built on the official @x402/evm scheme: a payment executed at the facilitator before the
// gateway saw it, a facilitator that answers a hash-less failure after broadcasting, a recovery started
// long after mining (its RPC down when settle ran), and a facilitator that reports a settlement the chain
// does not hold. Before the fixes, the first answered 402 with the money on chain, the second recorded
// `failed` for a transfer that landed, the third stayed pending for ever, and the fourth signed a receipt.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { notificationQueue, type PaymentReceipt } from '@tollgate/core';
import { call, expectError, startTestGateway, type TestGateway } from '../helpers/gateway';
import { demoPayer, officialPaymentHeader, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
beforeAll(async () => {
  stack = await startPaymentStack();
});
afterAll(() => stack?.stop());
beforeEach(() => {
  stack.resetCounts();
  stack.faults.beforeSettleResponse = undefined;
  stack.faults.onTransactionBroadcast = undefined;
});

const rpc = (method: string, params: unknown[] = []) => stack.chain.request({ method, params } as never);

async function paymentRow(gateway: TestGateway, refId: string) {
  const { rows } = await gateway.server.database.sql.query<{ payment_id: string; state: string; tx_hash: string | null; receipt: string | null; error_reason: string | null }>(
    'SELECT payment_id, state, tx_hash, receipt, error_reason FROM gateway_payments WHERE ref_id = $1',
    [refId],
  );
  return rows[0];
}

async function notificationCount(gateway: TestGateway, paymentId: string): Promise<number> {
  const { rows } = await gateway.server.database.sql.query('SELECT id FROM tollgate_jobs WHERE queue = $1 AND idempotency_key = $2', [notificationQueue, `payment:${paymentId}`]);
  return rows.length;
}

const receiptOf = (text: string): PaymentReceipt => (JSON.parse(text) as { extensions: { 'offer-receipt': { receipt: PaymentReceipt } } }).extensions['offer-receipt'].receipt;

/**
 * A JSON-RPC relay in front of anvil that can be switched off (503), standing for an RPC provider that is
 * down while settle runs and back later.
 */
async function switchableRpc(target: string): Promise<{ url: string; up: boolean; close(): Promise<void> }> {
  const state = { up: true };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      if (!state.up) {
        response.writeHead(503).end();
        return;
      }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relay = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get up() {
      return state.up;
    },
    set up(value: boolean) {
      state.up = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return relay;
}

describe('on a gateway whose RPC works', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(stack.gatewayEnv, { clock: new TestWallClock(), recoveryPollIntervalMs: 50 });
  });
  afterAll(() => gateway?.close());
  const pay = (path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });

  it('answers a payment executed directly at the facilitator first as settled, with a receipt and a notification', async () => {
    const ref = await payableRef(gateway);
    const { header, payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    // The attack: whoever holds PAYMENT-SIGNATURE settles it at the facilitator before the gateway sees it.
    const direct = await fetch(`${stack.facilitator.url}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted }),
    });
    expect(((await direct.json()) as { success: boolean }).success).toBe(true);
    const [transfer] = await transfersTo(stack, ref.merchant.payTo);
    stack.resetCounts();

    const response = await pay(ref.path, header);
    expect(response.status, response.text).toBe(200);
    const receipt = receiptOf(response.text);
    expect(receipt).toMatchObject({ txHash: transfer?.transactionHash, amount: '10000', payTo: ref.merchant.payTo });
    expect(stack.counts).toEqual({ verify: 1, settle: 0 });
    expect(await notificationCount(gateway, receipt.paymentId)).toBe(1);
    expect((await pay(ref.path, header)).text).toBe(response.text);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });

  it('keeps a hash-less invalid_exact_evm_transaction_failed after broadcast pending, and settles it from the chain', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    // What the official scheme answers when sending throws after the node accepted the transaction.
    stack.faults.beforeSettleResponse = (result) => ({ ...result, success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '' });
    const response = await pay(ref.path, header);
    expect(response.status, response.text).toBe(200);
    const [transfer] = await transfersTo(stack, ref.merchant.payTo);
    expect(receiptOf(response.text).txHash).toBe(transfer?.transactionHash);
    expect(stack.counts.settle).toBe(1);
  });
});

describe('on a gateway whose RPC is down while settle runs', () => {
  let gateway: TestGateway;
  let relay: Awaited<ReturnType<typeof switchableRpc>>;
  beforeAll(async () => {
    relay = await switchableRpc(stack.anvil.rpcUrl);
    gateway = await startTestGateway(
      { ...stack.gatewayEnv, GATEWAY_RPC_URLS: `local=${relay.url}`, GATEWAY_RPC_TIMEOUT_MS: '1000', GATEWAY_EVIDENCE_SCAN_BLOCKS: '20', GATEWAY_MAX_BLOCK_SPAN: '10' },
      { clock: new TestWallClock(), recoveryPollIntervalMs: 50 },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await relay?.close();
  });

  it('finishes a recovery started long after mining, however many blocks came since', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    relay.up = false;
    stack.faults.beforeSettleResponse = (_result, control) => control.dropConnection();
    expectError(await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }), 202, 'settlement_pending');
    // 150 blocks later — more than seven times what one attempt reads here — the RPC is back: each attempt
    // continues where the previous one stopped, down to the first block after validAfter.
    await rpc('anvil_mine', ['0x96', '0x3']);
    relay.up = true;
    await vi.waitFor(
      async () => {
        gateway.clock.advance(3_000);
        expect((await paymentRow(gateway, ref.refId))?.state).toBe('settled');
      },
      { timeout: 30_000, interval: 100 },
    );
    const settled = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    expect(settled.status, settled.text).toBe(200);
    expect(receiptOf(settled.text).txHash).toBe((await transfersTo(stack, ref.merchant.payTo))[0]?.transactionHash);
    expect(stack.counts.settle).toBe(1);
  });
});
