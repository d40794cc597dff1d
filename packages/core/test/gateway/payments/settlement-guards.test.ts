// Guards of the settlement path that no live facilitator exercises: a payment bound to its ref by its
// `resource`, a store that fails at once while the offline checks run, and a duplicate's wait measured on
// the injected clock (the one the leases use).
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  deriveGatewayKeys,
  gatewayMigrations,
  ManualClock,
  type GatewayStores,
} from '@tollgate/core';
import {
  decodePaymentSignatureHeader,
  encodeX402Header,
  PaymentVerificationError,
  type SettleResponse,
} from '@tollgate/core/x402';
import { createPayments, type Payments } from '@tollgate/core/gateway';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { payableRef, type PayableRef } from '../../support/payable-ref';
import { rejectedWith } from '../../support/thrown';

const origin = 'https://pay.example.com';

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;
let settles: number;
let settle: () => Promise<SettleResponse>;

function paymentsWith(options: { stores?: GatewayStores; waitMs?: number; sleep?: (ms: number) => Promise<void> } = {}): Payments {
  return createPayments({
    stores: options.stores ?? stores,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(5)),
    networks: createNetworkRegistry(),
    publicUrl: origin,
    clock,
    signer: privateKeyToAccount(generatePrivateKey()),
    facilitator: {
      verify: async () => ({ isValid: true }),
      settle: () => {
        settles += 1;
        return settle();
      },
      supported: async () => ({ kinds: [], extensions: [], signers: {} }),
    },
    settings: { waitMs: options.waitMs ?? 2_000, pollMs: 5 },
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
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
  settles = 0;
  settle = async () => ({ success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' });
});

const request = (target: PayableRef, paymentSignature = target.header, refId = target.refId) => ({ payTo: target.payTo, query: { ref: refId }, paymentSignature });
const resourceOf = (target: PayableRef, refId = target.refId) => `${origin}/receive/${target.payTo}?ref=${refId}`;

/** Another fixed 0.01 USDC ref of the same merchant and payTo. */
async function siblingRef(target: PayableRef): Promise<string> {
  const ref = await stores.refs.getRef(target.refId);
  if (ref === undefined) throw new Error('the ref is missing');
  const { status: _status, revokedAt: _revokedAt, ...fields } = ref;
  const refId = crypto.randomUUID().replaceAll('-', '');
  const snapshot = { ...(JSON.parse(ref.snapshotJson) as Record<string, unknown>), resource: resourceOf(target, refId) };
  await stores.refs.createRef({ ...fields, id: refId, invoiceId: null, snapshotJson: JSON.stringify(snapshot) });
  return refId;
}

describe('a payment bound to its ref by its resource', () => {
  it('is refused by another ref of the same payTo and amount before it is claimed, and still settles on its own ref', async () => {
    const payments = paymentsWith();
    const target = await payableRef(stores, clock, origin);
    const other = await siblingRef(target);
    const header = encodeX402Header({ ...decodePaymentSignatureHeader(target.header), resource: { url: resourceOf(target) } });
    const refused = await rejectedWith(PaymentVerificationError, payments.settlement.settle(request(target, header, other)));
    expect(refused).toMatchObject({ code: 'payment_verification_failed', field: 'resource', reason: 'mismatch' });
    expect((await database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    expect(settles).toBe(0);
    expect(await payments.settlement.settle(request(target, header))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
  });

  it('leaves a payment that names no resource to the other checks', async () => {
    const target = await payableRef(stores, clock, origin);
    expect(decodePaymentSignatureHeader(target.header).resource).toBeUndefined();
    expect(await paymentsWith().settlement.settle(request(target))).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
  });
});

describe('a store that fails at once', () => {
  it('fails the request with the store’s error, never as an unhandled rejection while the checks run', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const closed = new Error('Cannot use a pool after calling end on the pool');
      const failing: GatewayStores = { ...stores, payments: { ...stores.payments, claimPayment: () => Promise.reject(closed) } };
      const target = await payableRef(stores, clock, origin);
      await expect(paymentsWith({ stores: failing }).settlement.settle(request(target))).rejects.toBe(closed);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(settles).toBe(0);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});

describe('a duplicate submission waiting for the one in progress', () => {
  it('stops waiting when the injected clock says its wait is over (the clock of the leases)', async () => {
    let firstPoll: () => void = () => undefined;
    const polling = new Promise<void>((resolve) => (firstPoll = resolve));
    // Sixty seconds of real time would outlast the test: only the injected clock can end this wait.
    const payments = paymentsWith({
      waitMs: 60_000,
      sleep: (ms) => {
        firstPoll();
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const target = await payableRef(stores, clock, origin);
    let finishSettle: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finishSettle = resolve));
    settle = async () => {
      await gate;
      return { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' };
    };
    const first = payments.settlement.settle(request(target));
    while (settles === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const duplicate = payments.settlement.settle(request(target));
    await polling;
    clock.advance(60_000);
    expect(await duplicate).toMatchObject({ kind: 'pending', transaction: null });
    finishSettle();
    expect(await first).toMatchObject({ kind: 'final', answer: { outcome: 'settled' } });
  }, 10_000);
});
