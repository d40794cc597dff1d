// The fast paths of payments, and the guarantees they keep:
// - the negotiation's short status cache: a 402 may reuse a ref's status for `statusCacheMs`, while a
//   payment is only ever claimed on the statuses read in the claim itself ("another instance" revokes by
//   writing to the shared store directly, which this instance's cache cannot see);
// - the claim taken while the offline checks run: a payment that fails them leaves no claim behind and
//   never reaches the facilitator.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createNetworkRegistry,
  createSqlGatewayStores,
  deriveGatewayKeys,
  GatewayError,
  gatewayMigrations,
  ManualClock,
  resolvePaymentSettings,
  type GatewayStores,
} from '@tollgate/core';
import {
  encodeX402Header,
  PaymentVerificationError,
} from '@tollgate/core/x402';
import { createPayments, type Payments } from '@tollgate/core/gateway';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { payableRef } from '../../support/payable-ref';
import { rejectedWith } from '../../support/thrown';

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;
let payments: Payments;
let settles = 0;
let verifies = 0;

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
  stores = createSqlGatewayStores(database.sql);
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(gatewayConformanceEpoch + 1_000);
  settles = 0;
  verifies = 0;
  payments = createPayments({
    stores,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(3)),
    networks: createNetworkRegistry(),
    publicUrl: 'https://pay.example.com',
    clock,
    signer: privateKeyToAccount(generatePrivateKey()),
    facilitator: {
      verify: async () => {
        verifies += 1;
        return { isValid: true };
      },
      settle: async () => {
        settles += 1;
        return { success: true, transaction: `0x${'cd'.repeat(32)}`, network: 'eip155:8453' };
      },
      supported: async () => ({ kinds: [], extensions: [], signers: {} }),
    },
    settings: { statusCacheMs: 1_000 },
  });
});

const refWithPayment = () => payableRef(stores, clock);

describe('negotiation status cache', () => {
  it('reuses a status for statusCacheMs, then reads the revocation another instance made', async () => {
    const target = await refWithPayment();
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await payments.negotiation.negotiate(receive);
    await stores.refs.revokeRef({ merchantId: target.merchantId, refId: target.refId, now: new Date(clock.now()) });
    clock.advance(999);
    await expect(payments.negotiation.negotiate(receive)).resolves.toMatchObject({ header: expect.any(String) });
    clock.advance(1);
    expect((await rejectedWith(GatewayError, payments.negotiation.negotiate(receive))).code).toBe('ref_revoked');
  });

  it('reads the statuses on every 402 with statusCacheMs 0', async () => {
    const uncached = createPayments({
      stores,
      keys: deriveGatewayKeys(new Uint8Array(32).fill(3)),
      networks: createNetworkRegistry(),
      publicUrl: 'https://pay.example.com',
      clock,
      signer: privateKeyToAccount(generatePrivateKey()),
      settings: { statusCacheMs: 0 },
    });
    expect(uncached.settings.statusCacheMs).toBe(0);
    const target = await refWithPayment();
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await uncached.negotiation.negotiate(receive);
    await stores.refs.revokeRef({ merchantId: target.merchantId, refId: target.refId, now: new Date(clock.now()) });
    expect((await rejectedWith(GatewayError, uncached.negotiation.negotiate(receive))).code).toBe('ref_revoked');
    expect(() => resolvePaymentSettings({ statusCacheMs: -1 })).toThrow(RangeError);
    expect(() => resolvePaymentSettings({ pollMs: 0 })).toThrow(RangeError);
  });

  it('forgets a ref at once when this instance revokes it', async () => {
    const target = await refWithPayment();
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await payments.negotiation.negotiate(receive);
    await stores.refs.revokeRef({ merchantId: target.merchantId, refId: target.refId, now: new Date(clock.now()) });
    payments.contexts.forgetRef(target.refId);
    expect((await rejectedWith(GatewayError, payments.negotiation.negotiate(receive))).code).toBe('ref_revoked');
  });

  it('never settles on a cached status: the claim re-reads it (ref revoked, payTo retired)', async () => {
    for (const change of ['revoke', 'retire'] as const) {
      const target = await refWithPayment();
      await payments.negotiation.negotiate({ payTo: target.payTo, query: { ref: target.refId } });
      if (change === 'revoke') await stores.refs.revokeRef({ merchantId: target.merchantId, refId: target.refId, now: new Date(clock.now()) });
      else await stores.merchants.retirePayTo({ merchantId: target.merchantId, address: target.payTo, now: new Date(clock.now()) });
      const refused = await rejectedWith(GatewayError, payments.settlement.settle({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: target.header }));
      expect(refused.code).toBe(change === 'revoke' ? 'ref_revoked' : 'payto_revoked');
    }
    expect(settles).toBe(0);
  });
});

describe('claim overlapped with the offline checks', () => {
  it('releases the claim of a payment whose signature does not recover, before any facilitator call', async () => {
    const target = await refWithPayment();
    const payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(target.header), (c) => c.charCodeAt(0)))) as { payload: { signature: string } };
    const signature = payload.payload.signature;
    payload.payload.signature = `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}`;
    const refused = await rejectedWith(PaymentVerificationError, payments.settlement.settle({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: encodeX402Header(payload as never) }));
    expect(refused.field).toBe('signature');
    expect((await database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    expect(verifies + settles).toBe(0);
    // The genuine payment is untouched by the forged one and settles.
    await expect(payments.settlement.settle({ payTo: target.payTo, query: { ref: target.refId }, paymentSignature: target.header })).resolves.toMatchObject({ kind: 'final' });
    expect(settles).toBe(1);
  });
});
