// A facilitator that reports a settlement the chain does not hold (a bug, or a lie): the gateway checks
// the transfer on chain before signing a receipt, so it signs none, and the payment fails once its
// authorization expired unused. Its own file and anvil: it moves the chain's time forward.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, expectError, startTestGateway, type TestGateway } from '../helpers/gateway';
import { demoPayer, officialPaymentHeader, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { cancelAuthorizationOnChain } from '../helpers/recovery-app';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
beforeAll(async () => {
  stack = await startPaymentStack();
});
afterAll(() => stack?.stop());

const rpc = (method: string, params: unknown[] = []) => stack.chain.request({ method, params } as never);

async function paymentRow(gateway: TestGateway, refId: string) {
  const { rows } = await gateway.server.database.sql.query<{ state: string; receipt: string | null }>('SELECT state, receipt FROM gateway_payments WHERE ref_id = $1', [refId]);
  return rows[0];
}

/**
 * A facilitator that verifies through the real one but reports every settle as a success with a made-up
 * transaction, broadcasting nothing (a bug, or a lie).
 */
async function lyingFacilitator(real: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      if (request.url?.endsWith('/settle')) {
        const { paymentPayload } = JSON.parse(body.toString('utf8')) as { paymentPayload: { accepted: { network: string } } };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, transaction: `0x${'7a'.repeat(32)}`, network: paymentPayload.accepted.network }));
        return;
      }
      const answer = await fetch(`${real}${request.url ?? ''}`, { method: request.method ?? 'GET', headers: { 'content-type': 'application/json' }, ...(request.method === 'POST' ? { body } : {}) });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('on a gateway whose facilitator reports settlements that never happened', () => {
  let gateway: TestGateway;
  let liar: Awaited<ReturnType<typeof lyingFacilitator>>;
  beforeAll(async () => {
    liar = await lyingFacilitator(stack.facilitator.url);
    gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_FACILITATOR_URL: liar.url }, { clock: new TestWallClock(), recoveryPollIntervalMs: 50 });
  });
  afterAll(async () => {
    await gateway?.close();
    await liar?.close();
  });

  it('fails a pending payment as authorization_canceled as soon as the payer cancels it on chain, before it expires', async () => {
    const ref = await payableRef(gateway);
    const payer = demoPayer(stack);
    const { header, payload } = await officialPaymentHeader(gateway, ref.path, stack, payer);
    const answered = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    expectError(answered, 202, 'settlement_pending');
    expect(await paymentRow(gateway, ref.refId)).toMatchObject({ state: 'pending', receipt: null });
    // The payer gives up waiting and cancels: the nonce can never execute, so the payment is over now,
    // not at validBefore (the chain's time does not move in this test).
    await cancelAuthorizationOnChain(stack, payer, payload);
    await vi.waitFor(
      async () => {
        gateway.clock.advance(3_000);
        expect((await paymentRow(gateway, ref.refId))?.state).toBe('failed');
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(expectError(await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }), 402, 'settlement_failed')).toMatchObject({ reason: 'authorization_canceled' });
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
  });

  it('signs no receipt the chain does not back, and fails the payment once its authorization expired unused', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const answered = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
    expect(expectError(answered, 202, 'settlement_pending')).toMatchObject({ transaction: `0x${'7a'.repeat(32)}` });
    expect(await paymentRow(gateway, ref.refId)).toMatchObject({ state: 'pending', receipt: null });
    await rpc('evm_increaseTime', [400]);
    await rpc('evm_mine');
    await vi.waitFor(
      async () => {
        gateway.clock.advance(3_000);
        expect((await paymentRow(gateway, ref.refId))?.state).toBe('failed');
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(expectError(await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': header } }), 402, 'settlement_failed')).toMatchObject({ reason: 'authorization_expired' });
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
  });
});

