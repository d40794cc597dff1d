// Shared helpers of the gateway HTTP tests: a real listening server on a fresh PGlite data dir, a
// small JSON client, and registration through the public API with viem accounts.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { ManualClock, coreMigrations, gatewayMigrations, hexEncode } from '@tollgate/core';
import { pgliteTestTemplate } from '@tollgate/core/testing';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { SteerableClock } from './clock';
import { gatewayDatabaseDir, loadGatewayConfig, startGatewayServer, type RunningGateway, type StartGatewayOptions } from '@tollgate/gateway-server';

/** A running test gateway with its clock (a `ManualClock` unless the test passed a `TestWallClock`) and secret. */
export interface TestGateway {
  readonly url: string;
  readonly clock: SteerableClock;
  readonly secret: Uint8Array;
  readonly server: RunningGateway;
  readonly dataDir: string;
  close(): Promise<void>;
}

/**
 * A data dir whose embedded database starts from a prepared PGlite template with the gateway's
 * migrations applied (no initdb and no migration DDL per server; the start only checks them).
 */
export async function dataDirFromTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-gateway-'));
  cpSync(await pgliteTestTemplate([coreMigrations, gatewayMigrations]), gatewayDatabaseDir({ dataDir: dir }), { recursive: true });
  return dir;
}

/**
 * Generous limits so that only the rate-limit tests ever hit one. `/receive` gets a day-long window:
 * some payment tests move the gateway's clock minutes forward and back again, and a limiter whose clock
 * went back sees its recent requests in the future, refusing for as long unless its window is longer.
 */
export const relaxedRateLimits = {
  GATEWAY_RATE_LIMIT_CHALLENGE: '100000/60',
  GATEWAY_RATE_LIMIT_REGISTER: '100000/60',
  GATEWAY_RATE_LIMIT_REF_LOOKUP: '100000/60',
  GATEWAY_RATE_LIMIT_RECEIVE: '1000000/86400',
};

/** Options of {@link startTestGateway}. */
export interface TestGatewayOptions {
  /** Reuse this data dir (restart tests); a fresh one from the PGlite template by default. */
  dataDir?: string;
  /** The gateway's clock: a `ManualClock` at 2026-03-01T12:00:00Z by default; payment tests pass a `TestWallClock`. */
  clock?: SteerableClock;
  secret?: Uint8Array;
  /** Capture the server's log lines (the level is then `LOG_LEVEL` from `env`, default `silent`). */
  logDestination?: DestinationStream;
  /** Poll interval of the settlement-recovery worker, and of its sweep for abandoned claims. */
  recoveryPollIntervalMs?: number;
  /** Notification worker overrides (a transport to a loopback receiver, a fast poll). */
  notifications?: StartGatewayOptions['notifications'];
}

/**
 * Starts a gateway on port 0 with a manual clock (2026-03-01T12:00:00Z), a known secret, relaxed rate
 * limits and no dev chain (`GATEWAY_DEV_CHAIN=0`: payment tests bring their own stack); `env` overrides
 * any variable. `dataDir` reuses an existing data dir (restart tests).
 */
export async function startTestGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? (await dataDirFromTemplate());
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
  const secret = options.secret ?? crypto.getRandomValues(new Uint8Array(32));
  const config = loadGatewayConfig({
    GATEWAY_PORT: '0',
    TOLLGATE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    GATEWAY_SECRET: hexEncode(secret),
    GATEWAY_DEV_CHAIN: '0',
    ...relaxedRateLimits,
    ...env,
  });
  const server = await startGatewayServer(config, {
    clock,
    ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
    ...(options.recoveryPollIntervalMs === undefined ? {} : { recoveryPollIntervalMs: options.recoveryPollIntervalMs, recoverySweepIntervalMs: options.recoveryPollIntervalMs }),
    ...(options.notifications === undefined ? {} : { notifications: options.notifications }),
  });
  return {
    url: server.url,
    clock,
    secret,
    server,
    dataDir,
    async close() {
      await server.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A response with its JSON body parsed (or `undefined` for an empty body). */
export interface JsonResponse<Body = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
  readonly text: string;
}

/** Options of {@link call}. */
export interface CallOptions {
  /** JSON-encoded as the body. */
  json?: unknown;
  /** Sent as is (with `application/json` unless `headers` says otherwise). */
  raw?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the gateway. */
export async function call<Body = Record<string, unknown>>(base: string, method: string, path: string, options: CallOptions = {}): Promise<JsonResponse<Body>> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (options.json !== undefined || options.raw !== undefined) {
    headers['content-type'] = 'application/json';
    body = options.raw ?? JSON.stringify(options.json);
  }
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  const response = await fetch(`${base}${path}`, { method, headers: { ...headers, ...options.headers }, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as Body, text };
}

/** Asserts the spec's error envelope, exactly, with the given status and code; returns the details. */
export function expectError(response: JsonResponse<unknown>, status: number, code: string): Record<string, unknown> {
  expect({ status: response.status, code: (response.body as { error?: { code?: string } } | undefined)?.error?.code }).toEqual({ status, code });
  expect(response.body).toEqual({ x402Version: 2, error: { code, message: expect.any(String), details: expect.any(Object) } });
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return (response.body as { error: { details: Record<string, unknown> } }).error.details;
}

/** A fresh viem account. */
export function freshAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** The challenge response. */
export interface ChallengeBody {
  challengeId: string;
  message: Record<string, unknown>;
  signingMessage: string;
}

/** Requests a registration challenge. */
export function requestChallenge(base: string, payTo: string, options: { network?: string; webhookUrl?: string } = {}): Promise<JsonResponse<ChallengeBody>> {
  return call<ChallengeBody>(base, 'POST', '/merchant/challenge', {
    json: { payTo, network: options.network ?? 'base', action: 'merchant.register', ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}) },
  });
}

/** A registered merchant as the tests use it. */
export interface TestMerchant {
  account: PrivateKeyAccount;
  payTo: string;
  merchantId: string;
  apiKey: string;
  apiKeyId: string;
  notifyHmacKey: string;
  notifyHmacKeyId: string;
}

/** Challenge → personal_sign → register for `account` (a fresh one by default); fails unless 201. */
export async function registerMerchant(
  base: string,
  options: { account?: PrivateKeyAccount; network?: string; label?: string; webhookUrl?: string } = {},
): Promise<TestMerchant> {
  const account = options.account ?? freshAccount();
  const challenge = await requestChallenge(base, account.address, options);
  expect(challenge.status).toBe(200);
  const signature = await account.signMessage({ message: challenge.body.signingMessage });
  const response = await call(base, 'POST', '/merchant/register', {
    json: {
      challengeId: challenge.body.challengeId,
      payTo: account.address,
      network: options.network ?? 'base',
      label: options.label ?? 'Test shop',
      ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
      signature,
    },
  });
  expect(response.status, response.text).toBe(201);
  return { account, payTo: account.address, ...(response.body as Omit<TestMerchant, 'account' | 'payTo'>) };
}

/** Creates a ref for the merchant's payTo; returns the raw response. */
export function createRef(base: string, merchant: Pick<TestMerchant, 'apiKey' | 'payTo'>, options: Record<string, unknown> = {}): Promise<JsonResponse> {
  return call(base, 'POST', '/ref', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, network: 'base', amount: '10000', ...options } });
}

/**
 * Tests that run several gateway instances or processes on one database need a whole database of their
 * own: core's `createScratchDatabase` (inside a test run, `drop()` leaves it to the run's teardown).
 */
export { createScratchDatabase } from '@tollgate/core/testing';
