// The gateway wraps its store so that revocations through this instance reach the 402 status cache at
// once. The wrapper must delegate explicitly: a class-based store keeping its state in #private fields
// only works when its methods are called on the store itself.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  coreMigrations,
  createGateway,
  createMemoryRateLimiter,
  createNetworkRegistry,
  createSqlGatewayStore,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  GatewayError,
  gatewayMigrations,
  ManualClock,
  type GatewayStore,
} from '@tollgate/core';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';
import { payableRef } from '../../../test/support/payable-ref';
import { rejectedWith } from '../../../test/support/thrown';

/** A store written as a class, its state in a #private field: every method needs `this` to be the store. */
class PrivateFieldStore {
  readonly #inner: GatewayStore;
  constructor(inner: GatewayStore) {
    this.#inner = inner;
  }
  static delegate(name: keyof GatewayStore) {
    return function (this: PrivateFieldStore, ...args: unknown[]): unknown {
      return (this.#inner[name] as (...parameters: unknown[]) => unknown)(...args);
    };
  }
}

let database: TestDatabase;
let sqlStore: GatewayStore;
let clock: ManualClock;

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
  sqlStore = createSqlGatewayStore(database.sql);
  for (const name of Object.keys(sqlStore) as (keyof GatewayStore)[]) {
    Object.defineProperty(PrivateFieldStore.prototype, name, { value: PrivateFieldStore.delegate(name) });
  }
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(gatewayConformanceEpoch + 1_000);
});

describe('the store the gateway services write through', () => {
  it('works with a class-based store holding #private state, and still forgets a revoked ref’s cached status', async () => {
    const store = new PrivateFieldStore(sqlStore) as unknown as GatewayStore;
    const gateway = createGateway({
      store,
      keys: deriveGatewayKeys(new Uint8Array(32).fill(4)),
      networks: createNetworkRegistry(),
      publicUrl: 'https://pay.example.com',
      clock,
      signatureVerifier: createViemWalletSignatureVerifier(),
      rateLimiter: createMemoryRateLimiter({ clock }),
      payments: { signer: privateKeyToAccount(generatePrivateKey()) },
    });
    const target = await payableRef(sqlStore, clock);
    const receive = { payTo: target.payTo, query: { ref: target.refId } };
    await gateway.payments?.negotiation.negotiate(receive);
    expect(await gateway.refs.getRef(target.refId)).toMatchObject({ refId: target.refId });
    await gateway.refs.revokeRef({ merchantId: target.merchantId, credentialId: 'key_test', credentialStatus: 'current' }, target.refId);
    const refused = await rejectedWith(GatewayError, gateway.payments!.negotiation.negotiate(receive));
    expect(refused.code).toBe('ref_revoked');
  });
});
