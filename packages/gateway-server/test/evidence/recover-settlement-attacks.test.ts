// An attacker's pass over POST /recover-settlement on a real anvil chain: every way to make the chain
// "show" a payment that did not pay this ref's payTo this ref's amount under this authorization. None of
// them may get a 200 receipt, write a payment row, or reach the facilitator's settle; the genuine payment
// still settles exactly once afterwards.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizationUsedEvent, transferEvent } from '@tollgate/core/chain';
import { createWalletClient, pad, toEventSelector, toHex, type Address, type Hash, type Hex, type LocalAccount } from 'viem';
import { devChainDefinition, devTransport, testUsdcArtifact } from '@tollgate/gateway-server/devchain';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { encodePayment, fundedPayer, payableRef, signPayment, startPaymentStack, tokenOf, transfersTo, type PayableRef, type PaymentStack } from '../helpers/payments';
import { answerBytes, cancelAuthorizationOnChain, executeAuthorization, recover, requirementsOf } from '../helpers/recovery-app';
import { minedReceipt, rpc, sendFromDeployer, startEvidenceGateway, transferCalldata } from './helpers';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  // The gateway's clock is the wall clock, as anvil's block times are: recovery judges a transfer by its block's time.
  gateway = await startEvidenceGateway(stack, {}, { clock: new TestWallClock() });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});
beforeEach(() => stack.resetCounts());

const word = (value: Hex) => value.slice(2).padStart(64, '0');
const push32 = (value: Hex) => `7f${word(value)}`;

/**
 * Init code that emits, from its own (non-USDC) address, exactly the logs USDC emits for this payment:
 * `AuthorizationUsed(payer, nonce)` then `Transfer(payer, payTo, amount)`, and deploys nothing.
 */
function forgedLogsInitCode(payer: Address, payTo: Address, nonce: Hex, amount: bigint): Hex {
  const used = `${push32(nonce)}${push32(pad(payer))}${push32(toEventSelector(authorizationUsedEvent))}60006000a3`;
  const transfer = `${push32(toHex(amount))}600052${push32(pad(payTo))}${push32(pad(payer))}${push32(toEventSelector(transferEvent))}60206000a3`;
  return `0x${used}${transfer}00`;
}

async function payerWithGas(): Promise<LocalAccount> {
  const payer = await fundedPayer(stack, 1_000_000n);
  await rpc(stack.anvil.rpcUrl, 'anvil_setBalance', [payer.address, '0x56BC75E2D63100000']);
  return payer;
}

const rowsOf = async (refId: string) =>
  (await gateway.server.database.sql.query<{ state: string }>('SELECT state FROM gateway_payments WHERE ref_id = $1', [refId])).rows.map((row) => row.state);

/** The ref's payload of `payer` (10 000 atomic units to payTo) and the ref. */
async function genuine(payer: LocalAccount, options: { nonce?: Hex } = {}): Promise<{ ref: PayableRef; payload: Record<string, unknown>; nonce: Hex }> {
  const ref = await payableRef(gateway);
  const payload = await signPayment(tokenOf(stack), payer, await requirementsOf(gateway.url, ref.path), options);
  const nonce = (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce;
  return { ref, payload, nonce };
}

/** The payment is neither answered with a receipt nor recorded, and the facilitator was never asked to settle. */
async function expectNoReceipt(ref: PayableRef, payload: Record<string, unknown>, txHash: Hash | undefined, reason: string) {
  const response = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, ...(txHash === undefined ? {} : { txHash }) });
  expect(response.status, response.text).toBe(404);
  const details = expectError(response, 404, 'not_found');
  expect(details).toMatchObject({ settled: false, reason });
  expect(await rowsOf(ref.refId)).toEqual([]);
  expect(stack.counts.settle).toBe(0);
  return details;
}

describe('/recover-settlement refuses evidence that is not this payment', () => {
  it('ignores AuthorizationUsed and Transfer logs forged by a contract that is not the USDC token', async () => {
    const payer = await payerWithGas();
    const { ref, payload, nonce } = await genuine(payer);
    const forged = await sendFromDeployer(stack, { data: forgedLogsInitCode(payer.address, ref.merchant.payTo as Address, nonce, 10_000n) });
    const mined = await minedReceipt(stack, forged);
    expect(mined.status).toBe('0x1');
    // The forged transaction carries the exact topics USDC would emit.
    const logs = (await stack.chain.getTransactionReceipt({ hash: forged })).logs;
    expect(logs.map((log) => log.topics[0])).toEqual([toEventSelector(authorizationUsedEvent), toEventSelector(transferEvent)]);
    await expectNoReceipt(ref, payload, forged, 'not_yet_on_chain');
    await expectNoReceipt(ref, payload, undefined, 'not_yet_on_chain');
    // The real payment still settles, once.
    const paid = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(payload) } });
    expect(paid.status, paid.text).toBe(200);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });

  it('does not take a plain USDC transfer of the right amount from the payer to payTo (no authorization) as the payment', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const wallet = createWalletClient({ account: payer, chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
    const plain = await wallet.writeContract({ address: stack.setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'transfer', args: [ref.merchant.payTo as Address, 10_000n] });
    expect((await minedReceipt(stack, plain)).status).toBe('0x1');
    await expectNoReceipt(ref, payload, plain, 'not_yet_on_chain');
  });

  it('does not take a reverted transaction as the payment', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    // The deployer moves more USDC than anyone holds: the call reverts (mined with a fixed gas limit).
    const reverted = await sendFromDeployer(stack, { to: stack.setup.usdc.address, data: transferCalldata(ref.merchant.payTo as Address, 2n ** 200n), gas: 200_000n });
    expect((await minedReceipt(stack, reverted)).status).toBe('0x0');
    await expectNoReceipt(ref, payload, reverted, 'not_yet_on_chain');
  });

  it('reports settlement_mismatch when the same nonce executed a smaller amount, or paid another payee, hint or not', async () => {
    const payer = await payerWithGas();
    for (const change of [{ amount: '1' }, { payTo: payer.address }]) {
      const { ref, payload, nonce } = await genuine(payer);
      // The payer signs a second authorization under the same nonce and has it executed first.
      const other = await signPayment(tokenOf(stack), payer, { ...(payload.accepted as Parameters<typeof signPayment>[2]), ...change }, { nonce });
      const { txHash } = await executeAuthorization(stack, other);
      const details = await expectNoReceipt(ref, payload, txHash, 'settlement_mismatch');
      expect(details).toMatchObject({ retryable: false, transaction: txHash });
      await expectNoReceipt(ref, payload, undefined, 'settlement_mismatch');
      // The executed authorization is not this ref's payment either: another payload, refused as such.
      const refused = await recover(gateway.url, { refId: ref.refId, paymentPayload: other, txHash });
      expect(refused.status, refused.text).toBeGreaterThanOrEqual(400);
      expect(refused.status, refused.text).toBeLessThan(500);
      expect(refused.status).not.toBe(200);
      expect(await rowsOf(ref.refId)).toEqual([]);
    }
    expect(stack.counts.settle).toBe(0);
  });

  it('reports authorization_canceled for an authorization the payer canceled on chain, and never settles it', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const { txHash } = await cancelAuthorizationOnChain(stack, payer, payload);
    const details = await expectNoReceipt(ref, payload, undefined, 'authorization_canceled');
    expect(details).toMatchObject({ retryable: false, transaction: txHash });
    await expectNoReceipt(ref, payload, txHash, 'authorization_canceled');
    // Paying with it is refused as a client error: no receipt, no transfer, and no payment left pending.
    const paid = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(payload) } });
    expect(paid.status, paid.text).toBeGreaterThanOrEqual(400);
    expect(paid.status, paid.text).toBeLessThan(500);
    expect(await rowsOf(ref.refId)).not.toContain('pending');
    expect(await rowsOf(ref.refId)).not.toContain('settled');
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    expect(stack.counts.settle).toBe(0);
  });

  it('gives a genuine payment executed by someone else the same receipt whichever wrong hints came first', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const { txHash } = await executeAuthorization(stack, payload);
    const decoy = await genuine(payer);
    const decoyTx = (await executeAuthorization(stack, decoy.payload)).txHash;
    const viaDecoy = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash: decoyTx });
    expect(viaDecoy.status, viaDecoy.text).toBe(200);
    expect(JSON.parse(viaDecoy.text)).toMatchObject({ transaction: txHash });
    expect(answerBytes(await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash }))).toEqual(answerBytes(viaDecoy));
    expect(await rowsOf(ref.refId)).toEqual(['settled']);
    // The decoy's own ref has no record until its payer asks.
    expect(await rowsOf(decoy.ref.refId)).toEqual([]);
    expect(stack.counts.settle).toBe(0);
  });
});

describe('/recover-settlement when the process died while recording a settlement', () => {
  /** Puts the row back where a crash right after the recovery's claim leaves it: processing, settle marked, nothing answered. */
  async function diedAfterClaim(refId: string, leaseUntil: Date) {
    await gateway.server.database.sql.query(
      `UPDATE gateway_payments SET state = 'processing', lease_token = 'died', lease_until = $2, settle_started_at = COALESCE(settle_started_at, $3), tx_hash = NULL,
         block_number = NULL, receipt_hash = NULL, receipt = NULL, signed_receipt = NULL, answer_outcome = NULL, answer_header = NULL, answer_body = NULL,
         completed_at = NULL WHERE ref_id = $1`,
      [refId, leaseUntil, new Date(gateway.clock.now())],
    );
    expect(await rowsOf(refId)).toEqual(['processing']);
  }

  for (const lease of ['still held', 'expired'] as const) {
    it(`finishes a claim whose holder died (lease ${lease}) from the chain, never settling, and /receive then replays it`, async () => {
      const payer = await payerWithGas();
      const { ref, payload } = await genuine(payer);
      const { txHash } = await executeAuthorization(stack, payload);
      const first = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash });
      expect(first.status, first.text).toBe(200);
      await diedAfterClaim(ref.refId, new Date(gateway.clock.now() + (lease === 'expired' ? -1_000 : 60_000)));
      const again = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload });
      expect(again.status, again.text).toBe(200);
      expect(JSON.parse(again.text)).toMatchObject({ success: true, transaction: txHash });
      expect(await rowsOf(ref.refId)).toEqual(['settled']);
      expect(answerBytes(await recover(gateway.url, { refId: ref.refId, paymentPayload: payload }))).toEqual(answerBytes(again));
      expect(answerBytes(await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(payload) } }))).toEqual(answerBytes(again));
      expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
      expect(stack.counts.settle).toBe(0);
    });
  }

  it('a /receive of a payload whose recovery claim died never settles it: it waits for the chain', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const { txHash } = await executeAuthorization(stack, payload);
    expect((await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash })).status).toBe(200);
    await diedAfterClaim(ref.refId, new Date(gateway.clock.now() - 1_000));
    const paid = await call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(payload) } });
    expect([200, 202], paid.text).toContain(paid.status);
    if (paid.status === 200) expect(JSON.parse(paid.text)).toMatchObject({ transaction: txHash });
    expect(stack.counts.settle).toBe(0);
    const recovered = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload });
    expect(recovered.status, recovered.text).toBe(200);
    // The facilitator may be asked to verify the payload again (harmless); one answer is stored and shared.
    if (paid.status === 200) expect(answerBytes(recovered)).toEqual(answerBytes(paid));
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    expect(stack.counts.settle).toBe(0);
  });
});

describe('/recover-settlement for an authorization executed elsewhere, asked for by a stranger first', () => {
  it('still gives the payer the receipt when a stranger rebuilt the payload from calldata under another payment id and recorded it first', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const { txHash } = await executeAuthorization(stack, payload);
    // Everything signed is public in the settling calldata; the payment id and other unsigned fields are anyone's choice.
    const strangers = { ...payload, extensions: { 'payment-identifier': { info: { required: false, id: 'stranger-chose-this-id-0001' } } } };
    const stolen = await recover(gateway.url, { refId: ref.refId, paymentPayload: strangers, txHash });
    expect(stolen.status, stolen.text).toBe(200);
    const own = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload });
    expect(own.status, own.text).toBe(200);
    expect(answerBytes(own)).toEqual(answerBytes(stolen));
    expect(JSON.parse(own.text)).toMatchObject({ success: true, transaction: txHash, payer: payer.address });
    expect(await rowsOf(ref.refId)).toEqual(['settled']);
    expect(stack.counts.settle).toBe(0);
  });

  it('keeps refusing a twin whose signed terms differ, and a twin of a payment that is not settled', async () => {
    const payer = await payerWithGas();
    const { ref, payload } = await genuine(payer);
    const { txHash } = await executeAuthorization(stack, payload);
    expect((await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash })).status).toBe(200);
    // Same payer and nonce, but a forged 65-byte signature: the payload does not verify.
    const inner = payload.payload as { authorization: Record<string, string>; signature: Hex };
    const forged = { ...payload, extensions: { 'payment-identifier': { info: { required: false, id: 'stranger-chose-this-id-0002' } } }, payload: { ...inner, signature: `0x${'11'.repeat(64)}1b` } };
    const refused = await recover(gateway.url, { refId: ref.refId, paymentPayload: forged });
    expect(refused.status, refused.text).toBeGreaterThanOrEqual(400);
    expect(refused.status, refused.text).toBeLessThan(500);
    // A twin of a payment that is only claimed, not settled: still a conflict.
    const unsettled = await genuine(payer);
    const paid = await call(gateway.url, 'GET', unsettled.ref.path, { headers: { 'payment-signature': encodePayment(unsettled.payload) } });
    expect(paid.status, paid.text).toBe(200);
    await gateway.server.database.sql.query(`UPDATE gateway_payments SET state = 'pending', answer_outcome = NULL, answer_header = NULL, answer_body = NULL, completed_at = NULL WHERE ref_id = $1`, [unsettled.ref.refId]);
    const twin = { ...unsettled.payload, extensions: { 'payment-identifier': { info: { required: false, id: 'stranger-chose-this-id-0003' } } } };
    expectError(await recover(gateway.url, { refId: unsettled.ref.refId, paymentPayload: twin }), 409, 'conflict');
  });
});

describe('/recover-settlement on an open ref (the payload names the amount)', () => {
  it('refuses odd accepted amounts with the error envelope, and a payload whose signed value is not the named amount', async () => {
    const payer = await payerWithGas();
    const ref = await payableRef(gateway, { amount: undefined });
    const accepted = await requirementsOf(gateway.url, `${ref.path}&amount=10000`);
    const payload = await signPayment(tokenOf(stack), payer, accepted);
    const odd: unknown[] = [10000, '-1', '1e4', '0', '010000', ' 10000', '9'.repeat(100), null, {}, ['10000'], '1.5'];
    for (const amount of odd) {
      const response = await recover(gateway.url, { refId: ref.refId, paymentPayload: { ...payload, accepted: { ...accepted, amount } } });
      expect(response.status, `${JSON.stringify(amount)}: ${response.text}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${JSON.stringify(amount)}: ${response.text}`).toBeLessThan(500);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    // Executed for 10 000, but presented as a payment of 1: the signed value decides, refused.
    const { txHash } = await executeAuthorization(stack, payload);
    const underpaid = await recover(gateway.url, { refId: ref.refId, paymentPayload: { ...payload, accepted: { ...accepted, amount: '1' } }, txHash });
    expectError(underpaid, 402, 'payment_verification_failed');
    expect(await rowsOf(ref.refId)).toEqual([]);
    // Presented as what it paid, it is this open ref's payment of 10 000.
    const paid = await recover(gateway.url, { refId: ref.refId, paymentPayload: payload, txHash });
    expect(paid.status, paid.text).toBe(200);
    expect(JSON.parse(paid.text)).toMatchObject({ transaction: txHash });
    expect(stack.counts.settle).toBe(0);
  });
});
