/**
 * An Admin API test bench: a real license server on a real port (PGlite or the PostgreSQL server), two
 * bootstrapped vendors with all-scopes tokens, and a JSON `call` helper.
 */
import type { StartLicenseOptions } from '@tollgate/license-server';
import { bootstrapVendor, type SqlClient } from '@tollgate/core';
import { createAdminToken, type AdminScope, type BootstrappedVendor } from '@tollgate/core/license';
import type { TestEngine } from '@tollgate/core/testing';
import type { RunningLicenseServer } from '@tollgate/license-server';
import { openServerSandbox, type ServerSandbox } from '../helpers';

/** One answer of the Admin API, body parsed when it is JSON. */
export interface AdminAnswer {
  readonly status: number;
  readonly headers: Headers;
  // Tests read arbitrary fields of the answers they expect.
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly text: string;
}

/** Options of one {@link AdminHarness.call}. */
export interface AdminCallOptions {
  /** Bearer token; vendor A's all-scopes token by default, `null` for none. */
  readonly token?: string | null;
  /** JSON body (serialised). */
  readonly body?: unknown;
  /** A raw body string, sent as is with `content-type: application/json` (unless `headers` say otherwise). */
  readonly rawBody?: string;
  /** Idempotency-Key header. */
  readonly key?: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
}

/** The bench. */
export interface AdminHarness {
  readonly server: RunningLicenseServer;
  readonly sandbox: ServerSandbox;
  readonly url: string;
  readonly sql: SqlClient;
  readonly vendorA: BootstrappedVendor;
  readonly vendorB: BootstrappedVendor;
  /** Mints a token of `vendor` holding exactly `scopes`. */
  tokenWith(vendor: BootstrappedVendor, scopes: readonly AdminScope[], options?: { expiresAt?: Date }): Promise<string>;
  /** Calls `/v1/admin<path>`. */
  call(method: string, path: string, options?: AdminCallOptions): Promise<AdminAnswer>;
  close(): Promise<void>;
}

let keyCounter = 0;

/** A fresh Idempotency-Key. */
export function freshKey(): string {
  keyCounter += 1;
  return `test-${Date.now()}-${keyCounter}-${Math.random().toString(36).slice(2)}`;
}

/**
 * The JSON caller of `/v1/admin<path>` on the server at `serverUrl` ({@link AdminHarness.call}): bearer
 * `defaultToken` unless `options.token` says otherwise, the body parsed when the answer is JSON.
 *
 * @param serverUrl - The server's base URL.
 * @param defaultToken - The token of calls that name none.
 * @returns The caller.
 *
 * @example
 * ```ts
 * const call = adminCaller(server.url, vendorA.token);
 * const answer = await call('GET', '/epochs');
 * ```
 */
export function adminCaller(serverUrl: string, defaultToken: string): AdminHarness['call'] {
  return async (method, path, options = {}) => {
    const url = new URL(`/v1/admin${path}`, serverUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const token = options.token === undefined ? defaultToken : options.token;
    const headers: Record<string, string> = {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
    };
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, { method, headers: { ...headers, ...options.headers }, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const parsed: unknown = (response.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : undefined;
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}

/**
 * Starts a license server on `engine` and bootstraps vendors A and B.
 *
 * @param engine - PGlite or the PostgreSQL server.
 * @param extraEnv - More environment variables for the server.
 * @returns The bench; `close()` it in `afterAll`.
 */
export async function openAdminHarness(engine: TestEngine, extraEnv: Record<string, string> = {}, serverOptions: StartLicenseOptions = {}): Promise<AdminHarness> {
  const sandbox = await openServerSandbox(engine);
  const server = await sandbox.start(extraEnv, serverOptions);
  const provisioning = server.context.adminProvisioning;
  const vendorA = await bootstrapVendor(provisioning, { vendor: 'Vendor A', product: 'Product A' });
  const vendorB = await bootstrapVendor(provisioning, { vendor: 'Vendor B', product: 'Product B' });
  return {
    server,
    sandbox,
    url: server.url,
    sql: server.context.sql,
    vendorA,
    vendorB,
    async tokenWith(vendor, scopes, options = {}) {
      const minted = await createAdminToken(provisioning, { vendorId: vendor.vendorId, scopes, label: 'test', ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}) });
      return minted.token;
    },
    call: adminCaller(server.url, vendorA.token),
    close: () => sandbox.cleanup(),
  };
}
