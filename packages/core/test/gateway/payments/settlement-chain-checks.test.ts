// Where settlement asks the chain instead of trusting a facilitator's word, over a real database and a
// fake chain (test/gateway/fake-chain.ts): a payment executed before the gateway saw it, a verify refusal
// the chain contradicts or cannot confirm, a hash-less failure after broadcast, a success the chain does
// not show, and a crash between the facilitator's answer and the completion. Each case failed (or could
// not be expressed) before these checks existed; the same stories run on anvil in gateway-server/test.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address, Hash, Hex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  deriveGatewayKeys,
  GatewayError,
  gatewayMigrations,
  ManualClock,
  notificationQueue,
  type Facilitator,
  type GatewayStores,
} from '@tollgate/core';
import {
  decodePaymentSignatureHeader,
  FacilitatorUnavailableError,
  type SettleResponse,
  type VerifyResponse,
} from '@tollgate/core/x402';
import { createPayments, type Payments } from '@tollgate/core/gateway';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { createFakeChain, type FakeChain } from '../fake-chain';
import { payableRef, type PayableRef } from '../../support/payable-ref';
import { rejectedWith } from '../../support/thrown';

const origin = 'https://pay.example.com';
const usdc = createNetworkRegistry().require('base').usdc.address as Address;
const head = 5_000_000n;
const txHash: Hash = `0x${'5e'.repeat(32)}`;

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;
let chain: FakeChain;
let verify: () => Promise<VerifyResponse>;
let settle: () => Promise<SettleResponse>;
let calls: { verify: number; settle: number };

const facilitator: Facilitator = {
  verify: () => {
    calls.verify += 1;
    return verify();
  },
  settle: () => {
    calls.settle += 1;
    return settle();
  },
  supported: async () => ({ kinds: [], extensions: [], signers: {} }),
};

function paymentsWith(storesUsed: GatewayStores = stores): Payments {
  return createPayments({
    stores: storesUsed,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(3)),
    networks: createNetworkRegistry(),
    publicUrl: origin,
    clock,
    signer: privateKeyToAccount(generatePrivateKey()),
    facilitator,
    chain: (network) => (network.name === 'base' ? chain.client : undefined),
    settings: { waitMs: 2_000, pollMs: 5 },
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
  chain = createFakeChain(usdc, { number: head, timestamp: BigInt(Math.floor(clock.now() / 1000)) });
  calls = { verify: 0, settle: 0 };
  verify = async () => ({ isValid: true });
  settle = async () => ({ success: true, transaction: txHash, network: 'eip155:8453' });
});

const request = (target: PayableRef) => ({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: target.header });

/** Executes the target's authorization on the fake chain (its transfer of 0.01 USDC to payTo). */
function executeOnChain(target: PayableRef, block: bigint, options: { logsVisible?: boolean; hash?: Hash } = {}) {
  const { authorization } = decodePaymentSignatureHeader(target.header).payload as { authorization: { from: Address; nonce: Hex } };
  return chain.execute({ authorizer: authorization.from, nonce: authorization.nonce, to: target.payTo, value: 10_000n, block, txHash: options.hash ?? txHash, logsVisible: options.logsVisible ?? true });
}

const notifications = async () => (await database.sql.query('SELECT payload FROM tollgate_jobs WHERE queue = $1', [notificationQueue])).rows;
const nonceUsed = async (): Promise<VerifyResponse> => ({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });

describe('a verify refusal that may mean "already executed"', () => {
  it('settles a payment executed before the gateway saw it, with a receipt and a notification, never calling settle', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    executeOnChain(target, head - 5n);
    verify = nonceUsed;
    const result = await payments.settlement.settle(request(target));
    if (result.kind !== 'final') throw new Error(`expected a final answer, got ${result.kind}`);
    expect(result.answer.outcome).toBe('settled');
    expect(JSON.parse(result.answer.body)).toMatchObject({ success: true, transaction: txHash, extensions: { 'offer-receipt': { receipt: { txHash } } } });
    expect(calls.settle).toBe(0);
    expect(await notifications()).toHaveLength(1);
    // Replays get the same bytes and never settle.
    expect(await payments.settlement.settle(request(target))).toEqual(result);
    expect(calls.settle).toBe(0);
  });

  it('keeps the refusal when the chain shows the nonce unused, and releases the claim so the payer may retry', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    verify = nonceUsed;
    const error = await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    expect(error).toMatchObject({ code: 'payment_verification_failed', details: { reason: 'invalid_exact_evm_nonce_already_used' } });
    verify = async () => ({ isValid: true });
    settle = async () => {
      executeOnChain(target, head);
      return { success: true, transaction: txHash, network: 'eip155:8453' };
    };
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(calls.settle).toBe(1);
  });

  it('answers rpc_unavailable (retryable) and releases the claim when the chain cannot be read', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    verify = nonceUsed;
    chain.stateNodeHead = head - 10n;
    const error = await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    expect(error).toMatchObject({ code: 'rpc_unavailable', retryAfterSeconds: 5 });
    chain.stateNodeHead = undefined;
    executeOnChain(target, head - 1n);
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(calls.settle).toBe(0);
  });

  it('keeps a payment whose nonce is used but whose event is not indexed yet pending, then the chain finishes it', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    const executed = executeOnChain(target, head - 2n, { logsVisible: false });
    verify = nonceUsed;
    const pending = await payments.settlement.settle(request(target));
    expect(pending).toMatchObject({ kind: 'pending', transaction: null });
    executed.logsVisible = true;
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(calls.settle).toBe(0);
  });

  it('refuses a refusal of the payload itself without asking the chain', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    verify = async () => ({ isValid: false, invalidReason: 'invalid_exact_evm_recipient_mismatch' });
    const error = await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    expect(error.code).toBe('payment_verification_failed');
    expect(chain.stateReads).toEqual([]);
  });
});

describe('after settle was called', () => {
  it('keeps a hash-less transaction_failed pending (sending threw after the node took it) and settles it from the chain', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    settle = async () => {
      executeOnChain(target, head + 1n);
      chain.head = { number: head + 1n, timestamp: chain.head.timestamp + 2n };
      return { success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: 'eip155:8453' };
    };
    const result = await payments.settlement.settle(request(target));
    expect(result).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(calls.settle).toBe(1);
  });

  it('fails a hash-less transaction_failed only once the chain is past validBefore with the nonce unused', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    settle = async () => ({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: 'eip155:8453' });
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'pending' });
    const { authorization } = decodePaymentSignatureHeader(target.header).payload as { authorization: { validBefore: string } };
    chain.head = { number: head + 200n, timestamp: BigInt(authorization.validBefore) };
    const failed = await payments.settlement.settle(request(target));
    expect(failed).toMatchObject({ kind: 'final', answer: { outcome: 'failed' } });
    expect(JSON.parse(failed.kind === 'final' ? failed.answer.body : '{}')).toMatchObject({ error: { code: 'settlement_failed', details: { reason: 'authorization_expired' } } });
    // The gateway's own clock past validBefore too: the replay still gets the stored failure, not a fresh refusal.
    clock.set(Number(authorization.validBefore) * 1000 + 1_000);
    expect(await payments.settlement.settle(request(target))).toEqual(failed);
    expect(calls.settle).toBe(1);
  });

  it('signs no receipt on a success the chain does not show, and settles once it does', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    const result = await payments.settlement.settle(request(target));
    expect(result).toMatchObject({ kind: 'pending', transaction: txHash });
    const payment = await stores.payments.getPayment(result.paymentId);
    expect(payment).toMatchObject({ state: 'pending', txHash, receiptJson: null });
    executeOnChain(target, head + 3n);
    chain.head = { number: head + 3n, timestamp: chain.head.timestamp + 6n };
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
  });

  it('keeps the hash on the row before completing: a crash in between loses nothing, and recovery needs no log search', async () => {
    const target = await payableRef(stores, clock, origin);
    executeOnChain(target, head);
    const crashing: GatewayStores = {
      ...stores,
      payments: {
        ...stores.payments,
        completePayment: async () => {
          throw new Error('the process died here');
        },
      },
    };
    await expect(paymentsWith(crashing).settlement.settle(request(target))).rejects.toThrow('the process died here');
    const [row] = (await database.sql.query<{ payment_id: string; state: string; tx_hash: string | null }>('SELECT payment_id, state, tx_hash FROM gateway_payments')).rows;
    expect(row).toMatchObject({ state: 'processing', tx_hash: txHash });
    // A restarted gateway: the lease runs out, the sweep hands the payment to the chain, the kept hash settles it.
    const payments = paymentsWith();
    clock.advance(10 * 60_000);
    expect(await payments.recovery.sweepAbandoned()).toBe(1);
    chain.logRanges.length = 0;
    const resolved = await payments.recovery.resolve((await stores.payments.getPayment(row!.payment_id))!);
    expect(resolved).toMatchObject({ state: 'settled', txHash });
    expect(chain.logRanges).toEqual([]);
    expect(calls.settle).toBe(1);
    expect(await notifications()).toHaveLength(1);
  });
});

describe('the claim written while the facilitator verifies (the chain can finish what a crash leaves)', () => {
  it('writes the claim while the facilitator verifies, not after', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    settle = async () => (executeOnChain(target, head), { success: true, transaction: txHash, network: 'eip155:8453' });
    let claimedDuringVerify = false;
    // Verify answers only once the claim is visible: a claim written after verify would never be seen.
    verify = async () => {
      for (let polls = 0; polls < 200 && !claimedDuringVerify; polls += 1) {
        const { rows } = await database.sql.query<{ settle_started_at: Date | null }>('SELECT settle_started_at FROM gateway_payments');
        claimedDuringVerify = rows.length === 1 && rows[0]?.settle_started_at !== null;
        if (!claimedDuringVerify) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return { isValid: true };
    };
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(claimedDuringVerify).toBe(true);
  });

  it('releases the claim written during verify when the facilitator refuses the payload or cannot be reached', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    settle = async () => (executeOnChain(target, head), { success: true, transaction: txHash, network: 'eip155:8453' });
    verify = async () => ({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' });
    await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    verify = () => Promise.reject(new FacilitatorUnavailableError('verify', 'network'));
    await rejectedWith(FacilitatorUnavailableError, payments.settlement.settle(request(target)));
    expect((await database.sql.query('SELECT 1 FROM gateway_payments')).rows).toEqual([]);
    // Nothing was settled, so the same payment is paid normally once the facilitator accepts it.
    verify = async () => ({ isValid: true });
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(calls.settle).toBe(1);
  });

  it('treats a claim whose holder stalls inside verify past its lease as pending, and its holder still settles it exactly once', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    settle = async () => (executeOnChain(target, head), { success: true, transaction: txHash, network: 'eip155:8453' });
    let finishVerify: () => void = () => undefined;
    verify = () => new Promise<VerifyResponse>((resolve) => (finishVerify = () => resolve({ isValid: true })));
    const first = payments.settlement.settle(request(target));
    while (calls.verify === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(payments.settings.leaseMs);
    verify = async () => ({ isValid: true });
    // The claim carries its settle mark: nobody else may settle it (its holder may be settling).
    const second = await payments.settlement.settle(request(target));
    expect(second).toMatchObject({ kind: 'pending' });
    expect(calls.settle).toBe(0);
    finishVerify();
    const settled = await first;
    expect(settled).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(await payments.settlement.settle(request(target))).toEqual(settled);
    expect(calls.settle).toBe(1);
  });

  it('follows the payment instead of answering "retry" when its claim was taken over while verify stalled and verify then refuses', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    let refuse: () => void = () => undefined;
    verify = () => new Promise<VerifyResponse>((resolve) => (refuse = () => resolve({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' })));
    const first = payments.settlement.settle(request(target));
    while (calls.verify === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(payments.settings.leaseMs);
    expect(await payments.recovery.sweepAbandoned()).toBe(1);
    refuse();
    // The claim is pending now: a retry would meet it, so the payer gets its state, not a refusal.
    expect(await first).toMatchObject({ kind: 'pending' });
    expect(calls.settle).toBe(0);
  });
});
