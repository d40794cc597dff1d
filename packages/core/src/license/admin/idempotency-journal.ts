import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { constantTimeEqual } from '../../crypto/constant-time';
import { hexEncode } from '../../crypto/hex';
import { randomBytes } from '../../crypto/random';
import { utf8Decode, utf8Encode } from '../../crypto/utf8';
import { AdminError, transientAdminErrorCodes } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';

/** An answer as the journal keeps it: the HTTP status and the JSON body, replayed verbatim. */
export interface JournaledAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One keyed request. */
export interface JournaledRequest {
  readonly vendorId: string;
  /** The `Idempotency-Key` header (validated by the caller). */
  readonly key: string;
  /**
   * Keyed hash of the canonical request (method, path, query, canonical JSON body, and the acting token):
   * with the actor in it, another token reusing the key is a conflict, never a replay of this answer.
   */
  readonly fingerprint: Uint8Array;
  readonly now: Date;
}

/** What {@link IdempotencyJournal.run} returns. */
export interface JournalOutcome {
  readonly answer: JournaledAnswer;
  /** True when the answer is a replay of an earlier execution. */
  readonly replayed: boolean;
}

/** What {@link IdempotencyJournal.lookup} found under a request's key. */
export type JournalLookup =
  /** No unexpired answer has committed under the key (a first request may still be running). */
  | { readonly kind: 'none' }
  /** The stored answer of this same request (equal fingerprint), to be replayed verbatim. */
  | { readonly kind: 'replay'; readonly answer: JournaledAnswer }
  /** The key holds the answer of a different request: `run` refuses it with `idempotency_conflict`. */
  | { readonly kind: 'conflict' };

/**
 * The idempotency journal of confirmed Admin mutations (Stripe's contract).
 *
 * Contract, per (vendor, key):
 * - The first request runs `execute` **inside one transaction** with the journal row: the effect and its
 *   answer commit together or not at all, so a crash leaves the key unused and a retry runs it again.
 * - A later request with the same fingerprint gets the stored answer verbatim without running anything;
 *   with a different fingerprint, `idempotency_conflict` (409).
 * - Concurrent requests with one key queue on a transaction-scoped lock: exactly one executes, the others
 *   then see its committed row and replay it.
 * - An `AdminError` thrown by `execute` after its checks began is journaled as its answer (the effect is
 *   rolled back to a savepoint first), so a retry reports the same refusal; a transient refusal
 *   (`transientAdminErrorCodes`, e.g. `revocation_in_progress`), a 5xx and any other error roll back
 *   everything and journal nothing.
 * - Rows are kept for `retentionMs` (24 h by default) and then forgotten: the key may be used again.
 */
export interface IdempotencyJournal {
  run(request: JournaledRequest, execute: (tx: SqlClient) => Promise<JournaledAnswer>, render: (error: AdminError) => JournaledAnswer): Promise<JournalOutcome>;
  /**
   * Reads what is committed under the request's (vendor, key), unexpired at `request.now`, without
   * taking the key's lock or running anything: lets a caller skip slow work before `run` when the answer
   * is already stored. `none` and `conflict` decide nothing: `run` stays the authority (a twin may
   * commit in between, and `run` reports the conflict).
   */
  lookup(request: JournaledRequest): Promise<JournalLookup>;
  /** Deletes rows past their retention; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

/** How long a key and its answer are kept. */
export const defaultIdempotencyRetentionMs = 24 * 60 * 60 * 1000;

const nonceBytes = 24;

type JournalRow = { fingerprint: Uint8Array; status: number; sealed_answer: Uint8Array };

/**
 * The SQL {@link IdempotencyJournal} over `license_idempotency` (license migration 003). Answers are sealed
 * with XChaCha20-Poly1305 under `sealKey`, bound to their vendor and key, because an issuance answer holds
 * plaintext license keys.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @param options - The sealing key (`deriveLicenseAdminKeys(masterKey).answerSeal`) and retention.
 * @returns The journal.
 * @example
 * ```ts
 * import { createSqlIdempotencyJournal, deriveLicenseAdminKeys } from '@tollgate/core/license';
 * const journal = createSqlIdempotencyJournal(sql, { sealKey: deriveLicenseAdminKeys(masterKey).answerSeal });
 * ```
 */
export function createSqlIdempotencyJournal(sql: SqlClient, options: { sealKey: Uint8Array; retentionMs?: number }): IdempotencyJournal {
  const retentionMs = options.retentionMs ?? defaultIdempotencyRetentionMs;
  const binding = (vendorId: string, keyHash: Uint8Array) => utf8Encode(`tollgate/license/idempotency/v1\0${vendorId}\0${hexEncode(keyHash)}`);
  const seal = (vendorId: string, keyHash: Uint8Array, answer: JournaledAnswer): Uint8Array => {
    const nonce = randomBytes(nonceBytes);
    const sealed = xchacha20poly1305(options.sealKey, nonce, binding(vendorId, keyHash)).encrypt(utf8Encode(JSON.stringify(answer.body)));
    const out = new Uint8Array(nonceBytes + sealed.length);
    out.set(nonce);
    out.set(sealed, nonceBytes);
    return out;
  };
  const open = (vendorId: string, keyHash: Uint8Array, sealed: Uint8Array): unknown =>
    JSON.parse(utf8Decode(xchacha20poly1305(options.sealKey, sealed.subarray(0, nonceBytes), binding(vendorId, keyHash)).decrypt(sealed.subarray(nonceBytes))));

  const find = async (client: SqlClient, request: JournaledRequest, keyHash: Uint8Array): Promise<JournalLookup> => {
    const { rows } = await client.query<JournalRow>(
      'SELECT fingerprint, status, sealed_answer FROM license_idempotency WHERE vendor_id = $1 AND key_hash = $2 AND expires_at > $3',
      [request.vendorId, keyHash, request.now],
    );
    const stored = rows[0];
    if (stored === undefined) return { kind: 'none' };
    if (!constantTimeEqual(stored.fingerprint, request.fingerprint)) return { kind: 'conflict' };
    return { kind: 'replay', answer: { status: Number(stored.status), body: open(request.vendorId, keyHash, stored.sealed_answer) } };
  };

  return {
    run: (request, execute, render) =>
      sql.transaction(async (tx) => {
        const keyHash = sha256(utf8Encode(request.key));
        // One lock per (vendor, key) for the rest of the transaction: a concurrent twin waits here until
        // this transaction commits, then reads its row below.
        await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7340))', [`${request.vendorId}:${hexEncode(keyHash)}`]);
        const stored = await find(tx, request, keyHash);
        if (stored.kind === 'conflict') {
          throw new AdminError('idempotency_conflict', 'This Idempotency-Key was already used with a different request (method, path, query, body or Admin token).');
        }
        if (stored.kind === 'replay') return { answer: stored.answer, replayed: true };
        let answer: JournaledAnswer;
        try {
          answer = await tx.transaction((savepoint) => execute(savepoint));
        } catch (error) {
          if (!(error instanceof AdminError) || error.status >= 500 || transientAdminErrorCodes.has(error.code)) throw error;
          answer = render(error);
        }
        await tx.query(
          `INSERT INTO license_idempotency (vendor_id, key_hash, fingerprint, status, sealed_answer, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (vendor_id, key_hash) DO UPDATE SET fingerprint = $3, status = $4, sealed_answer = $5, created_at = $6, expires_at = $7`,
          [request.vendorId, keyHash, request.fingerprint, answer.status, seal(request.vendorId, keyHash, answer), request.now, new Date(request.now.getTime() + retentionMs)],
        );
        return { answer, replayed: false };
      }),
    lookup: (request) => find(sql, request, sha256(utf8Encode(request.key))),
    async purgeExpired(now) {
      const { rowCount } = await sql.query('DELETE FROM license_idempotency WHERE expires_at <= $1', [now]);
      return rowCount;
    },
  };
}
