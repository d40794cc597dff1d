import { constantTimeEqual } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';

/** The routes whose answers are kept by Idempotency-Key. */
export type IdempotentClientRoute = 'activate' | 'deactivate' | 'offline';

/** Where one idempotent request is filed: its route, its device scope and its key digest. */
export interface ClientIdempotencySlot {
  readonly route: IdempotentClientRoute;
  /** The device public key (activate, offline) or the machine id bytes (deactivate). */
  readonly scope: Uint8Array;
  readonly keyHash: Uint8Array;
  /** SHA-256 of the canonical request. */
  readonly requestDigest: Uint8Array;
}

/** What an earlier request under the same slot left: nothing, the same request's answer, or another request. */
export type ClientIdempotencyLookup =
  | { readonly kind: 'none' }
  | { readonly kind: 'replay'; readonly status: number; readonly body: Uint8Array }
  | { readonly kind: 'conflict' };

/**
 * Looks an idempotent request up: an unexpired answer of the same request is replayed byte for byte;
 * one of another request under the same key is a conflict (the route answers 1000 with 409).
 *
 * @param sql - The database or a transaction.
 * @param slot - The request's slot.
 * @param now - The time of the request.
 * @returns The lookup.
 * @example
 * ```ts
 * import { lookupClientIdempotency } from '@tollgate/core/license';
 * const found = await lookupClientIdempotency(sql, slot, now);
 * ```
 */
export async function lookupClientIdempotency(sql: SqlClient, slot: ClientIdempotencySlot, now: Date): Promise<ClientIdempotencyLookup> {
  const { rows } = await sql.query<{ request_digest: Uint8Array; status: number; body: Uint8Array }>(
    'SELECT request_digest, status, body FROM license_client_idempotency WHERE route = $1 AND scope = $2 AND key_hash = $3 AND expires_at > $4',
    [slot.route, slot.scope, slot.keyHash, now],
  );
  const row = rows[0];
  if (row === undefined) return { kind: 'none' };
  return constantTimeEqual(row.request_digest, slot.requestDigest) ? { kind: 'replay', status: Number(row.status), body: row.body } : { kind: 'conflict' };
}

/**
 * Serialises twins of one idempotent request: a transaction-scoped advisory lock on the slot, so a
 * second request with the same key waits for the first to commit and then finds its answer.
 *
 * @param tx - A transaction.
 * @param slot - The request's slot.
 * @example
 * ```ts
 * import { lockClientIdempotencySlot } from '@tollgate/core/license';
 * await sql.transaction(async (tx) => { await lockClientIdempotencySlot(tx, slot); … });
 * ```
 */
export async function lockClientIdempotencySlot(tx: SqlClient, slot: ClientIdempotencySlot): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || encode($2::bytea, 'hex') || ':' || encode($3::bytea, 'hex'), 7341))`, [
    slot.route,
    slot.scope,
    slot.keyHash,
  ]);
}

/**
 * Files the answer of an idempotent request, in the transaction that made its effects.
 *
 * @param tx - The transaction.
 * @param slot - The request's slot.
 * @param answer - The machine it concerns and the answer bytes.
 * @param times - Now and when the answer stops being replayed.
 * @example
 * ```ts
 * import { storeClientIdempotency } from '@tollgate/core/license';
 * await storeClientIdempotency(tx, slot, { machineId, status: 200, body }, { now, expiresAt });
 * ```
 */
export async function storeClientIdempotency(
  tx: SqlClient,
  slot: ClientIdempotencySlot,
  answer: { machineId: string; status: number; body: Uint8Array },
  times: { now: Date; expiresAt: Date },
): Promise<void> {
  // An expired row of the same slot is replaced: its key is free again.
  await tx.query(
    `INSERT INTO license_client_idempotency (route, scope, key_hash, request_digest, machine_id, status, body, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (route, scope, key_hash) DO UPDATE SET request_digest = EXCLUDED.request_digest, machine_id = EXCLUDED.machine_id,
       status = EXCLUDED.status, body = EXCLUDED.body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
     WHERE license_client_idempotency.expires_at <= EXCLUDED.created_at`,
    [slot.route, slot.scope, slot.keyHash, slot.requestDigest, answer.machineId, answer.status, answer.body, times.now, times.expiresAt],
  );
}

/**
 * Spends a nonce: `true` when it was fresh (and is now recorded), `false` when this scope used it
 * before (a replay: the caller refuses with 1000). One statement, so of concurrent uses exactly one wins.
 *
 * @param sql - The database or a transaction.
 * @param scope - The machine id or device key bytes.
 * @param nonce - The request's 32-byte nonce.
 * @param expiresAt - When the record may be purged.
 * @returns Whether the nonce was fresh.
 * @example
 * ```ts
 * import { spendClientNonce } from '@tollgate/core/license';
 * if (!(await spendClientNonce(sql, machineIdBytes, request.nonce, expiresAt))) throw refusedCredential();
 * ```
 */
export async function spendClientNonce(sql: SqlClient, scope: Uint8Array, nonce: Uint8Array, expiresAt: Date): Promise<boolean> {
  const { rowCount } = await sql.query('INSERT INTO license_client_nonces (scope, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [scope, nonce, expiresAt]);
  return rowCount === 1;
}

/**
 * Deletes expired nonces, idempotency answers and offline archives (a purge job runs it). A purged
 * nonce no longer refuses its request: replay protection lasts the nonce retention (docs/decisions.md,
 * "Replay protection lasts as long as the nonce retention"). Bounded per call.
 *
 * @param sql - The database.
 * @param now - The purge time.
 * @param limit - Most rows per table per call.
 * @returns Rows deleted.
 * @example
 * ```ts
 * import { purgeClientProtocolRecords } from '@tollgate/core/license';
 * const deleted = await purgeClientProtocolRecords(sql, new Date());
 * ```
 */
export async function purgeClientProtocolRecords(sql: SqlClient, now: Date, limit = 10_000): Promise<number> {
  let deleted = 0;
  for (const [table, key] of [
    ['license_client_nonces', 'scope, nonce'],
    ['license_client_idempotency', 'route, scope, key_hash'],
    ['license_offline_responses', 'license_id, nonce'],
  ] as const) {
    const { rowCount } = await sql.query(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE expires_at <= $1 LIMIT $2)`, [now, limit]);
    deleted += rowCount;
  }
  return deleted;
}
