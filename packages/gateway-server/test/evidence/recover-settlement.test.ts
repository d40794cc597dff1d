// POST /recover-settlement through the real gateway server on a real anvil chain and facilitator: a lost
// answer comes back byte for byte, never from a second settle (the facilitator counts its /settle
// calls); unsettled and expired payloads say so; another ref's payload is refused; a payment executed on
// chain by someone else is found (hint, fromBlock, search) and recorded with its receipt. The gateway
// reads the chain through a recording RPC proxy, so the tests see which reads a hint saves.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { decodeHeader, demoPayer, encodePayment, officialPaymentHeader, payableRef, signPayment, startPaymentStack, tokenOf, transfersTo, type PaymentStack } from '../helpers/payments';
import { answerBytes, executeAuthorization, recover, requirementsOf } from '../helpers/recovery-app';
import { mine, rpc, startEvidenceGateway, startRpcProxy, type RpcProxy } from './helpers';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let proxy: RpcProxy;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  proxy = await startRpcProxy(stack.anvil.rpcUrl);
  // Small log spans and search budget: an old transfer is out of a default search's reach within a few blocks.
  gateway = await startEvidenceGateway(
    stack,
    { GATEWAY_RPC_URLS: `local=${proxy.url}`, GATEWAY_MAX_BLOCK_SPAN: '10', GATEWAY_EVIDENCE_SCAN_BLOCKS: '30' },
    { clock: new TestWallClock() },
  );
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await stack?.stop();
});
beforeEach(() => stack.resetCounts());

const pay = (path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });
const paymentsOf = async (refId: string) =>
  (await gateway.server.database.sql.query<{ state: string }>('SELECT state FROM gateway_payments WHERE ref_id = $1', [refId])).rows.map((row) => row.state);
const methodsSince = (mark: number) => proxy.calls.slice(mark).map((entry) => entry.method);

describe('a settlement whose answer was lost', () => {
  it('returns the very bytes /receive gave (header string or decoded object), three times, with no settle call', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const original = answerBytes(await pay(ref.path, header));
    expect(original.status, original.body).toBe(200);
    stack.resetCounts();
    for (const paymentPayload of [header, decodeHeader(header), header]) {
      const recovered = await recover(gateway.url, { refId: ref.refId, paymentPayload });
      expect(answerBytes(recovered)).toEqual(original);
    }
    expect(decodeHeader(original.paymentResponse)).toEqual(JSON.parse(original.body));
    expect(stack.counts.settle).toBe(0);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });

  it('recovers after the payer aborted mid-settlement, identical to what /receive replays, with no settle during recovery', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const controller = new AbortController();
    // The facilitator has settled on chain; the payer's connection drops before the gateway answers.
    stack.faults.beforeSettleResponse = () => controller.abort();
    try {
      await expect(fetch(`${gateway.url}${ref.path}`, { headers: { 'payment-signature': header }, signal: controller.signal })).rejects.toThrow();
    } finally {
      stack.faults.beforeSettleResponse = undefined;
    }
    expect(stack.counts.settle).toBe(1);
    stack.resetCounts();
    let recovered: ReturnType<typeof answerBytes> | undefined;
    // The gateway may still be confirming the transfer: until then recovery says 202 settlement_pending.
    await vi.waitFor(
      async () => {
        const response = await recover(gateway.url, { refId: ref.refId, paymentPayload: header });
        expect([200, 202], response.text).toContain(response.status);
        if (response.status === 202) expect(expectError(response, 202, 'settlement_pending')).toMatchObject({ paymentId: expect.any(String) });
        expect(response.status).toBe(200);
        recovered = answerBytes(response);
      },
      { timeout: 15_000, interval: 100 },
    );
    const replayed = answerBytes(await pay(ref.path, header));
    expect(recovered).toEqual(replayed);
    expect(answerBytes(await recover(gateway.url, { refId: ref.refId, paymentPayload: header }))).toEqual(replayed);
    expect(stack.counts.settle).toBe(0);
    const [transfer] = await transfersTo(stack, ref.merchant.payTo);
    expect(JSON.parse(replayed.body)).toMatchObject({ success: true, transaction: transfer?.transactionHash });
  });
});

describe('a payload that was never settled', () => {
  it('says not settled (404, settled false, retryable), settles nothing; after /receive settles it, recovery returns its answer', async () => {
    const ref = await payableRef(gateway);
    const { header, payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const details = expectError(await recover(gateway.url, { refId: ref.refId, paymentPayload: header }), 404, 'not_found');
      expect(details).toEqual({
        settled: false,
        reason: 'not_yet_on_chain',
        retryable: true,
        paymentId: expect.any(String),
        validBefore: (payload.payload as { authorization: { validBefore: string } }).authorization.validBefore,
      });
    }
    expect(stack.counts.settle).toBe(0);
    expect(await paymentsOf(ref.refId)).toEqual([]);
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    const paid = answerBytes(await pay(ref.path, header));
    expect(paid.status, paid.body).toBe(200);
    stack.resetCounts();
    expect(answerBytes(await recover(gateway.url, { refId: ref.refId, paymentPayload: header }))).toEqual(paid);
    expect(stack.counts.settle).toBe(0);
  });

  it('says authorization_expired, not retryable, for an authorization that expired unused', async () => {
    const ref = await payableRef(gateway);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const payload = await signPayment(tokenOf(stack), demoPayer(stack), await requirementsOf(gateway.url, ref.path), { validAfter: now - 600n, validBefore: now - 60n });
    await mine(stack, 1); // a head block at or after validBefore: no later block can execute it
    const details = expectError(await recover(gateway.url, { refId: ref.refId, paymentPayload: payload }), 404, 'not_found');
    expect(details).toMatchObject({ settled: false, reason: 'authorization_expired', retryable: false });
    expect(stack.counts.settle).toBe(0);
    expect(await paymentsOf(ref.refId)).toEqual([]);
  });
});

describe('refs that do not match the payload', () => {
  it('refuses another ref’s payload with payment_verification_failed, and an unknown ref with not_found', async () => {
    const merchantRef = await payableRef(gateway);
    const sibling = await payableRef(gateway, { merchant: merchantRef.merchant });
    // An official payload names its resource (the ref's receive URL): refused before anything is read.
    const { header } = await officialPaymentHeader(gateway, merchantRef.path, stack, demoPayer(stack));
    expect((await pay(merchantRef.path, header)).status).toBe(200);
    expect(expectError(await recover(gateway.url, { refId: sibling.refId, paymentPayload: header }), 402, 'payment_verification_failed')).toMatchObject({ field: 'resource' });
    // A payload without a resource (same payTo and amount) is refused by its record: it paid another ref.
    const bare = await signPayment(tokenOf(stack), demoPayer(stack), await requirementsOf(gateway.url, merchantRef.path));
    expect((await pay(merchantRef.path, encodePayment(bare))).status).toBe(200);
    expect(expectError(await recover(gateway.url, { refId: sibling.refId, paymentPayload: bare }), 402, 'payment_verification_failed')).toMatchObject({ field: 'refId', reason: 'other_ref' });
    const unknown = expectError(await recover(gateway.url, { refId: 'ref_doesnotexist', paymentPayload: header }), 404, 'not_found');
    expect(unknown).not.toHaveProperty('settled');
    expect(stack.counts.settle).toBe(2);
  });
});

describe('a payment executed on chain by someone else (the gateway never saw it)', () => {
  async function settledElsewhere() {
    const ref = await payableRef(gateway);
    const { header, payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const executed = await executeAuthorization(stack, payload);
    return { ref, header, ...executed };
  }

  it('finds AuthorizationUsed and the Transfer by searching, records it with a receipt, and answers it the same every time', async () => {
    const { ref, header, txHash } = await settledElsewhere();
    const answers = await Promise.all([1, 2, 3].map(() => recover(gateway.url, { refId: ref.refId, paymentPayload: header })));
    const first = answerBytes(answers[0]!);
    expect(first.status, first.body).toBe(200);
    for (const answer of answers) expect(answerBytes(answer)).toEqual(first);
    const body = JSON.parse(first.body) as { transaction: string; payer: string; extensions: { 'offer-receipt': { receipt: { txHash: string; payTo: string; amount: string } } } };
    expect(body).toMatchObject({ success: true, transaction: txHash, payer: demoPayer(stack).address, receiptStatus: 'issued' });
    expect(body.extensions['offer-receipt'].receipt).toMatchObject({ txHash, payTo: ref.merchant.payTo, amount: '10000' });
    expect(await paymentsOf(ref.refId)).toEqual(['settled']);
    // Recorded: /receive replays it and later recoveries answer it, none of them settling.
    expect(answerBytes(await pay(ref.path, header))).toEqual(first);
    expect(answerBytes(await recover(gateway.url, { refId: ref.refId, paymentPayload: header }))).toEqual(first);
    expect(stack.counts.settle).toBe(0);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    // The receipt verifies against the chain.
    const { receipt, signedReceipt } = body.extensions['offer-receipt'] as unknown as { receipt: unknown; signedReceipt: string };
    const verified = await call(gateway.url, 'POST', '/verify-receipt', { json: { receipt, signedReceipt, minConfirmations: 1 } });
    expect(verified.body).toMatchObject({ verified: true });
  });

  it('checks a txHash hint on chain (one receipt read, no log search) and never trusts a wrong one', async () => {
    const other = await settledElsewhere();
    const { ref, header, txHash } = await settledElsewhere();
    const wrong = await recover(gateway.url, { refId: ref.refId, paymentPayload: header, txHash: other.txHash });
    // The wrong hint does not hold this authorization: the search finds the real transaction.
    expect(wrong.status, wrong.text).toBe(200);
    expect(JSON.parse(wrong.text)).toMatchObject({ transaction: txHash });

    const next = await settledElsewhere();
    const mark = proxy.calls.length;
    const hinted = await recover(gateway.url, { refId: next.ref.refId, paymentPayload: next.header, txHash: next.txHash });
    expect(hinted.status, hinted.text).toBe(200);
    expect(JSON.parse(hinted.text)).toMatchObject({ transaction: next.txHash });
    expect(methodsSince(mark)).toContain('eth_getTransactionReceipt');
    expect(methodsSince(mark)).not.toContain('eth_getLogs');
    expect(stack.counts.settle).toBe(0);
  });

  it('searches forward from fromBlock: reaches a transfer too old for the default search; past it, still pending (never "not settled")', async () => {
    const { ref, header, txHash, blockNumber } = await settledElsewhere();
    await mine(stack, 100);
    const pendingReason = /^(searching|evidence_missing)$/;
    // Back from the head, one attempt's 30 blocks do not reach it; nothing is recorded, nothing settled.
    expect(expectError(await recover(gateway.url, { refId: ref.refId, paymentPayload: header }), 202, 'settlement_pending')).toMatchObject({ reason: pendingReason });
    expect(expectError(await recover(gateway.url, { refId: ref.refId, paymentPayload: header, fromBlock: Number(blockNumber) + 1 }), 202, 'settlement_pending')).toMatchObject({
      reason: pendingReason,
    });
    expect(await paymentsOf(ref.refId)).toEqual([]);
    const from = Number(blockNumber) - 5;
    const mark = proxy.calls.length;
    const found = await recover(gateway.url, { refId: ref.refId, paymentPayload: header, fromBlock: from });
    expect(found.status, found.text).toBe(200);
    expect(JSON.parse(found.text)).toMatchObject({ transaction: txHash });
    const searched = proxy.calls.slice(mark).filter((entry) => entry.method === 'eth_getLogs');
    expect(searched.length).toBeGreaterThan(0);
    for (const entry of searched) expect(Number(BigInt((entry.params[0] as { fromBlock: string }).fromBlock))).toBeGreaterThanOrEqual(from);
    expect(await paymentsOf(ref.refId)).toEqual(['settled']);
    expect(stack.counts.settle).toBe(0);
  });

  it('accepts a transfer mined in the very second the ref was created (block times are whole seconds)', async () => {
    const head = await stack.chain.getBlock({ blockTag: 'latest' });
    const second = Number(head.timestamp) + 5;
    // The ref is created 900 ms into that second; the transfer's block carries the second itself.
    gateway.clock.set(second * 1000 + 900);
    const ref = await payableRef(gateway);
    const { header, payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    await rpc(stack.anvil.rpcUrl, 'evm_setNextBlockTimestamp', [second]);
    const { txHash, blockNumber } = await executeAuthorization(stack, payload);
    expect((await stack.chain.getBlock({ blockNumber })).timestamp).toBe(BigInt(second));
    const found = await recover(gateway.url, { refId: ref.refId, paymentPayload: header, txHash });
    expect(found.status, found.text).toBe(200);
    expect(JSON.parse(found.text)).toMatchObject({ transaction: txHash });
    expect(stack.counts.settle).toBe(0);
  });
});
