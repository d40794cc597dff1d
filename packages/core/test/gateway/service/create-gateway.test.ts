// createGateway as an embedder uses it: one database, a fetch handler that serves the whole merchant API,
// workers that start once and stop cleanly, and warnings where a guarantee would silently be lost.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { coreMigrations, createGateway, createNetworkRegistry, deriveGatewayKeys, gatewayMigrations, ManualClock, type GatewayLogger, toFetchHandler, type PaymentEvent } from '@tollgate/core';
import { gatewayRouteTable, warnWhenPendingWithoutWorkers } from '@tollgate/core/gateway';
import { route } from '@tollgate/core/http';
import { gatewayConformanceEpoch, openTestDatabase, type TestDatabase } from '@tollgate/core/testing';

interface Line {
  level: keyof GatewayLogger;
  object: object;
  message: string | undefined;
}

function capturingLogger(): { logger: GatewayLogger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: keyof GatewayLogger) => (object: object, message?: string) => void lines.push({ level, object, message });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

const origin = 'https://pay.example.com';
let database: TestDatabase;
let clock: ManualClock;

beforeAll(async () => {
  database = await openTestDatabase({ migrations: [coreMigrations, gatewayMigrations] });
});
afterAll(() => database?.close());
beforeEach(async () => {
  await database.reset();
  clock = new ManualClock(gatewayConformanceEpoch + 1_000);
});

function gatewayWith(logger: GatewayLogger) {
  return createGateway({ sql: database.sql, keys: deriveGatewayKeys(new Uint8Array(32).fill(9)), networks: createNetworkRegistry(), publicUrl: origin, clock, logger });
}

const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  new Request(`${origin}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

describe('createGateway', () => {
  it('serves a merchant through its fetch handler alone, on the database it was given', async () => {
    const { logger } = capturingLogger();
    const gateway = gatewayWith(logger);
    const account = privateKeyToAccount(generatePrivateKey());
    const challenge = await gateway.fetch(json('POST', '/merchant/challenge', { payTo: account.address, network: 'base', action: 'merchant.register' }));
    expect(challenge.status).toBe(200);
    const { challengeId, signingMessage } = (await challenge.json()) as { challengeId: string; signingMessage: string };
    const signature = await account.signMessage({ message: signingMessage });
    const registered = await gateway.fetch(json('POST', '/merchant/register', { challengeId, payTo: account.address, network: 'base', label: 'Shop', signature }));
    expect(registered.status).toBe(201);
    const { apiKey } = (await registered.json()) as { apiKey: string };
    const me = await gateway.fetch(json('GET', '/merchant/me', undefined, { authorization: `Bearer ${apiKey}` }));
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ label: 'Shop', payTos: [expect.objectContaining({ payTo: account.address })] });
    // The default stores are the SQL ones over `sql`: the merchant is in the database.
    const { rows } = await database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM gateway_merchants');
    expect(rows[0]?.n).toBe(1);
    await gateway.close();
  });

  it('answers an unknown path and a bad body in the gateway envelope', async () => {
    const gateway = gatewayWith(capturingLogger().logger);
    const missing = await gateway.fetch(json('GET', '/no-such-route'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ x402Version: 2, error: { code: 'not_found' } });
    const bad = await gateway.fetch(new Request(`${origin}/merchant/challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ x402Version: 2, error: { code: expect.any(String) } });
  });

  it('serves /openapi.json listing the routes it serves', async () => {
    const gateway = gatewayWith(capturingLogger().logger);
    const response = await gateway.fetch(json('GET', '/openapi.json'));
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/merchant/challenge', '/ref']));
    // No payments given: /receive is not served, so it is not documented either.
    expect(Object.keys(document.paths).some((path) => path.startsWith('/receive'))).toBe(false);
  });

  it('starts its workers once, stops them, may start them again, and closes once', async () => {
    const { logger, lines } = capturingLogger();
    const gateway = gatewayWith(logger);
    expect(gateway.workers.running).toBe(false);
    gateway.workers.start();
    gateway.workers.start();
    expect(gateway.workers.running).toBe(true);
    // No notification transport was given: the embedder is told that this process delivers none (once).
    expect(lines.filter((line) => line.level === 'warn' && /notifications are not delivered/.test(line.message ?? ''))).toHaveLength(1);
    await gateway.workers.stop();
    expect(gateway.workers.running).toBe(false);
    gateway.workers.start();
    const first = gateway.close();
    expect(gateway.close()).toBe(first);
    await first;
    expect(gateway.workers.running).toBe(false);
  });

  it('says nothing about notifications when they are turned off for this process', () => {
    const { logger, lines } = capturingLogger();
    const gateway = createGateway({ sql: database.sql, keys: deriveGatewayKeys(new Uint8Array(32).fill(9)), networks: createNetworkRegistry(), publicUrl: origin, clock, logger, workers: { notifications: false } });
    gateway.workers.start();
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
    return gateway.close();
  });
});

describe('warnWhenPendingWithoutWorkers', () => {
  const pending: PaymentEvent = { type: 'pending', paymentId: 'pay_0123456789abcdef', refId: 'ref_1', reason: 'settle_timeout' };

  it('warns about a payment left pending while no worker runs, after the embedder’s own listener', () => {
    const { logger, lines } = capturingLogger();
    const seen: string[] = [];
    const onEvent = warnWhenPendingWithoutWorkers(logger, () => false, (event) => seen.push(`${event.type}:${lines.length}`));
    onEvent(pending);
    expect(seen).toEqual(['pending:0']);
    expect(lines).toEqual([{ level: 'warn', object: { paymentId: pending.paymentId, refId: 'ref_1', reason: 'settle_timeout' }, message: expect.stringContaining('workers.start()') }]);
  });

  it('stays quiet while workers run, and for every other event', () => {
    const { logger, lines } = capturingLogger();
    warnWhenPendingWithoutWorkers(logger, () => true)(pending);
    const idle = warnWhenPendingWithoutWorkers(logger, () => false);
    for (const type of ['claimed', 'released', 'settled', 'failed', 'taken_over', 'recovery_renewed'] as const) idle({ ...pending, type });
    expect(lines).toEqual([]);
  });
});

describe('gatewayRouteTable', () => {
  it('logs an unexpected error and answers internal_error without its message', async () => {
    const { logger, lines } = capturingLogger();
    const failing = route({ method: 'GET', path: '/boom', handler: () => Promise.reject(new Error('secret detail')) });
    const response = await toFetchHandler(gatewayRouteTable([failing], logger))(new Request(`${origin}/boom`));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ x402Version: 2, error: { code: 'internal_error' } });
    expect(text).not.toContain('secret detail');
    expect(lines).toEqual([{ level: 'error', object: { err: new Error('secret detail') }, message: 'unhandled error' }]);
  });
});
