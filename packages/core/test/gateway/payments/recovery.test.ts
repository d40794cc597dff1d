// Recovery of pending payments from chain evidence, over a real database and a fake chain (see
// test/gateway/fake-chain.ts): the head block recorded when settle starts and the bounded log search
// that starts near it, reads pinned to one head block, facilitator failures that carry a hash, and
// pending payments whose recovery job died.
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import type { Address, Hash, Hex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  deriveGatewayKeys,
  gatewayMigrations,
  ManualClock,
  settlementRecoveryQueue,
  type GatewayStores,
  type PaymentEvent,
} from '@tollgate/core';
import { createSqlJobQueue } from '@tollgate/core/storage';
import {
  decodePaymentSignatureHeader,
  FacilitatorUnavailableError,
  type SettleResponse,
} from '@tollgate/core/x402';
import { createPayments, settlementRecoveryJobKey, type Payments } from '@tollgate/core/gateway';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { createFakeChain, type FakeChain } from '../fake-chain';
import { payableRef, type PayableRef } from '../../support/payable-ref';

const origin = 'https://pay.example.com';
const usdc = createNetworkRegistry().require('base').usdc.address as Address;
const headAtSettle = 5_000_000n;

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;
let chain: FakeChain;
let events: PaymentEvent[];
let settle: () => Promise<SettleResponse>;

function paymentsWith(settings: { evidenceScanBlocks?: number } = {}): Payments {
  return createPayments({
    stores,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(9)),
    networks: createNetworkRegistry(),
    publicUrl: origin,
    clock,
    signer: privateKeyToAccount(generatePrivateKey()),
    facilitator: { verify: async () => ({ isValid: true }), settle: () => settle(), supported: async () => ({ kinds: [], extensions: [], signers: {} }) },
    chain: (network) => (network.name === 'base' ? chain.client : undefined),
    onEvent: (event) => events.push(event),
    settings: { waitMs: 2_000, pollMs: 5, ...settings },
  });
}

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
  stores = createSqlGatewayStores(database.sql);
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(gatewayConformanceEpoch + 1_000);
  chain = createFakeChain(usdc, { number: headAtSettle, timestamp: BigInt(Math.floor(clock.now() / 1000)) });
  events = [];
  settle = () => Promise.reject(new FacilitatorUnavailableError('settle', 'timeout'));
});

const request = (target: PayableRef) => ({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: target.header });

/** The authorization of a payable ref's payment. */
function authorizationOf(target: PayableRef): { from: Address; nonce: Hex; validBefore: bigint } {
  const { authorization } = decodePaymentSignatureHeader(target.header).payload as { authorization: { from: Address; nonce: Hex; validBefore: string } };
  return { from: authorization.from, nonce: authorization.nonce, validBefore: BigInt(authorization.validBefore) };
}

/** Pays a new ref through a settle that times out: the payment is pending, its chain still silent. */
async function pendingPayment(payments: Payments): Promise<{ target: PayableRef; paymentId: string }> {
  const target = await payableRef(stores, clock, origin);
  const result = await payments.settlement.settle(request(target));
  expect(result).toMatchObject({ kind: 'pending' });
  chain.stateReads.length = 0;
  chain.logRanges.length = 0;
  return { target, paymentId: result.paymentId };
}

async function stored(paymentId: string) {
  const payment = await stores.payments.getPayment(paymentId);
  if (payment === undefined) throw new Error(`payment ${paymentId} is missing`);
  return payment;
}

const txHash: Hash = `0x${'5e'.repeat(32)}`;

describe('the evidence search of a pending payment', () => {
  it('finds a transfer in the newest span of its window with one log read and no timestamp search', async () => {
    const payments = paymentsWith();
    const { target, paymentId } = await pendingPayment(payments);
    const authorization = authorizationOf(target);
    chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle + 10n, txHash });
    chain.head = { number: headAtSettle + 100n, timestamp: chain.head.timestamp + 200n };
    expect(await payments.recovery.inspect(await stored(paymentId))).toEqual({ status: 'settled', txHash, blockNumber: headAtSettle + 10n });
    expect(chain.logRanges).toEqual([{ from: headAtSettle + 100n - 1_999n, to: headAtSettle + 100n }]);
    expect(chain.blockReads).toEqual([]);
  });

  it('searches the whole window once when the event is not indexed yet, then starts over and finds it', async () => {
    const payments = paymentsWith();
    const { target, paymentId } = await pendingPayment(payments);
    const authorization = authorizationOf(target);
    const executed = chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle + 10n, txHash, logsVisible: false });
    chain.head = { number: headAtSettle + 100n, timestamp: chain.head.timestamp + 200n };
    expect(await payments.recovery.inspect(await stored(paymentId))).toEqual({ status: 'unknown', reason: 'evidence_missing' });
    // The window starts at the first block after validAfter (10 minutes before the payment: 300 blocks of 2 s).
    const windowLow = headAtSettle - 299n;
    expect((await stored(paymentId)).evidence).toEqual({ windowLow, windowHigh: null, scanned: null });
    executed.logsVisible = true;
    chain.logRanges.length = 0;
    expect(await payments.recovery.inspect(await stored(paymentId))).toMatchObject({ status: 'settled', txHash });
    expect(chain.logRanges).toEqual([{ from: headAtSettle + 100n - 1_999n, to: headAtSettle + 100n }]);
  });

  it('walks a window reaching far back in budgets, continuing where each attempt stopped, until it finds the transfer', async () => {
    const payments = paymentsWith({ evidenceScanBlocks: 10_000 });
    const target = await payableRef(stores, clock, origin, { validAfter: BigInt(Math.floor(clock.now() / 1000)) - 200_000n });
    const first = await payments.settlement.settle(request(target));
    expect(first).toMatchObject({ kind: 'pending' });
    // Executed by someone holding the signature long before the gateway saw it.
    const authorization = authorizationOf(target);
    chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle - 60_000n, txHash });
    chain.logRanges.length = 0;
    const verdicts = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const verdict = await payments.recovery.inspect(await stored(first.paymentId));
      verdicts.push(verdict.status === 'unknown' ? verdict.reason : verdict.status);
      if (verdict.status !== 'unknown') break;
    }
    expect(verdicts).toEqual(['searching', 'searching', 'searching', 'searching', 'searching', 'searching', 'settled']);
    // Contiguous, newest first, never a block twice.
    const searched = chain.logRanges.reduce((blocks, range) => blocks + range.to - range.from + 1n, 0n);
    expect(searched).toBe(headAtSettle - chain.logRanges.at(-1)!.from + 1n);
    expect((await payments.recovery.resolve(await stored(first.paymentId))).state).toBe('settled');
  });
});

describe('reads pinned to one head block', () => {
  it('never fails a mined payment because a lagging node answered the nonce read', async () => {
    const payments = paymentsWith();
    const { target, paymentId } = await pendingPayment(payments);
    const authorization = authorizationOf(target);
    chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle + 3n, txHash });
    // The head is past validBefore, but the node answering eth_call is 10 blocks behind it.
    chain.head = { number: headAtSettle + 20n, timestamp: authorization.validBefore + 30n };
    chain.stateNodeHead = headAtSettle;
    expect(await payments.recovery.inspect(await stored(paymentId))).toEqual({ status: 'unknown', reason: 'rpc_unavailable' });
    expect(await payments.recovery.resolve(await stored(paymentId))).toMatchObject({ state: 'pending' });
    expect(chain.stateReads.every((block) => block === headAtSettle + 20n)).toBe(true);
    chain.stateNodeHead = undefined;
    expect(await payments.recovery.resolve(await stored(paymentId))).toMatchObject({ state: 'settled', txHash, blockNumber: String(headAtSettle + 3n) });
    expect(chain.logRanges.every((range) => range.to <= headAtSettle + 20n)).toBe(true);
  });

  it('fails an authorization that is unused at a head block past its validBefore', async () => {
    const payments = paymentsWith();
    const { target, paymentId } = await pendingPayment(payments);
    chain.head = { number: headAtSettle + 200n, timestamp: authorizationOf(target).validBefore };
    expect(await payments.recovery.resolve(await stored(paymentId))).toMatchObject({ state: 'failed', errorReason: 'authorization_expired' });
    expect(chain.stateReads).toEqual([headAtSettle + 200n]);
  });
});

describe('a facilitator failure that carries a transaction hash', () => {
  it('keeps the payment pending with that hash, and settles it once the chain shows the transfer', async () => {
    const payments = paymentsWith();
    settle = async () => ({ success: false, errorReason: 'invalid_exact_evm_transaction_state', transaction: txHash, network: 'eip155:8453' });
    const target = await payableRef(stores, clock, origin);
    const first = await payments.settlement.settle(request(target));
    expect(first).toMatchObject({ kind: 'pending', transaction: txHash });
    const authorization = authorizationOf(target);
    chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle + 2n, txHash });
    chain.head = { ...chain.head, number: headAtSettle + 5n };
    const replay = await payments.settlement.settle(request(target));
    if (replay.kind !== 'final') throw new Error('expected the replay to find the settled payment');
    expect(replay.answer.outcome).toBe('settled');
    expect(JSON.parse(replay.answer.body)).toMatchObject({ success: true, transaction: txHash });
    expect(events.map((event) => event.type)).toEqual(['claimed', 'pending', 'settled']);
  });
});

describe('pending payments whose recovery job died', () => {
  it('get a new job of the next generation from the sweep, once, and are then finished by it', async () => {
    const payments = paymentsWith();
    const { target, paymentId } = await pendingPayment(payments);
    expect(await payments.recovery.sweepStranded()).toBe(0);
    // All its attempts used while the chain could not tell (an RPC down for hours).
    await database.sql.query(`UPDATE tollgate_jobs SET status = 'dead', last_error = 'still pending (rpc_unavailable)' WHERE idempotency_key = $1`, [settlementRecoveryJobKey(paymentId)]);
    expect(await payments.recovery.sweepStranded()).toBe(1);
    expect(await payments.recovery.sweepStranded()).toBe(0);
    expect(events.filter((event) => event.type === 'recovery_renewed')).toEqual([{ type: 'recovery_renewed', paymentId, refId: target.refId, reason: 'generation_1' }]);

    const authorization = authorizationOf(target);
    chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block: headAtSettle + 1n, txHash });
    chain.head = { ...chain.head, number: headAtSettle + 5n };
    const job = await createSqlJobQueue(database.sql, { clock }).claim<{ paymentId: string }>(settlementRecoveryQueue, { leaseMs: 60_000 });
    expect(job).toMatchObject({ idempotencyKey: settlementRecoveryJobKey(paymentId, 1), payload: { paymentId } });
    await payments.recovery.runJob(job!);
    expect((await stored(paymentId)).state).toBe('settled');
    expect(await payments.recovery.sweepStranded()).toBe(0);
  });
});
