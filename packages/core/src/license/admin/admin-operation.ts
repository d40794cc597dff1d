import type * as v from 'valibot';
import type { AdminErrorCode } from '../../errors/admin';
import type { HttpStreamBody } from '../../http/types';
import type { SqlClient } from '../../storage/sql-client';
import type { AuditEventInput } from './audit/audit-log';
import type { AdminScope } from './scopes';

/**
 * How an operation changes state, which decides what the kit asks of the request:
 * - `read`: no `Idempotency-Key`, runs on the database (also for POSTs that change nothing, like
 *   `POST /audit/verify` and `POST /catalog/resolve`);
 * - `mutation`: needs `Idempotency-Key`, runs once in the journal's transaction;
 * - `destructive`: `dry_run` defaults to `true` (runs like a read and must change nothing);
 *   `dry_run=false` confirms and then behaves like a `mutation`.
 */
export type AdminOperationKind = 'read' | 'mutation' | 'destructive';

/**
 * The authenticated caller: an Admin token of one vendor, or (on an operation with
 * {@link AdminOperation.alternativeAuth}) whoever that check admitted.
 */
export interface AdminActor {
  /** The Admin token id (32 hex), or the alternative caller's audit name (e.g. `oidc:github:owner/repo`, ≤ 128 characters). */
  readonly tokenId: string;
  readonly vendorId: string;
  readonly scopes: readonly AdminScope[];
  /** How the caller authenticated: `token` (an Admin token, the default) or `alternative`. */
  readonly via?: 'token' | 'alternative';
  /** What the alternative check established about the caller (e.g. the product an OIDC caller signs for). */
  readonly claims?: Readonly<Record<string, string>>;
}

/**
 * A second way into one operation for callers that hold no Admin token (a CI job's OIDC token on
 * `POST /integrity/sign`). It sees the bearer credential only when it is **not** a well-formed Admin
 * token (those are always checked as Admin tokens), and either admits the caller as an actor (whose
 * scopes are then checked like a token's) or refuses: `undefined` is answered 401 `invalid_token` like
 * an unknown token; an `AdminError` it throws is answered as is. Every operation without it stays
 * exactly as strict as before.
 */
export type AdminAlternativeAuth = (credential: string, request: { readonly headers: Readonly<Record<string, string>>; readonly now: Date }) => Promise<AdminActor | undefined>;

/** What the kit hands an operation's `run`. */
export interface AdminCall<Params extends Record<string, string> = Record<string, string>> {
  readonly params: Params;
  /** Decoded query parameters (`dry_run` already consumed for destructive operations). */
  readonly query: Readonly<Record<string, string>>;
  /**
   * The parsed JSON body (`undefined` when the route takes none or it was empty); validate it. With
   * `bodyFormat: 'raw'` it is the body's bytes (`Uint8Array`, never empty).
   */
  readonly body: unknown;
  readonly actor: AdminActor;
  /**
   * For a confirmed mutation: the transaction the journal row and the audit event commit in; every
   * write goes through it. For reads and dry runs: the database.
   */
  readonly sql: SqlClient;
  /**
   * The database outside any transaction. A streamed answer reads from it: the transaction of `sql`
   * ends when `run` returns, before the stream is sent.
   */
  readonly database: SqlClient;
  /** True for a destructive operation's dry run: report the impact, write nothing. */
  readonly dryRun: boolean;
  readonly now: Date;
  /**
   * Appends an audit event in `sql`'s transaction (the actor and vendor are the caller's). Refused in
   * reads and dry runs; a confirmed mutation must call it at least once before returning, or the kit
   * rolls it back and answers 500 `internal_error`.
   */
  audit(event: Omit<AuditEventInput, 'vendorId' | 'actor'>): Promise<void>;
  /** What the operation's `prepare` returned (`undefined` when it has none). */
  readonly prepared: unknown;
}

/** What an operation's `prepare` sees: the request and the caller, but no database. */
export type AdminPrepareCall<Params extends Record<string, string> = Record<string, string>> = Omit<AdminCall<Params>, 'sql' | 'database' | 'audit' | 'prepared'>;

/** A JSON answer: the kit adds `ok: true` to the body. */
export interface AdminJsonResult {
  readonly status?: number;
  readonly body?: Readonly<Record<string, unknown>>;
  readonly bytes?: never;
  readonly stream?: never;
}

/**
 * A raw answer instead of the JSON envelope (a signature): the bytes with their own content type and
 * headers. `Cache-Control: no-store` and `X-Content-Type-Options: nosniff` are always added.
 */
export interface AdminBytesResult {
  readonly status?: number;
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: never;
  readonly stream?: never;
}

/**
 * A streamed answer (an NDJSON or CSV export): chunks pulled with back-pressure, the producer released
 * (its iterator's `return()`, an async generator's `finally`) when the client disconnects or stalls. It
 * must read through `call.database`, never `call.sql`. A producer that throws mid-stream is reported
 * like any unexpected error and the connection is aborted, so the client sees a truncated body.
 */
export interface AdminStreamResult {
  readonly status?: number;
  readonly stream: HttpStreamBody;
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: never;
  readonly bytes?: never;
}

/** What an operation returns. Raw and streamed answers are for reads and dry runs only (a journaled replay holds JSON). */
export type AdminResult = AdminJsonResult | AdminBytesResult | AdminStreamResult;

/**
 * One Admin API operation as plain data: the route table, the scope matrix and the isolation matrix are
 * all generated from these, so a new operation cannot skip authentication, scope or vendor checks.
 *
 * Path parameters name their target kind (`:licenseId`, `:machineId`, `:policyId`, `:productId`, …): the
 * isolation matrix seeds another vendor's target for each name.
 */
export interface AdminOperation<Path extends string = string> {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under `/v1/admin`, e.g. `/licenses/:licenseId`. */
  readonly path: Path;
  /** Every scope the token needs (each satisfied by itself or, for `x:r`, by `x:rw`). */
  readonly scopes: readonly AdminScope[];
  readonly kind: AdminOperationKind;
  /** Body cap in bytes; 256 KiB by default, 4 KiB for revoke routes. `0`: the route takes no body. */
  readonly maxBodyBytes?: number;
  /**
   * `'json'` (the default) or `'raw'`: the body is required, read as bytes under `maxBodyBytes` and handed
   * to `run` as a `Uint8Array` (415 for another content type than `rawContentTypes`).
   */
  readonly bodyFormat?: 'json' | 'raw';
  /** Media types a raw body may be sent as (default `application/octet-stream`). */
  readonly rawContentTypes?: readonly string[];
  /**
   * Only for `read` operations that must leave a trace although they change nothing (signing): `run`
   * gets a transaction and must append at least one audit event, which commits with nothing else. No
   * `Idempotency-Key` is asked: each call is its own audited event.
   */
  readonly audited?: boolean;
  /** A second way in besides an Admin token; see {@link AdminAlternativeAuth}. */
  readonly alternativeAuth?: AdminAlternativeAuth;
  /**
   * Slow work without effects that must not hold a transaction (a password KDF): it runs before the
   * journal opens its transaction, so no connection or lock waits for it, and its result reaches `run`
   * as `call.prepared`. What it throws is answered without being journaled. A replay of an answer
   * already in the journal is answered before `prepare`, so the slow work is not repeated; a twin that
   * arrives while the first request is still running does run it, and then replays that answer.
   */
  prepare?(call: AdminPrepareCall): Promise<unknown>;
  run(call: AdminCall): Promise<AdminResult>;
  /** What the OpenAPI document says about it; every operation of the server has one (a test checks). */
  readonly docs?: AdminOperationDocs;
}

/**
 * What the OpenAPI document says about an operation (`GET /v1/admin/openapi.json`,
 * docs/openapi/license-admin.json). The schemas are THE objects `run` parses with, never copies, so the
 * document cannot drift from what the server accepts.
 */
export interface AdminOperationDocs {
  /** One line: what the call does. */
  readonly summary: string;
  readonly description?: string;
  /** The query schema(s) `run` parses `call.query` with (object schemas; their properties are merged). */
  readonly query?: v.GenericSchema | readonly v.GenericSchema[];
  /** The JSON body schema `run` parses `call.body` with (not for `bodyFormat: 'raw'`). */
  readonly body?: v.GenericSchema;
  /** The success status `run` answers with (201 for a creation); 200 by default. */
  readonly status?: 200 | 201 | 202;
  /** The answer's body (the kit adds `ok: true`); a generic object when absent. */
  readonly response?: v.GenericSchema;
  /** Takes `limit` and `cursor` (`parseAdminPage`) besides `query`. */
  readonly paged?: boolean;
  /**
   * The domain refusals it may answer (`already_revoked`, `policy_exists`, …). Those every operation of
   * its shape can answer (`invalid_token`, `insufficient_scope`, `invalid_request`, `not_found` with a
   * path parameter, `idempotency_conflict`, the body refusals) are added by the generator.
   */
  readonly errors?: readonly AdminErrorCode[];
  /** The media type of a raw or streamed answer (`application/x-ndjson`), instead of the JSON envelope. */
  readonly responseMediaType?: string;
}

/** The Admin API's JSON body cap (license spec, "Limits"). */
export const adminBodyLimit = 256 * 1024;

/** The body cap of revoke routes (license spec, "Limits"). */
export const adminRevokeBodyLimit = 4 * 1024;

/**
 * Declares an operation with its path parameters typed from the path.
 *
 * @param operation - The operation; returned unchanged.
 * @returns The same operation, typed for a list of operations.
 * @example
 * ```ts
 * import { adminOperation } from '@tollgate/core/license';
 * const getLicense = adminOperation({ method: 'GET', path: '/licenses/:licenseId', scopes: ['licenses:rw'], kind: 'read',
 *   run: async (call) => ({ body: { license: { id: call.params.licenseId } } }) });
 * ```
 */
export function adminOperation<const Path extends string, Prepared = undefined>(
  operation: Omit<AdminOperation<Path>, 'run' | 'prepare'> & {
    prepare?(call: AdminPrepareCall<RouteParams<Path>>): Promise<Prepared>;
    run(call: AdminCall<RouteParams<Path>> & { readonly prepared: Prepared }): Promise<AdminResult>;
  },
): AdminOperation {
  return operation as unknown as AdminOperation;
}

/** The params object of a path like `/licenses/:licenseId/machines`. */
export type RouteParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & RouteParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;
