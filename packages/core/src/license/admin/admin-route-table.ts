import canonicalize from 'canonicalize';
import { hmacSha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';
import { AdminError } from '../../errors/admin';
import { renderAdminError } from '../../errors/render';
import { defineRoutes } from '../../http/routes';
import type { HttpRequest, HttpResponse, Middleware, Route, RouteTable } from '../../http/types';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { assertAdminJson } from './admin-input';
import { adminTokenHash, isWellFormedAdminToken } from './admin-token';
import type { AdminTokenStore } from './admin-token-store';
import { adminBodyLimit, type AdminActor, type AdminCall, type AdminOperation, type AdminResult } from './admin-operation';
import type { AuditLog } from './audit/audit-log';
import type { IdempotencyJournal } from './idempotency-journal';
import { scopeSatisfied } from './scopes';

/** What the Admin route table needs. */
export interface AdminRouteTableDeps {
  readonly sql: SqlClient;
  readonly tokens: AdminTokenStore;
  readonly journal: IdempotencyJournal;
  readonly audit: AuditLog;
  readonly clock: Clock;
  /** `deriveLicenseAdminKeys(masterKey).tokenHash`. */
  readonly tokenHashKey: Uint8Array;
  /** `deriveLicenseAdminKeys(masterKey).requestFingerprint`: keys the journal's request fingerprints. */
  readonly fingerprintKey: Uint8Array;
  /** `ADMIN_TOKEN_PREFIX`. */
  readonly tokenPrefix: string;
  /** `ADMIN_REALM`, sent in `WWW-Authenticate: Bearer realm="…"`. */
  readonly realm: string;
  /** Called with every error that is not an expected refusal (it is answered `internal_error`). */
  readonly onUnexpectedError?: (error: unknown) => void;
}

/** Where the Admin API lives. */
export const adminPathPrefix = '/v1/admin';

const bearerPattern = /^Bearer +(\S+) *$/i;
const idempotencyKeyPattern = /^[\x21-\x7e]{1,128}$/;
const noStore = { 'cache-control': 'no-store' };

/**
 * Builds the Admin API's route table from its operations. Every route gets, in order: bearer
 * authentication (401 `invalid_token` with `WWW-Authenticate`), the scope check (403
 * `insufficient_scope`), the JSON body under its cap (413), `dry_run` for destructive operations
 * (default `true`; only `true`/`false`), `Idempotency-Key` for confirmed mutations (journaled: replays
 * verbatim, 409 on a different request; a replay is answered before the operation's `prepare` runs), at
 * least one audit event per confirmed mutation (one that appends none is rolled back and answered 500
 * `internal_error`), and the `{ ok: true, … }` envelope. Every answer, error or not, carries
 * `Cache-Control: no-store` and no CORS headers; anything unexpected is a 500 `internal_error` without
 * internals.
 *
 * @param operations - Every operation of the API.
 * @param deps - Database, stores, clock, token settings.
 * @returns The route table (paths under `/v1/admin`).
 * @example
 * ```ts
 * import { createAdminRouteTable } from '@tollgate/core';
 * const table = createAdminRouteTable([...productOperations(deps)], { sql, tokens, journal, audit, clock, tokenHashKey, tokenPrefix: 'tgla_', realm: 'tollgate-license' });
 * ```
 */
export function createAdminRouteTable(operations: readonly AdminOperation[], deps: AdminRouteTableDeps): RouteTable {
  const actors = new WeakMap<object, AdminActor>();
  const challenge = { 'www-authenticate': `Bearer realm="${deps.realm.replace(/["\\]/g, '')}"` };
  const invalidToken = (message: string) => new AdminError('invalid_token', message, { headers: challenge });

  async function authenticate(request: HttpRequest): Promise<AdminActor> {
    const header = request.headers['authorization'];
    if (header === undefined) throw invalidToken('This endpoint needs Authorization: Bearer <Admin token>.');
    const token = bearerPattern.exec(header)?.[1];
    if (token === undefined || !isWellFormedAdminToken(token, deps.tokenPrefix)) throw invalidToken('The Authorization header must be "Bearer <Admin token>" with a well-formed token.');
    const lookup = await deps.tokens.authenticate(adminTokenHash(deps.tokenHashKey, token), new Date(deps.clock.now()));
    if (lookup.kind !== 'valid') throw invalidToken(lookup.kind === 'expired' ? 'The Admin token has expired.' : 'The Admin token is not valid.');
    return { tokenId: lookup.token.tokenId, vendorId: lookup.token.vendorId, scopes: lookup.token.scopes };
  }

  const toRoute = (operation: AdminOperation): Route => {
    const guard: Middleware = async (request, next) => {
      const actor = await authenticate(request);
      const missing = operation.scopes.filter((scope) => !scopeSatisfied(actor.scopes, scope));
      if (missing.length > 0) throw new AdminError('insufficient_scope', `This operation needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
      actors.set(request.headers, actor);
      return next();
    };
    const maxBytes = operation.maxBodyBytes ?? (operation.method === 'GET' ? 0 : adminBodyLimit);
    return {
      method: operation.method,
      path: `${adminPathPrefix}${operation.path}`,
      middleware: [guard],
      ...(maxBytes > 0 ? { body: { type: 'json' as const, maxBytes, optional: true } } : {}),
      handler: async (request) => {
        const actor = actors.get(request.headers) ?? (await authenticate(request));
        return execute(operation, request, actor);
      },
    };
  };

  async function execute(operation: AdminOperation, request: HttpRequest, actor: AdminActor): Promise<HttpResponse> {
    assertAdminJson(request.body, request.query);
    const { query, dryRun } = readDryRun(operation, request.query);
    const now = new Date(deps.clock.now());
    const requestCall = { params: request.params, query, body: request.body, actor, now, dryRun };
    // Before any transaction: see AdminOperation.prepare.
    const prepare = async () => ({ ...requestCall, prepared: operation.prepare === undefined ? undefined : await operation.prepare(requestCall) });
    if (operation.kind === 'read' || dryRun) {
      const call: AdminCall = { ...(await prepare()), sql: deps.sql, audit: () => Promise.reject(new Error(`${operation.method} ${operation.path} wrote an audit event outside a mutation`)) };
      return envelope(await operation.run(call), false);
    }
    const key = request.headers['idempotency-key'];
    if (key === undefined || !idempotencyKeyPattern.test(key)) {
      throw new AdminError('invalid_request', 'Confirmed mutations need an Idempotency-Key header of 1 to 128 printable ASCII characters.');
    }
    const fingerprint = hmacSha256(deps.fingerprintKey, utf8Encode(canonicalize({ method: request.method, route: operation.path, params: request.params, query: request.query, body: request.body ?? null }) ?? ''));
    const journaled = { vendorId: actor.vendorId, key, fingerprint, now };
    // A replay must not pay for `prepare` (a password KDF) again, so a stored answer is looked for first.
    // Only then: for other operations `run` below finds it in the same transaction without this read.
    if (operation.prepare !== undefined) {
      const stored = await deps.journal.lookup(journaled);
      if (stored.kind === 'replay') return { status: stored.answer.status, headers: { ...noStore, 'idempotent-replayed': 'true' }, body: stored.answer.body };
    }
    const baseCall = await prepare();
    const outcome = await deps.journal.run(
      journaled,
      async (tx) => {
        let audited = 0;
        const call: AdminCall = {
          ...baseCall,
          sql: tx,
          audit: async (event) => {
            await deps.audit.append(tx, { ...event, vendorId: actor.vendorId, actor: actor.tokenId }, now.getTime());
            audited += 1;
          },
        };
        const response = envelope(await operation.run(call), false);
        // Every confirmed mutation leaves an audit event. One that returns without it is a bug in the
        // operation, not a refusal: a plain Error rolls its effects back, journals nothing and answers
        // 500, so the gap shows up in tests instead of as a silent hole in the chain.
        if (audited === 0) throw new Error(`${operation.method} ${operation.path} completed a confirmed mutation but appended no audit event.`);
        return { status: response.status, body: response.body };
      },
      (error) => {
        const rendered = renderAdminError(error);
        return { status: rendered.status, body: rendered.body };
      },
    );
    return { status: outcome.answer.status, headers: outcome.replayed ? { ...noStore, 'idempotent-replayed': 'true' } : noStore, body: outcome.answer.body };
  }

  const noStoreEverywhere: Middleware = async (_request, next) => {
    const response = await next();
    return { ...response, headers: { ...response.headers, ...noStore } };
  };

  return defineRoutes({
    routes: operations.map(toRoute),
    middleware: [noStoreEverywhere],
    renderError: (error) => {
      if (!(error instanceof AdminError) && !isRequestRefusal(error)) deps.onUnexpectedError?.(error);
      return renderAdminError(error);
    },
  });
}

function envelope(result: AdminResult, replayed: boolean): HttpResponse {
  return { status: result.status ?? 200, headers: replayed ? { 'idempotent-replayed': 'true' } : {}, body: { ok: true, ...result.body } };
}

function readDryRun(operation: AdminOperation, query: Readonly<Record<string, string>>): { query: Record<string, string>; dryRun: boolean } {
  if (operation.kind !== 'destructive') return { query: { ...query }, dryRun: false };
  const { dry_run: flag, ...rest } = query;
  if (flag !== undefined && flag !== 'true' && flag !== 'false') throw new AdminError('invalid_request', 'dry_run must be true or false.');
  return { query: rest, dryRun: flag !== 'false' };
}

function isRequestRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'RequestError';
}
