// Faults of the chain-evidence routes through the started gateway: an RPC node that accepts requests
// and never answers (blackhole), one that drops connections, and one that is gone (connection refused)
// must all give 503 rpc_unavailable with Retry-After within the RPC timeout, never a hang; per-client
// rate limits give 429 rate_limited with Retry-After, before the request is even validated.
import { ManualClock } from '@tollgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, type JsonResponse, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { headBlock, mine, payForReceipt, rpc, startEvidenceGateway, startRpcProxy, type PaidReceipt, type RpcProxy } from './helpers';
import { TestWallClock } from '../helpers/clock';

const rpcTimeoutMs = 1_000;
// Hang guard only: an answer must come within the RPC deadline plus generous slack for a busy machine.
const hangGuardMs = rpcTimeoutMs + 4_000;

let stack: PaymentStack;
let proxy: RpcProxy;
let gateway: TestGateway;
let paid: PaidReceipt;

beforeAll(async () => {
  stack = await startPaymentStack();
  proxy = await startRpcProxy(stack.anvil.rpcUrl);
  gateway = await startEvidenceGateway(stack, { GATEWAY_RPC_URLS: `local=${proxy.url}`, GATEWAY_RPC_TIMEOUT_MS: String(rpcTimeoutMs) }, { clock: new TestWallClock() });
  paid = await payForReceipt(gateway, stack);
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await stack?.stop();
});

/** The three evidence requests, each timed. */
function evidenceRequests(): [string, () => Promise<JsonResponse<unknown>>][] {
  return [
    ['GET /tx/:txHash', () => call(gateway.url, 'GET', `/tx/${paid.txHash}`)],
    ['GET /txs', () => call(gateway.url, 'GET', `/txs?pay_to=${paid.ref.merchant.payTo}`)],
    ['POST /verify-receipt', () => call(gateway.url, 'POST', '/verify-receipt', { json: { signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1 } })],
  ];
}

async function expectRpcUnavailable(name: string, send: () => Promise<JsonResponse<unknown>>): Promise<void> {
  const started = performance.now();
  const response = await send();
  const elapsed = performance.now() - started;
  expect(elapsed, `${name} answered after ${Math.round(elapsed)} ms`).toBeLessThan(hangGuardMs);
  expect(expectError(response, 503, 'rpc_unavailable'), name).toMatchObject({ operation: expect.stringMatching(/^eth_/), failure: expect.any(String) });
  expect(response.headers.get('retry-after'), name).toMatch(/^[1-9][0-9]*$/);
}

describe('RPC faults give rpc_unavailable within the RPC timeout', () => {
  it('answers normally while the node answers', async () => {
    for (const [name, send] of evidenceRequests()) expect((await send()).status, name).toBe(200);
  });

  it('a node that never answers (blackhole): timeout', async () => {
    proxy.mode = 'blackhole';
    try {
      for (const [name, send] of evidenceRequests()) {
        await expectRpcUnavailable(name, send);
      }
      // The failure is the deadline, not a transport error.
      const response = await call<{ error: { details: { failure: string } } }>(gateway.url, 'GET', `/tx/${paid.txHash}`);
      expect(response.body.error.details.failure).toBe('timeout');
    } finally {
      proxy.mode = 'forward';
    }
    // And the gateway recovers as soon as the node answers again.
    expect((await call(gateway.url, 'GET', `/tx/${paid.txHash}`)).status).toBe(200);
  });

  it('a node that drops every connection', async () => {
    proxy.mode = 'refuse';
    try {
      for (const [name, send] of evidenceRequests()) await expectRpcUnavailable(name, send);
    } finally {
      proxy.mode = 'forward';
    }
    expect((await call(gateway.url, 'GET', `/txs?pay_to=${paid.ref.merchant.payTo}`)).status).toBe(200);
  });

  it('a node still serving the receipt of a reorganised-away block: the payment is not reported mined', async () => {
    const fresh = await payForReceipt(gateway, stack);
    const staleReceipt = await rpc<{ blockNumber: string; blockHash: string }>(stack.anvil.rpcUrl, 'eth_getTransactionReceipt', [fresh.txHash]);
    const staleTx = await rpc(stack.anvil.rpcUrl, 'eth_getTransactionByHash', [fresh.txHash]);
    expect((await call(gateway.url, 'GET', `/tx/${fresh.txHash}`)).body).toMatchObject({ status: 'success', blockHash: staleReceipt.blockHash });
    await mine(stack, 1);
    await rpc(stack.anvil.rpcUrl, 'anvil_reorg', [(await headBlock(stack)) - Number(BigInt(staleReceipt.blockNumber)) + 1, []]);
    await mine(stack, 2);
    // The node lags: it still answers with the old receipt and transaction, while its block at that height is another.
    proxy.respond = (entry) =>
      (entry.method === 'eth_getTransactionReceipt' || entry.method === 'eth_getTransactionByHash') && String(entry.params[0]).toLowerCase() === fresh.txHash.toLowerCase()
        ? { result: entry.method === 'eth_getTransactionReceipt' ? staleReceipt : staleTx }
        : undefined;
    try {
      const status = await call<{ found: boolean; status: string; confirmations: number }>(gateway.url, 'GET', `/tx/${fresh.txHash}`);
      // Known to the node but in no canonical block: pending, never success.
      expect(status.body).toMatchObject({ status: 'pending', confirmations: 0, blockNumber: null });
      const verification = await call<{ verified: boolean; chain: { status: string; confirmed: boolean } }>(gateway.url, 'POST', '/verify-receipt', {
        json: { signedReceipt: fresh.signedReceipt, receipt: fresh.receipt, minConfirmations: 1 },
      });
      expect(verification.body).toMatchObject({ verified: false, chain: { status: 'pending', confirmed: false } });
    } finally {
      proxy.respond = undefined;
    }
  });

  it('a node that is gone (connection refused)', async () => {
    await proxy.close();
    for (const [name, send] of evidenceRequests()) await expectRpcUnavailable(name, send);
  });
});

describe('per-client rate limits of the evidence routes', () => {
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startEvidenceGateway(
      stack,
      { GATEWAY_RATE_LIMIT_TX: '2/60', GATEWAY_RATE_LIMIT_TXS: '2/60', GATEWAY_RATE_LIMIT_VERIFY_RECEIPT: '2/60' },
      { clock: new ManualClock(Date.now()) },
    );
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('refuses the third request in the window with 429 rate_limited and Retry-After, per route', async () => {
    // (This gateway has its own receipt key, so the other gateway's receipt is receipt_invalid: an answer all the same.)
    const routes: [string, number, () => Promise<JsonResponse<unknown>>][] = [
      ['GET /tx/:txHash', 200, () => call(limited.url, 'GET', `/tx/${paid.txHash}`)],
      ['GET /txs', 200, () => call(limited.url, 'GET', `/txs?pay_to=${paid.ref.merchant.payTo}`)],
      ['POST /verify-receipt', 422, () => call(limited.url, 'POST', '/verify-receipt', { json: { signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1 } })],
    ];
    for (const [name, status, send] of routes) {
      expect((await send()).status, name).toBe(status);
      expect((await send()).status, name).toBe(status);
      const refused = await send();
      expectError(refused, 429, 'rate_limited');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter, name).toBeGreaterThan(0);
      expect(retryAfter, name).toBeLessThanOrEqual(60);
    }
  });

  it('counts refused and malformed requests too: the limit comes before validation', async () => {
    const other = await startEvidenceGateway(stack, { GATEWAY_RATE_LIMIT_TX: '2/60' }, { clock: new ManualClock(Date.now()) });
    try {
      expectError(await call(other.url, 'GET', '/tx/0x1234'), 400, 'invalid_request');
      expectError(await call(other.url, 'GET', '/tx/nothex'), 400, 'invalid_request');
      expectError(await call(other.url, 'GET', `/tx/${paid.txHash}`), 429, 'rate_limited');
      // The other routes keep their own budgets.
      expect((await call(other.url, 'GET', `/txs?pay_to=${paid.ref.merchant.payTo}`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
