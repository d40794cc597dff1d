import canonicalize from 'canonicalize';
import { hmacSha256, sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { randomId } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import { AdminError } from '../../errors/admin';
import { renderAdminError } from '../../errors/render';
import { defineRoutes } from '../../http/routes';
import type { BodySpec, HttpRequest, HttpResponse, HttpStreamBody, Middleware, Route, RouteTable } from '../../http/types';
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
  /**
   * Called with every error that is not an expected refusal (it is answered `internal_error`), and the
   * request id of the answer it spoiled (also sent as `X-Request-Id`) so the log line can be found.
   */
  readonly onUnexpectedError?: (error: unknown, context?: { readonly requestId: string | undefined }) => void;
}

/** Where the Admin API lives. */
export const adminPathPrefix = '/v1/admin';

const bearerPattern = /^Bearer +(\S+) *$/i;
const idempotencyKeyPattern = /^[\x21-\x7e]{1,128}$/;
const noStore = { 'cache-control': 'no-store' };
/** A client-sent `X-Request-Id` is echoed only when it is this harmless (no header or log injection, bounded). */
const clientRequestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Builds the Admin API's route table from its operations. Every route gets, in order: bearer
 * authentication (401 `invalid_token` with `WWW-Authenticate`), the scope check (403
 * `insufficient_scope`), the JSON body under its cap (413), `dry_run` for destructive operations
 * (default `true`; only `true`/`false`), `Idempotency-Key` for confirmed mutations (journaled per vendor and key: replays
 * verbatim to the same token, 409 on a different request or another token reusing the key; a replay is
 * answered before the operation's `prepare` runs), at
 * least one audit event per confirmed mutation (one that appends none is rolled back and answered 500
 * `internal_error`), and the `{ ok: true, … }` envelope. Every answer, error or not, carries
 * `Cache-Control: no-store`, an `X-Request-Id` (the client's, when 1 to 64 of `[A-Za-z0-9._-]`, else a
 * fresh one; unexpected errors are reported with it) and no CORS headers; anything unexpected is a 500
 * `internal_error` without internals.
 *
 * Per operation (see {@link AdminOperation}): `bodyFormat: 'raw'` takes the body as bytes under
 * `maxBodyBytes`; a result with `bytes` or `stream` answers raw or streamed instead of the envelope
 * (reads and dry runs only); `audited` reads run in a transaction with their audit events; and
 * `alternativeAuth` admits callers without an Admin token on that operation alone.
 *
 * @param operations - Every operation of the API.
 * @param deps - Database, stores, clock, token settings.
 * @returns The route table (paths under `/v1/admin`).
 * @example
 * ```ts
 * import { createAdminRouteTable } from '@tollgate/core/license';
 * const table = createAdminRouteTable([...productOperations(deps)], { sql, tokens, journal, audit, clock, tokenHashKey, tokenPrefix: 'tgla_', realm: 'tollgate-license' });
 * ```
 */
export function createAdminRouteTable(operations: readonly AdminOperation[], deps: AdminRouteTableDeps): RouteTable {
  const actors = new WeakMap<object, AdminActor>();
  // Keyed by `request.headers`, the one object the engine hands unchanged to middleware and handler.
  const requestIds = new WeakMap<object, string>();
  // A thrown error → the request it failed, for the report `renderError` makes (it sees only the error).
  const failedRequestIds = new WeakMap<object, string>();
  const withRequestId = (request: HttpRequest, error: unknown): unknown => {
    const requestId = requestIds.get(request.headers);
    if (typeof error === 'object' && error !== null && requestId !== undefined) failedRequestIds.set(error, requestId);
    return error;
  };
  const challenge = { 'www-authenticate': `Bearer realm="${deps.realm.replace(/["\\]/g, '')}"` };
  const invalidToken = (message: string) => new AdminError('invalid_token', message, { headers: challenge });

  async function authenticate(request: HttpRequest, operation: AdminOperation): Promise<AdminActor> {
    const header = request.headers['authorization'];
    if (header === undefined) throw invalidToken('This endpoint needs Authorization: Bearer <Admin token>.');
    const token = bearerPattern.exec(header)?.[1];
    if (token !== undefined && isWellFormedAdminToken(token, deps.tokenPrefix)) {
      const lookup = await deps.tokens.authenticate(adminTokenHash(deps.tokenHashKey, token), new Date(deps.clock.now()));
      if (lookup.kind !== 'valid') throw invalidToken(lookup.kind === 'expired' ? 'The Admin token has expired.' : 'The Admin token is not valid.');
      return { tokenId: lookup.token.tokenId, vendorId: lookup.token.vendorId, scopes: lookup.token.scopes, via: 'token' };
    }
    // Only what cannot be an Admin token reaches the alternative, and only on the operation that has one.
    if (token !== undefined && operation.alternativeAuth !== undefined) {
      const admitted = await operation.alternativeAuth(token, { headers: request.headers, now: new Date(deps.clock.now()) });
      if (admitted === undefined) throw invalidToken('The bearer credential is neither a valid Admin token nor an accepted credential of this operation.');
      if (admitted.tokenId.length < 1 || admitted.tokenId.length > 128) throw new Error(`${operation.method} ${operation.path}: an alternative actor needs a name of 1 to 128 characters`);
      return { ...admitted, via: 'alternative' };
    }
    throw invalidToken('The Authorization header must be "Bearer <Admin token>" with a well-formed token.');
  }

  const toRoute = (operation: AdminOperation): Route => {
    const guard: Middleware = async (request, next) => {
      let actor: AdminActor;
      try {
        actor = await authenticate(request, operation);
      } catch (error) {
        throw withRequestId(request, error);
      }
      const missing = operation.scopes.filter((scope) => !scopeSatisfied(actor.scopes, scope));
      if (missing.length > 0) throw new AdminError('insufficient_scope', `This operation needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
      actors.set(request.headers, actor);
      return next();
    };
    return {
      method: operation.method,
      path: `${adminPathPrefix}${operation.path}`,
      middleware: [guard],
      ...bodySpecOf(operation),
      handler: async (request) => {
        try {
          const actor = actors.get(request.headers) ?? (await authenticate(request, operation));
          return await execute(operation, request, actor);
        } catch (error) {
          throw withRequestId(request, error);
        }
      },
    };
  };

  /** The answer of a result: the envelope, or raw bytes, or a stream whose failures are reported. */
  function answerOf(operation: AdminOperation, result: AdminResult, request: HttpRequest): HttpResponse {
    if (result.bytes !== undefined) return { status: result.status ?? 200, headers: rawHeaders(result.headers, result.contentType), body: result.bytes };
    if (result.stream !== undefined) return { status: result.status ?? 200, headers: rawHeaders(result.headers, result.contentType), body: reported(result.stream, operation, requestIds.get(request.headers)) };
    return envelope(result, false);
  }

  /** Passes the stream through, reporting a producer's failure before the adapter aborts the connection. */
  async function* reported(stream: HttpStreamBody, operation: AdminOperation, requestId: string | undefined): HttpStreamBody {
    try {
      yield* stream;
    } catch (error) {
      deps.onUnexpectedError?.(new Error(`${operation.method} ${operation.path}: the streamed answer failed`, { cause: error }), { requestId });
      throw error;
    }
  }

  async function execute(operation: AdminOperation, request: HttpRequest, actor: AdminActor): Promise<HttpResponse> {
    const raw = operation.bodyFormat === 'raw';
    // A raw body is opaque bytes: only its query is checked here (the operation validates the bytes).
    assertAdminJson(raw ? undefined : request.body, request.query);
    const { query, dryRun } = readDryRun(operation, request.query);
    const now = new Date(deps.clock.now());
    const requestCall = { params: request.params, query, body: request.body, actor, now, dryRun };
    // Before any transaction: see AdminOperation.prepare.
    const prepare = async () => ({ ...requestCall, database: deps.sql, prepared: operation.prepare === undefined ? undefined : await operation.prepare(requestCall) });
    if (operation.kind === 'read' && operation.audited === true) return answerOf(operation, await runAudited(operation, await prepare(), actor, now), request);
    if (operation.kind === 'read' || dryRun) {
      const call: AdminCall = { ...(await prepare()), sql: deps.sql, audit: () => Promise.reject(new Error(`${operation.method} ${operation.path} wrote an audit event outside a mutation`)) };
      return answerOf(operation, await operation.run(call), request);
    }
    const key = request.headers['idempotency-key'];
    if (key === undefined || !idempotencyKeyPattern.test(key)) {
      throw new AdminError('invalid_request', 'Confirmed mutations need an Idempotency-Key header of 1 to 128 printable ASCII characters.');
    }
    // A raw body is fingerprinted by its digest (canonicalize would spell a Uint8Array key by key).
    const fingerprintedBody = raw && request.body instanceof Uint8Array ? { sha256: hexEncode(sha256(request.body)) } : (request.body ?? null);
    // The actor is part of the request: a key is answered only to the credential that first used it. A
    // second token reusing it gets 409 instead of another token's stored answer (plaintext license keys
    // of an issuance, or a first actor's `approval_pending` passed off as a second approval). A
    // per-token journal would instead run the request again for a rotated token retrying it: twice.
    const fingerprint = hmacSha256(
      deps.fingerprintKey,
      utf8Encode(canonicalize({ method: request.method, route: operation.path, params: request.params, query: request.query, body: fingerprintedBody, actor: { via: actor.via, id: actor.tokenId } }) ?? ''),
    );
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
        const result = await operation.run(call);
        // A journaled answer is replayed as JSON: raw and streamed answers belong to reads and dry runs.
        if (result.bytes !== undefined || result.stream !== undefined) throw new Error(`${operation.method} ${operation.path} answered a confirmed mutation with raw bytes or a stream`);
        const response = envelope(result, false);
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

  /** An audited read: its audit events commit in one transaction of their own, or it fails whole. */
  async function runAudited(operation: AdminOperation, baseCall: Omit<AdminCall, 'sql' | 'audit'>, actor: AdminActor, now: Date): Promise<AdminResult> {
    return deps.sql.transaction(async (tx) => {
      let audited = 0;
      const call: AdminCall = {
        ...baseCall,
        sql: tx,
        audit: async (event) => {
          await deps.audit.append(tx, { ...event, vendorId: actor.vendorId, actor: actor.tokenId }, now.getTime());
          audited += 1;
        },
      };
      const result = await operation.run(call);
      if (audited === 0) throw new Error(`${operation.method} ${operation.path} is an audited read but appended no audit event.`);
      return result;
    });
  }

  const noStoreAndRequestId: Middleware = async (request, next) => {
    const sent = request.headers['x-request-id'];
    const requestId = sent !== undefined && clientRequestIdPattern.test(sent) ? sent : randomId();
    requestIds.set(request.headers, requestId);
    const response = await next();
    return { ...response, headers: { ...response.headers, ...noStore, 'x-request-id': requestId } };
  };

  return defineRoutes({
    routes: operations.map(toRoute),
    middleware: [noStoreAndRequestId],
    renderError: (error) => {
      if (!(error instanceof AdminError) && !isRequestRefusal(error)) deps.onUnexpectedError?.(error, { requestId: typeof error === 'object' && error !== null ? failedRequestIds.get(error) : undefined });
      return renderAdminError(error);
    },
  });
}

function bodySpecOf(operation: AdminOperation): { body?: BodySpec } {
  const maxBytes = operation.maxBodyBytes ?? (operation.method === 'GET' ? 0 : adminBodyLimit);
  if (operation.bodyFormat === 'raw') {
    if (maxBytes <= 0) throw new TypeError(`${operation.method} ${operation.path}: a raw body needs a positive maxBodyBytes`);
    return { body: { type: 'raw', maxBytes, contentTypes: operation.rawContentTypes ?? ['application/octet-stream'] } };
  }
  return maxBytes > 0 ? { body: { type: 'json', maxBytes, optional: true } } : {};
}

function rawHeaders(headers: Readonly<Record<string, string>> | undefined, contentType: string): Record<string, string> {
  // nosniff: an operator's browser must never render returned bytes as a page.
  return { ...headers, 'content-type': contentType, 'x-content-type-options': 'nosniff' };
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
