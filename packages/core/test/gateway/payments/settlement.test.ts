// The settlement state machine over a real database, with an in-memory facilitator (the Facilitator
// port allows it) to reach the branches a live facilitator rarely takes: outages, failed verdicts,
// ambiguous answers, duplicates waiting, and a takeover after the lease ran out. No chain is
// configured here, so evidence is always "unknown" (chain evidence is tested on anvil in
// gateway-server/test/payments).
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  deriveGatewayKeys,
  GatewayError,
  gatewayMigrations,
  ManualClock,
  settlementRecoveryQueue,
  type Facilitator,
  type GatewayStores,
} from '@tollgate/core';
import {
  FacilitatorUnavailableError,
  decodePaymentSignatureHeader,
  PaymentVerificationError,
  type SettleResponse,
  type VerifyResponse,
} from '@tollgate/core/x402';
import { createPayments, type Payments } from '@tollgate/core/gateway';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { payableRef } from '../../support/payable-ref';
import { rejectedWith } from '../../support/thrown';

const origin = 'https://pay.example.com';

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;

/** An in-memory facilitator whose answers each test scripts. */
const facilitator = {
  calls: { verify: 0, settle: 0 },
  verify: async (): Promise<VerifyResponse> => ({ isValid: true }),
  settle: async (): Promise<SettleResponse> => ({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' }),
};
const port: Facilitator = {
  verify: (..._args) => {
    facilitator.calls.verify += 1;
    return facilitator.verify();
  },
  settle: (..._args) => {
    facilitator.calls.settle += 1;
    return facilitator.settle();
  },
  supported: async () => ({ kinds: [], extensions: [], signers: {} }),
};

function paymentsWith(options: { facilitator?: Facilitator; waitMs?: number } = {}): Payments {
  return createPayments({
    stores,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(7)),
    networks: createNetworkRegistry(),
    publicUrl: origin,
    clock,
    signer: privateKeyToAccount(generatePrivateKey()),
    ...('facilitator' in options ? (options.facilitator === undefined ? {} : { facilitator: options.facilitator }) : { facilitator: port }),
    settings: { waitMs: options.waitMs ?? 2_000, pollMs: 5 },
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
  facilitator.calls = { verify: 0, settle: 0 };
  facilitator.verify = async () => ({ isValid: true });
  facilitator.settle = async () => ({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' });
});

const paymentForNewRef = () => payableRef(stores, clock, origin);

const request = (target: { payTo: string; refId: string; header: string }) => ({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: target.header });

async function recoveryJobs(): Promise<string[]> {
  const { rows } = await database.sql.query<{ idempotency_key: string }>('SELECT idempotency_key FROM tollgate_jobs WHERE queue = $1 ORDER BY id', [settlementRecoveryQueue]);
  return rows.map((row) => row.idempotency_key);
}

describe('settlement state machine', () => {
  it('settles once and replays the stored answer without settling again (a replay costs one side-effect-free verify)', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    const first = await payments.settlement.settle(request(target));
    expect(first).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(await payments.settlement.settle(request(target))).toEqual(first);
    expect(facilitator.calls).toEqual({ verify: 2, settle: 1 });
    // With the facilitator down, a replay still gets its stored answer.
    facilitator.verify = () => Promise.reject(new FacilitatorUnavailableError('verify', 'timeout'));
    expect(await payments.settlement.settle(request(target))).toEqual(first);
    expect(facilitator.calls.settle).toBe(1);
    expect(await recoveryJobs()).toEqual([]);
  });

  it('refuses with facilitator_unavailable when none is configured, after the offline checks, without claiming', async () => {
    const target = await paymentForNewRef();
    const error = await rejectedWith(GatewayError, paymentsWith({ facilitator: undefined }).settlement.settle(request(target)));
    expect(error).toMatchObject({ code: 'facilitator_unavailable', details: { reason: 'not_configured' } });
    const { rows } = await database.sql.query('SELECT payment_id FROM gateway_payments');
    expect(rows).toEqual([]);
  });

  it('releases the claim when the facilitator is unreachable during verify, so a retry settles', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    facilitator.verify = () => Promise.reject(new FacilitatorUnavailableError('verify', 'timeout'));
    await rejectedWith(FacilitatorUnavailableError, payments.settlement.settle(request(target)));
    expect((await database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    facilitator.verify = async () => ({ isValid: true });
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
  });

  it('relays a verify refusal as payment_verification_failed and releases the claim', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    facilitator.verify = async () => ({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' });
    const error = await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    expect(error).toMatchObject({ code: 'payment_verification_failed', details: { field: 'facilitator', reason: 'invalid_exact_evm_insufficient_balance' } });
    expect((await database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    expect(facilitator.calls.settle).toBe(0);
  });

  it('records a failed settle verdict without a transaction once: 402 settlement_failed with PAYMENT-RESPONSE success false, replayed byte for byte', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    facilitator.settle = async () => ({ success: false, errorReason: 'invalid_exact_evm_recipient_mismatch', transaction: '', network: 'eip155:8453' });
    const result = await payments.settlement.settle(request(target));
    if (result.kind !== 'final') throw new Error('expected a final answer');
    expect(result.answer.outcome).toBe('failed');
    expect(JSON.parse(result.answer.body)).toEqual({
      x402Version: 2,
      error: { code: 'settlement_failed', message: expect.any(String), details: { paymentId: result.paymentId, reason: 'invalid_exact_evm_recipient_mismatch' } },
    });
    expect(JSON.parse(Buffer.from(result.answer.paymentResponse, 'base64').toString('utf8'))).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_recipient_mismatch' });
    expect(await payments.settlement.settle(request(target))).toEqual(result);
    expect(facilitator.calls.settle).toBe(1);
    expect(await recoveryJobs()).toEqual([]);
  });

  it.each([
    ['a thrown settle (timeout after broadcast)', () => Promise.reject(new FacilitatorUnavailableError('settle', 'timeout'))],
    ['an ambiguous verdict without a hash', async (): Promise<SettleResponse> => ({ success: false, errorReason: 'unexpected_settle_error', transaction: '', network: 'eip155:8453' })],
    ['settlement_pending with a hash', async (): Promise<SettleResponse> => ({ success: false, errorReason: 'settlement_pending', transaction: `0x${'ef'.repeat(32)}`, network: 'eip155:8453' })],
    // @x402/evm 2.27 answers a broadcast still unconfirmed this way: it may yet be mined.
    ['a failure carrying a transaction hash', async (): Promise<SettleResponse> => ({ success: false, errorReason: 'invalid_exact_evm_transaction_state', transaction: `0x${'fe'.repeat(32)}`, network: 'eip155:8453' })],
    ['a reverted transaction (the authorization stays executable until validBefore)', async (): Promise<SettleResponse> => ({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: `0x${'cd'.repeat(32)}`, network: 'eip155:8453' })],
  ])('keeps the payment pending after %s, with its recovery job, and never settles it again', async (_name, settle) => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    facilitator.settle = settle;
    const result = await payments.settlement.settle(request(target));
    expect(result).toMatchObject({ kind: 'pending', retryAfterSeconds: 5 });
    expect(JSON.parse(Buffer.from(result.kind === 'pending' ? result.paymentResponse : '', 'base64').toString('utf8'))).toMatchObject({ success: false, errorReason: 'settlement_pending' });
    expect(await payments.settlement.settle(request(target))).toEqual(result);
    expect(facilitator.calls.settle).toBe(1);
    const stored = await stores.payments.getPayment(result.paymentId);
    expect(stored?.state).toBe('pending');
    const answered = await settle().then((response) => response.transaction, () => '');
    expect(stored?.txHash).toBe(answered === '' ? null : answered);
    expect(await recoveryJobs()).toEqual([`recovery:${result.paymentId}`]);
  });

  it('makes a duplicate submission wait for the one in progress and return its answer', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    let finishSettle: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finishSettle = resolve));
    facilitator.settle = async () => {
      await gate;
      return { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' };
    };
    const first = payments.settlement.settle(request(target));
    while (facilitator.calls.settle === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const duplicate = payments.settlement.settle(request(target));
    finishSettle();
    const [a, b] = await Promise.all([first, duplicate]);
    expect(b).toEqual(a);
    expect(a).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    expect(facilitator.calls.settle).toBe(1);
  });

  it('answers settlement_pending to a duplicate that waited its limit, while the first still settles', async () => {
    const payments = paymentsWith({ waitMs: 50 });
    const target = await paymentForNewRef();
    let finishSettle: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finishSettle = resolve));
    facilitator.settle = async () => {
      await gate;
      return { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' };
    };
    const first = payments.settlement.settle(request(target));
    while (facilitator.calls.settle === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await payments.settlement.settle(request(target))).toMatchObject({ kind: 'pending', transaction: null });
    finishSettle();
    expect(await first).toMatchObject({ kind: 'final' });
  });

  it('takes over a claim whose lease ran out during settle: pending, never a second settle', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    let finishSettle: () => void = () => undefined;
    facilitator.settle = () => new Promise<SettleResponse>((_resolve, reject) => (finishSettle = () => reject(new FacilitatorUnavailableError('settle', 'network'))));
    const first = payments.settlement.settle(request(target));
    while (facilitator.calls.settle === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(payments.settings.leaseMs);
    const second = await payments.settlement.settle(request(target));
    expect(second).toMatchObject({ kind: 'pending' });
    finishSettle();
    expect(await first).toEqual(second);
    expect(facilitator.calls).toEqual({ verify: 2, settle: 1 });
  });

  it('without a chain to read, verifies before it claims: a refusal of the payload leaves no row at any time', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    let rowsDuringVerify = -1;
    facilitator.verify = async () => {
      rowsDuringVerify = (await database.sql.query('SELECT 1 FROM gateway_payments')).rows.length;
      return { isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' };
    };
    await rejectedWith(GatewayError, payments.settlement.settle(request(target)));
    expect(rowsDuringVerify).toBe(0);
    expect((await database.sql.query('SELECT 1 FROM gateway_payments')).rows).toEqual([]);
  });

  it('takes over a claim whose lease ran out before settle started, verifying again', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    let finishVerify: () => void = () => undefined;
    facilitator.verify = () => new Promise<VerifyResponse>((resolve) => (finishVerify = () => resolve({ isValid: true })));
    const first = payments.settlement.settle(request(target));
    while (facilitator.calls.verify === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(payments.settings.leaseMs);
    facilitator.verify = async () => ({ isValid: true });
    const second = await payments.settlement.settle(request(target));
    expect(second).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
    finishVerify();
    // The first holder lost its lease: it may not start settle, so it returns the stored answer.
    expect(await first).toEqual(second);
    expect(facilitator.calls.settle).toBe(1);
  });

  it('sweeps claims whose holder died mid-settle: they turn pending with a recovery job; a request still verifying holds no claim', async () => {
    const payments = paymentsWith();
    const settling = await paymentForNewRef();
    const verifying = await paymentForNewRef();
    let finishSettle: () => void = () => undefined;
    let finishVerify: () => void = () => undefined;
    facilitator.settle = () => new Promise<SettleResponse>((_resolve, reject) => (finishSettle = () => reject(new FacilitatorUnavailableError('settle', 'network'))));
    const first = payments.settlement.settle(request(settling));
    while (facilitator.calls.settle === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    facilitator.verify = () => new Promise<VerifyResponse>((_resolve, reject) => (finishVerify = () => reject(new FacilitatorUnavailableError('verify', 'network'))));
    const second = payments.settlement.settle(request(verifying));
    while (facilitator.calls.verify < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    expect(await payments.recovery.sweepAbandoned()).toBe(0);
    clock.advance(payments.settings.leaseMs);
    expect(await payments.recovery.sweepAbandoned()).toBe(1);
    expect(await payments.recovery.sweepAbandoned()).toBe(0);
    const { rows } = await database.sql.query<{ payment_id: string; state: string }>('SELECT payment_id, state FROM gateway_payments');
    expect(rows.map((row) => row.state)).toEqual(['pending']);
    expect(await recoveryJobs()).toEqual([`recovery:${rows[0]?.payment_id}`]);

    finishSettle();
    finishVerify();
    expect(await first).toMatchObject({ kind: 'pending', paymentId: rows[0]?.payment_id });
    await rejectedWith(FacilitatorUnavailableError, second);
    expect(facilitator.calls.settle).toBe(1);
  });
});

describe('a replay after the authorization expired (its validBefore passed on the injected clock)', () => {
  /** Moves the clock to the first second the target's authorization is no longer valid. */
  function expire(target: { header: string }): void {
    const { authorization } = decodePaymentSignatureHeader(target.header).payload as { authorization: { validBefore: string } };
    clock.set(Number(authorization.validBefore) * 1000);
  }

  it.each([
    ['settled', async (): Promise<SettleResponse> => ({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' })],
    ['failed', async (): Promise<SettleResponse> => ({ success: false, errorReason: 'invalid_exact_evm_recipient_mismatch', transaction: '', network: 'eip155:8453' })],
  ])('gets the stored %s answer byte for byte, whatever the clock says, without the facilitator', async (outcome, settle) => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    facilitator.settle = settle;
    const first = await payments.settlement.settle(request(target));
    expect(first).toMatchObject({ kind: 'final', answer: { outcome } });
    expire(target);
    // The stored outcome is the answer (nothing can change it any more); the clock only judges new payments.
    expect(await payments.settlement.settle(request(target))).toEqual(first);
    clock.advance(86_400_000);
    expect(await payments.settlement.settle(request(target))).toEqual(first);
    expect(facilitator.calls).toEqual({ verify: 1, settle: 1 });
  });

  it('refuses a payment it never recorded as payment_verification_failed (expired): nothing was or can be transferred', async () => {
    const payments = paymentsWith();
    const target = await paymentForNewRef();
    expire(target);
    const refused = await rejectedWith(PaymentVerificationError, payments.settlement.settle(request(target)));
    expect(refused).toMatchObject({ code: 'payment_verification_failed', field: 'authorization.validBefore', reason: 'expired' });
    expect((await database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    expect(facilitator.calls).toEqual({ verify: 0, settle: 0 });
  });
});
