import { constantTimeEqualString } from '../../crypto/constant-time';
import type { SqlClient } from '../../storage/sql-client';
import type { AccountStatus } from '../model/accounts/account-store';
import type { AccountTokenIdentity } from './account-token';

/** What a login needs to know about the account an email names. */
export interface LoginAccount {
  readonly accountId: string;
  readonly vendorId: string;
  readonly productId: string;
  /** A `hashAccountPassword` string. */
  readonly passwordHash: string;
  readonly status: AccountStatus;
}

/** A freshly minted token pair, as stored: keyed hashes and expiries only. */
export interface StoredTokenPair {
  readonly accessHash: string;
  readonly accessExpiresAt: Date;
  readonly refreshHash: string;
  readonly refreshExpiresAt: Date;
}

/** The outcome of {@link AccountSessionStore.rotate}. */
export type RotateOutcome =
  /** The presented refresh token was the family's live one: the new pair replaced it. */
  | { readonly kind: 'rotated'; readonly sessionId: string }
  /** The token was already spent: its family is now revoked (or already was). */
  | { readonly kind: 'reuse_detected'; readonly sessionId: string }
  /** Unknown, expired, of a revoked family or of an account no longer active. */
  | { readonly kind: 'refused' };

/**
 * Account session families (one per login) and their token pairs.
 *
 * Contract: tokens are found only by their keyed hash. `rotate` is safe under concurrency: of any
 * number of concurrent rotations presenting one refresh token exactly one returns `rotated`; every
 * later presentation of that token (the losers of such a race included) finds it spent and revokes the
 * family, after which neither its access token resolves nor its refresh token rotates. `create` stores
 * nothing for an account that is not active. `revokeFamily` is idempotent.
 */
export interface AccountSessionStore {
  /** The account `normalizedEmail` names on `productId`, or `undefined`. */
  findLoginAccount(productId: string, normalizedEmail: string): Promise<LoginAccount | undefined>;
  /** Starts a family for an active account; `false` when the account is gone or no longer active. */
  create(session: { sessionId: string; accountId: string; pair: StoredTokenPair; createdAt: Date }): Promise<boolean>;
  /** Replaces the live pair of the family whose live refresh token hashes to `refreshHash`. */
  rotate(refreshHash: string, pair: StoredTokenPair, now: Date): Promise<RotateOutcome>;
  /** Revokes the family a live or spent refresh token belongs to; `false` when none is known. */
  revokeFamily(refreshHash: string, now: Date, reason: 'logout'): Promise<boolean>;
  /** The identity behind a live access token of `productId` at `now`, or `undefined`. */
  resolveAccess(productId: string, accessHash: string, now: Date): Promise<AccountTokenIdentity | undefined>;
  /** Deletes families whose refresh token expired before `before` (their spent tokens go with them). */
  purgeExpired(before: Date): Promise<number>;
}

// Rotation, step 1: one UPDATE matches the live refresh hash, so concurrent rotations queue on the
// family's row lock and, after the winner commits, the others re-check the row and match nothing. The
// spent hash is recorded in the same statement, hence committed with the rotation.
const rotateSql = `
  WITH rotated AS (
    UPDATE license_account_sessions s SET
      access_hash = $2, access_expires_at = $3, refresh_hash = $4, refresh_expires_at = $5,
      generation = s.generation + 1, rotated_at = $6
    FROM license_accounts a
    WHERE s.refresh_hash = $1 AND s.revoked_at IS NULL AND s.refresh_expires_at > $6
      AND a.account_id = s.account_id AND a.status = 'active'
    RETURNING s.session_id
  ), spent AS (
    INSERT INTO license_account_spent_refresh_tokens (token_hash, session_id, spent_at)
    SELECT $1, session_id, $6 FROM rotated
  )
  SELECT session_id FROM rotated`;

// Rotation, step 2 (only when step 1 matched nothing): a separate statement on purpose, so it reads a
// fresh snapshot that includes a concurrent winner's spent row. A spent token revokes its family.
const reuseSql = `
  WITH spent AS (
    SELECT session_id FROM license_account_spent_refresh_tokens WHERE token_hash = $1
  ), revoked AS (
    UPDATE license_account_sessions s SET revoked_at = $2, revoke_reason = 'refresh_reuse'
    FROM spent WHERE s.session_id = spent.session_id AND s.revoked_at IS NULL
    RETURNING s.session_id
  )
  SELECT session_id FROM spent`;

/**
 * The SQL {@link AccountSessionStore} over `license_account_sessions` and
 * `license_account_spent_refresh_tokens` (license migration 011), reading `license_accounts` (006).
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlAccountSessionStore } from '@tollgate/core/license';
 * const sessions = createSqlAccountSessionStore(sql);
 * ```
 */
export function createSqlAccountSessionStore(sql: SqlClient): AccountSessionStore {
  return {
    async findLoginAccount(productId, normalizedEmail) {
      const { rows } = await sql.query<{ account_id: string; vendor_id: string; product_id: string; password_hash: string; status: AccountStatus }>(
        'SELECT account_id, vendor_id, product_id, password_hash, status FROM license_accounts WHERE product_id = $1 AND email = $2',
        [productId, normalizedEmail],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      return { accountId: row.account_id, vendorId: row.vendor_id, productId: row.product_id, passwordHash: row.password_hash, status: row.status };
    },
    async create({ sessionId, accountId, pair, createdAt }) {
      const { rowCount } = await sql.query(
        `INSERT INTO license_account_sessions
           (session_id, account_id, vendor_id, product_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, generation, created_at, rotated_at)
         SELECT $1, account_id, vendor_id, product_id, $3, $4, $5, $6, 0, $7, $7 FROM license_accounts WHERE account_id = $2 AND status = 'active'`,
        [sessionId, accountId, pair.accessHash, pair.accessExpiresAt, pair.refreshHash, pair.refreshExpiresAt, createdAt],
      );
      return rowCount === 1;
    },
    async rotate(refreshHash, pair, now) {
      const rotated = await sql.query<{ session_id: string }>(rotateSql, [refreshHash, pair.accessHash, pair.accessExpiresAt, pair.refreshHash, pair.refreshExpiresAt, now]);
      if (rotated.rows[0] !== undefined) return { kind: 'rotated', sessionId: rotated.rows[0].session_id };
      const reused = await sql.query<{ session_id: string }>(reuseSql, [refreshHash, now]);
      if (reused.rows[0] !== undefined) return { kind: 'reuse_detected', sessionId: reused.rows[0].session_id };
      return { kind: 'refused' };
    },
    async revokeFamily(refreshHash, now, reason) {
      const { rows } = await sql.query<{ session_id: string }>(
        `WITH family AS (
           SELECT session_id FROM license_account_sessions WHERE refresh_hash = $1
           UNION SELECT session_id FROM license_account_spent_refresh_tokens WHERE token_hash = $1
         ), revoked AS (
           UPDATE license_account_sessions s SET revoked_at = $2, revoke_reason = $3
           FROM family WHERE s.session_id = family.session_id AND s.revoked_at IS NULL
           RETURNING s.session_id
         )
         SELECT session_id FROM family`,
        [refreshHash, now, reason],
      );
      return rows.length > 0;
    },
    async resolveAccess(productId, accessHash, now) {
      const { rows } = await sql.query<{ account_id: string; vendor_id: string; product_id: string; access_hash: string }>(
        `SELECT s.account_id, s.vendor_id, s.product_id, s.access_hash
         FROM license_account_sessions s JOIN license_accounts a ON a.account_id = s.account_id
         WHERE s.access_hash = $1 AND s.product_id = $2 AND s.revoked_at IS NULL AND s.access_expires_at > $3 AND a.status = 'active'`,
        [accessHash, productId, now],
      );
      const row = rows[0];
      // The index found the row by the hash; the comparison repeats it without an early exit.
      if (row === undefined || !constantTimeEqualString(row.access_hash, accessHash)) return undefined;
      return { accountId: row.account_id, vendorId: row.vendor_id, productId: row.product_id };
    },
    async purgeExpired(before) {
      const { rowCount } = await sql.query('DELETE FROM license_account_sessions WHERE refresh_expires_at < $1', [before]);
      return rowCount;
    },
  };
}
