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

/** The authenticated caller: an Admin token of one vendor. */
export interface AdminActor {
  readonly tokenId: string;
  readonly vendorId: string;
  readonly scopes: readonly AdminScope[];
}

/** What the kit hands an operation's `run`. */
export interface AdminCall<Params extends Record<string, string> = Record<string, string>> {
  readonly params: Params;
  /** Decoded query parameters (`dry_run` already consumed for destructive operations). */
  readonly query: Readonly<Record<string, string>>;
  /** The parsed JSON body (`undefined` when the route takes none or it was empty); validate it. */
  readonly body: unknown;
  readonly actor: AdminActor;
  /**
   * For a confirmed mutation: the transaction the journal row and the audit event commit in; every
   * write goes through it. For reads and dry runs: the database.
   */
  readonly sql: SqlClient;
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
export type AdminPrepareCall<Params extends Record<string, string> = Record<string, string>> = Omit<AdminCall<Params>, 'sql' | 'audit' | 'prepared'>;

/** What an operation returns: the kit adds `ok: true` to the body. */
export interface AdminResult {
  readonly status?: number;
  readonly body?: Readonly<Record<string, unknown>>;
}

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
  /** JSON body cap in bytes; 256 KiB by default, 4 KiB for revoke routes. `0`: the route takes no body. */
  readonly maxBodyBytes?: number;
  /**
   * Slow work without effects that must not hold a transaction (a password KDF): it runs before the
   * journal opens its transaction, so no connection or lock waits for it, and its result reaches `run`
   * as `call.prepared`. What it throws is answered without being journaled. A replay of an answer
   * already in the journal is answered before `prepare`, so the slow work is not repeated; a twin that
   * arrives while the first request is still running does run it, and then replays that answer.
   */
  prepare?(call: AdminPrepareCall): Promise<unknown>;
  run(call: AdminCall): Promise<AdminResult>;
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
 * import { adminOperation } from '@tollgate/core';
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
