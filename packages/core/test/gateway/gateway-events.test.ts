// The negotiation caches a ref's and its payTo's status for statusCacheMs; revoking a ref or retiring a
// payTo through this instance must still be seen by its next 402 at once. The services announce both on
// the gateway's event channel after the store write, and createGateway has the status cache listen.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createGateway,
  createGatewayEvents,
  createNetworkRegistry,
  createSqlGatewayStores,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  GatewayError,
  gatewayMigrations,
  ManualClock,
  type Gateway,
  type GatewayEvent,
  type GatewayStores,
} from '@tollgate/core';
import type { RefStore } from '@tollgate/core/gateway';
import { createMemoryRateLimiter } from '@tollgate/core/storage';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { payableRef } from '../support/payable-ref';
import { rejectedWith } from '../support/thrown';

/** A ref store written as a class, its state in a #private field: every method needs `this` to be the store. */
class PrivateFieldRefStore {
  readonly #inner: RefStore;
  constructor(inner: RefStore) {
    this.#inner = inner;
  }
  static delegate(name: keyof RefStore) {
    return function (this: PrivateFieldRefStore, ...args: unknown[]): unknown {
      return (this.#inner[name] as (...parameters: unknown[]) => unknown)(...args);
    };
  }
}

let database: TestDatabase;
let stores: GatewayStores;
let clock: ManualClock;

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
  stores = createSqlGatewayStores(database.sql);
  for (const name of Object.keys(stores.refs) as (keyof RefStore)[]) {
    Object.defineProperty(PrivateFieldRefStore.prototype, name, { value: PrivateFieldRefStore.delegate(name) });
  }
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(gatewayConformanceEpoch + 1_000);
});

function gatewayOver(gatewayStores: GatewayStores, events = createGatewayEvents()): Gateway {
  return createGateway({
    sql: database.sql,
    stores: gatewayStores,
    events,
    keys: deriveGatewayKeys(new Uint8Array(32).fill(4)),
    networks: createNetworkRegistry(),
    publicUrl: 'https://pay.example.com',
    clock,
    signatureVerifier: createViemWalletSignatureVerifier(),
    rateLimiter: createMemoryRateLimiter({ clock }),
    payments: { signer: privateKeyToAccount(generatePrivateKey()), settings: { statusCacheMs: 60_000 } },
  });
}

const caller = (merchantId: string) => ({ merchantId, credentialId: 'key_test', credentialStatus: 'current' as const });

describe('invalidating the negotiation’s status cache through gateway events', () => {
  it('keeps serving a cached status that changed behind this instance’s back (the cache is live)', async () => {
    const gateway = gatewayOver(stores);
    const target = await payableRef(stores, clock);
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await gateway.payments!.negotiation.negotiate(receive);
    await stores.refs.revokeRef({ merchantId: target.merchantId, refId: target.refId, now: new Date(clock.now()) });
    await expect(gateway.payments!.negotiation.negotiate(receive)).resolves.toMatchObject({ header: expect.any(String) });
  });

  it('refuses the next 402 at once after this instance revokes the ref, and tells ref_revoked after the write', async () => {
    const events = createGatewayEvents();
    const seen: GatewayEvent[] = [];
    let statusAtEmit: ReturnType<RefStore['getPaymentStatus']> | undefined;
    events.subscribe((event) => {
      seen.push(event);
      // Issued while the event is told: it reads what the store holds at that moment.
      if (event.type === 'ref_revoked') statusAtEmit = stores.refs.getPaymentStatus(event.refId);
    });
    const gateway = gatewayOver(stores, events);
    const target = await payableRef(stores, clock);
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await gateway.payments!.negotiation.negotiate(receive);
    await gateway.refs.revokeRef(caller(target.merchantId), target.refId);
    expect(seen).toEqual([{ type: 'ref_revoked', refId: target.refId }]);
    expect((await statusAtEmit)?.refStatus).toBe('revoked');
    expect((await rejectedWith(GatewayError, gateway.payments!.negotiation.negotiate(receive))).code).toBe('ref_revoked');
  });

  it('refuses the next 402 at once after this instance retires the payTo', async () => {
    const events = createGatewayEvents();
    const seen: GatewayEvent[] = [];
    events.subscribe((event) => seen.push(event));
    const gateway = gatewayOver(stores, events);
    const target = await payableRef(stores, clock);
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await gateway.payments!.negotiation.negotiate(receive);
    await gateway.accounts.retirePayTo(caller(target.merchantId), target.payTo.toLowerCase());
    expect(seen).toEqual([{ type: 'payto_retired', address: target.payTo }]);
    expect((await rejectedWith(GatewayError, gateway.payments!.negotiation.negotiate(receive))).code).toBe('payto_revoked');
  });

  it('tells nothing when the caller does not own the ref or payTo (nothing changed)', async () => {
    const events = createGatewayEvents();
    const seen: GatewayEvent[] = [];
    events.subscribe((event) => seen.push(event));
    const gateway = gatewayOver(stores, events);
    const target = await payableRef(stores, clock);
    await expect(gateway.refs.revokeRef(caller('someone-else'), target.refId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(gateway.accounts.retirePayTo(caller('someone-else'), target.payTo)).rejects.toMatchObject({ code: 'not_found' });
    expect(seen).toEqual([]);
  });

  it('works with a class-based store holding #private state: services call the port’s methods on the port', async () => {
    const gateway = gatewayOver({ ...stores, refs: new PrivateFieldRefStore(stores.refs) as unknown as RefStore });
    const target = await payableRef(stores, clock);
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await gateway.payments!.negotiation.negotiate(receive);
    expect(await gateway.refs.getRef(target.refId)).toMatchObject({ refId: target.refId });
    await gateway.refs.revokeRef(caller(target.merchantId), target.refId);
    expect((await rejectedWith(GatewayError, gateway.payments!.negotiation.negotiate(receive))).code).toBe('ref_revoked');
  });
});

describe('createGatewayEvents', () => {
  const revoked: GatewayEvent = { type: 'ref_revoked', refId: '00112233445566778899aabbccddeeff' };

  it('calls every listener in subscription order until it unsubscribes', () => {
    const events = createGatewayEvents();
    const calls: string[] = [];
    const first = events.subscribe(() => calls.push('first'));
    events.subscribe(() => calls.push('second'));
    events.emit(revoked);
    first();
    events.emit(revoked);
    expect(calls).toEqual(['first', 'second', 'second']);
  });

  it('never lets a throwing listener reach the emitter or stop the others; it reports the error', () => {
    const reported: [unknown, GatewayEvent][] = [];
    const events = createGatewayEvents({ onListenerError: (error, event) => reported.push([error, event]) });
    const failure = new Error('listener broke');
    const calls: string[] = [];
    events.subscribe(() => {
      throw failure;
    });
    events.subscribe(() => calls.push('after'));
    expect(() => events.emit(revoked)).not.toThrow();
    expect(calls).toEqual(['after']);
    expect(reported).toEqual([[failure, revoked]]);
  });

  it('survives a reporter that throws too, and works without one', () => {
    const throwing = createGatewayEvents({
      onListenerError: () => {
        throw new Error('reporter broke');
      },
    });
    throwing.subscribe(() => {
      throw new Error('listener broke');
    });
    expect(() => throwing.emit(revoked)).not.toThrow();
    const silent = createGatewayEvents();
    silent.subscribe(() => {
      throw new Error('listener broke');
    });
    expect(() => silent.emit(revoked)).not.toThrow();
  });
});
