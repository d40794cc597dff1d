/**
 * A bench for metric subscriptions: a real license server on a manual clock (so periods fall due when a
 * test says), a loopback webhook receiver, a controllable DNS resolver, and helpers to create and read
 * subscriptions through the Admin API.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, type SqlClient } from '@tollgate/core';
import type { TestEngine } from '@tollgate/core/testing';
import type { ResolvedAddress } from '@tollgate/core/node';
import type { StartLicenseOptions } from '@tollgate/license-server';
import type { AnalyticsSubscriptionOverrides } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminAnswer, type AdminHarness } from '../admin/admin-harness';

/** One request the receiver got. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on 127.0.0.1: answers `statuses` in turn, then 200; `stop()`/`restart()` take it down and up on the same port. */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly deliveries: ReceivedDelivery[];
  readonly statuses: number[];
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * Starts a receiver.
 *
 * @param statuses - Answers of the first requests (then 200).
 * @returns The receiver.
 */
export async function startReceiver(statuses: number[] = []): Promise<Receiver> {
  const deliveries: ReceivedDelivery[] = [];
  let server: Server | undefined;
  const listen = async (port: number): Promise<number> => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.statusCode = statuses.shift() ?? 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const port = await listen(0);
  return {
    url: `http://127.0.0.1:${port}/metrics-hook`,
    port,
    deliveries,
    statuses,
    stop: () =>
      new Promise((resolve) => {
        const closing = server;
        server = undefined;
        if (closing === undefined) return resolve();
        closing.closeAllConnections();
        closing.close(() => resolve());
      }),
    restart: async () => void (await listen(port)),
  };
}

/** A resolver whose answers the test sets per host name (unknown names do not resolve). */
export function fakeResolver(): { answers: Map<string, string[]>; calls: string[]; resolve(hostname: string): Promise<ResolvedAddress[]> } {
  const answers = new Map<string, string[]>();
  const calls: string[] = [];
  return {
    answers,
    calls,
    resolve: async (hostname) => {
      calls.push(hostname);
      const addresses = answers.get(hostname);
      if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

/** Waits until `read` answers something other than `undefined` (polling; never a timed assertion). */
export async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** Start of the benches' manual clock: Monday 2026-03-02 12:00 UTC. */
export const benchStart = Date.parse('2026-03-02T12:00:00Z');

/** The bench. */
export interface SubscriptionBench {
  readonly admin: AdminHarness;
  readonly clock: ManualClock;
  readonly sql: SqlClient;
  create(body: Record<string, unknown>, token?: string): Promise<AdminAnswer>;
  /** The caller's subscriptions (vendor A by default), by id. */
  list(token?: string): Promise<Map<string, Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Starts one more server instance on the same database, clock and overrides (PostgreSQL only). */
  startAnotherInstance(): Promise<unknown>;
  /** Marks the analytics rollup complete through `day` (what deliveries wait for). */
  rolledUpThrough(day: string): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link openSubscriptionBench}. */
export interface SubscriptionBenchOptions {
  /** Deliver to loopback `http:` receivers (the test policy); default true. */
  readonly loopback?: boolean;
  readonly resolve?: AnalyticsSubscriptionOverrides['resolve'];
  readonly maxAttempts?: number;
}

/**
 * Opens a license server with fast polling, pinned jitter (retries at once) and a manual clock.
 *
 * @param engine - PGlite or PostgreSQL.
 * @param options - Loopback policy, resolver, attempt budget.
 * @returns The bench.
 */
export async function openSubscriptionBench(engine: TestEngine, options: SubscriptionBenchOptions = {}): Promise<SubscriptionBench> {
  const clock = new ManualClock(benchStart);
  const serverOptions: StartLicenseOptions & { analyticsSubscriptions: AnalyticsSubscriptionOverrides } = {
    clock,
    alerts: { insecureAllowLoopbackForTests: options.loopback ?? true, pollIntervalMs: 40, backoff: { baseMs: 10, maxMs: 20 }, random: () => 0 },
    analyticsSubscriptions: { ...(options.resolve === undefined ? {} : { resolve: options.resolve }), ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }) },
  };
  // The analytics job rolls up due days on its own every 10 s; slow it down so tests decide readiness.
  const env = { ANALYTICS_JOB_INTERVAL_MS: '3600000' };
  const admin = await openAdminHarness(engine, env, serverOptions);
  return {
    admin,
    clock,
    sql: admin.sql,
    create: (body, token) => admin.call('POST', '/analytics/subscriptions', { body, key: freshKey(), ...(token === undefined ? {} : { token }) }),
    async list(token) {
      const answer = await admin.call('GET', '/analytics/subscriptions', { query: { limit: '200' }, ...(token === undefined ? {} : { token }) });
      if (answer.status !== 200) throw new Error(`list answered ${answer.status}: ${answer.text}`);
      return new Map((answer.body.subscriptions as Record<string, unknown>[]).map((item) => [item['subscription_id'] as string, item]));
    },
    startAnotherInstance: () => admin.sandbox.start(env, serverOptions),
    async rolledUpThrough(day) {
      await admin.sql.query(
        // Every day up to it (the rolled-up marker is gap-free), as the job would have recorded them.
        `INSERT INTO license_analytics_rollup_days (day, events, t1_blocks, runs, completed_at)
         SELECT d::date, 0, 0, 1, $2 FROM generate_series(LEAST((SELECT max(day) + 1 FROM license_analytics_rollup_days), $1::date), $1::date, interval '1 day') AS d
         ON CONFLICT (day) DO NOTHING`,
        [day, new Date(clock.now())],
      );
    },
    close: () => admin.close(),
  };
}
