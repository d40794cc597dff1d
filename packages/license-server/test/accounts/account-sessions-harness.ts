/**
 * A bench for the account routes: a license database (PGlite or the PostgreSQL server) with a vendor, a
 * product and accounts created through the account store, the routes served by `createLicenseApp` on a
 * real port, a manual clock, and a recorder of every password check the service runs.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { coreMigrations, licenseMigrations, ManualClock, type SqlClient } from '@tollgate/core';
import { encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import { randomBytes, randomId } from '@tollgate/core/crypto';
import {
  accountSessionRoutes,
  createAccountSessions,
  createSqlAccountStore,
  createSqlVendorStore,
  hashAccountPassword,
  verifyAccountPassword,
  type AccountSessions,
  type AccountSessionsOptions,
  type ScryptParameters,
} from '@tollgate/core/license';
import { openTestDatabase, type TestDatabase, type TestEngine } from '@tollgate/core/testing';
import { createLicenseApp } from '@tollgate/license-server';
import pino from 'pino';
import { protoHeaders } from '../helpers';

/** A cheap scrypt cost for the bench's accounts and stand-in hash (one case runs the real cost). */
export const cheapCost: ScryptParameters = { N: 2 ** 10, r: 8, p: 1 };

/** The time the bench's clock starts at (unix seconds). */
export const benchStart = 1_790_000_000;

/** One password check the service ran: the stored hash it verified against. */
export interface PasswordCheck {
  readonly stored: string;
  readonly matched: boolean;
}

/** A served instance of the routes. */
export interface AccountApp {
  readonly url: string;
  readonly sessions: AccountSessions;
  close(): Promise<void>;
}

/** The bench. */
export interface AccountBench {
  readonly database: TestDatabase;
  readonly sql: SqlClient;
  readonly masterKey: Uint8Array;
  readonly clock: ManualClock;
  readonly vendorId: string;
  readonly productId: string;
  /** Every password check of every app of the bench, in order. */
  readonly checks: PasswordCheck[];
  /** Serves the routes over `sql` (the bench's client by default) with `options` on top of the bench's. */
  serve(options?: Partial<AccountSessionsOptions>): Promise<AccountApp>;
  /** Creates an account with `password` (cheap cost); returns its id and stored hash. */
  createAccount(email: string, password: string): Promise<{ accountId: string; passwordHash: string }>;
  close(): Promise<void>;
}

/** A `fetch` answer with the body read as bytes. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
}

/**
 * POSTs to the app: a `Map` body is encoded as canonical CBOR, bytes are sent as is.
 *
 * @param app - The app (or its URL).
 * @param path - The path.
 * @param body - A CBOR map or raw bytes.
 * @param headers - Headers on top of `X-LS-Proto: 1` and `Content-Type: application/cbor`.
 * @returns The answer.
 */
export async function postTo(app: { url: string }, path: string, body: Map<CborKey, CborValue> | Uint8Array, headers: Record<string, string | undefined> = {}): Promise<RawAnswer> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...protoHeaders, 'content-type': 'application/cbor', ...headers })) if (value !== undefined) merged[name] = value;
  const bytes = body instanceof Uint8Array ? body : encodeCanonical(body);
  const response = await fetch(new URL(path, app.url), { method: 'POST', headers: merged, body: bytes as BodyInit });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** Stops a server now: fetch keeps connections alive, which would hold `close()` for seconds. */
function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Opens the bench on `engine`.
 *
 * @param engine - PGlite or the PostgreSQL server.
 * @returns The bench; `close()` it in `afterAll`.
 */
export async function openAccountBench(engine: TestEngine): Promise<AccountBench> {
  const database = await openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
  const clock = new ManualClock(benchStart * 1000);
  const masterKey = randomBytes(32);
  const vendors = createSqlVendorStore(database.sql);
  const vendor = await vendors.createVendor({ vendorId: randomId(), name: 'Account bench', createdAt: new Date(clock.now()) });
  const product = await vendors.createProduct({ productId: randomId(), vendorId: vendor.vendorId, name: 'Bench app', createdAt: new Date(clock.now()) });
  const checks: PasswordCheck[] = [];
  const servers: Server[] = [];
  const logger = pino({ level: 'silent' });
  return {
    database,
    sql: database.sql,
    masterKey,
    clock,
    vendorId: vendor.vendorId,
    productId: product.productId,
    checks,
    async serve(options = {}) {
      const sessions = createAccountSessions({
        sql: database.sql,
        masterKey,
        clock,
        unknownAccountCost: cheapCost,
        verifyPassword: async (stored, password) => {
          const matched = await verifyAccountPassword(stored, password);
          checks.push({ stored, matched });
          return matched;
        },
        ...options,
      });
      const app = createLicenseApp({ client: accountSessionRoutes(sessions) }, logger);
      const server = await new Promise<Server>((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
      servers.push(server);
      const { port } = server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        sessions,
        close: () => stopServer(server),
      };
    },
    async createAccount(email, password) {
      const passwordHash = await hashAccountPassword(password, { cost: cheapCost });
      const outcome = await createSqlAccountStore(database.sql).create({
        accountId: randomId(),
        vendorId: vendor.vendorId,
        productId: product.productId,
        email,
        passwordHash,
        maxDevices: 5,
        createdAt: new Date(clock.now()),
      });
      if (outcome.kind !== 'created') throw new Error(`creating an account: ${outcome.kind}`);
      return { accountId: outcome.account.accountId, passwordHash };
    },
    async close() {
      await Promise.all(servers.map(stopServer));
      await database.close();
    },
  };
}
