import type { SqlClient } from '../../storage/sql-client';
import type { AdminScope } from './scopes';

/** A token as stored (never the token itself: only its keyed hash). */
export interface AdminTokenRecord {
  readonly tokenId: string;
  readonly vendorId: string;
  readonly label: string;
  readonly scopes: readonly AdminScope[];
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** What {@link AdminTokenStore.create} stores. */
export interface NewAdminToken {
  readonly tokenId: string;
  readonly vendorId: string;
  readonly tokenHash: string;
  readonly label: string;
  readonly scopes: readonly AdminScope[];
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

/** The outcome of looking a presented token up. */
export type AdminTokenLookup =
  | { readonly kind: 'valid'; readonly token: AdminTokenRecord }
  | { readonly kind: 'expired' | 'revoked' | 'unknown' };

/**
 * Admin tokens of every vendor.
 *
 * Contract: tokens are found only by their keyed hash (`token_hash` is unique); `authenticate` records
 * the use at most once a minute per token (a write per request would make every read a write);
 * `revoke` is idempotent and vendor-scoped (another vendor's token id is "not found").
 */
export interface AdminTokenStore {
  create(token: NewAdminToken): Promise<AdminTokenRecord>;
  /** Looks a token hash up at `now`: valid, expired, revoked or unknown. */
  authenticate(tokenHash: string, now: Date): Promise<AdminTokenLookup>;
  /** The vendor's tokens, oldest first (optionally every vendor's, for the operator CLI). */
  list(vendorId?: string): Promise<AdminTokenRecord[]>;
  /** Revokes a token; `undefined` when no such token exists (for that vendor, when given). */
  revoke(tokenId: string, at: Date, vendorId?: string): Promise<AdminTokenRecord | undefined>;
}

type TokenRow = {
  token_id: string;
  vendor_id: string;
  label: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

const columns = 'token_id, vendor_id, label, scopes, created_at, expires_at, last_used_at, revoked_at';
const touchIntervalMs = 60_000;

function toRecord(row: TokenRow): AdminTokenRecord {
  return {
    tokenId: row.token_id,
    vendorId: row.vendor_id,
    label: row.label,
    scopes: row.scopes as AdminScope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/**
 * The SQL {@link AdminTokenStore} over `license_admin_tokens` (license migration 003).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlAdminTokenStore } from '@tollgate/core/license';
 * const tokens = createSqlAdminTokenStore(sql);
 * ```
 */
export function createSqlAdminTokenStore(sql: SqlClient): AdminTokenStore {
  return {
    async create(token) {
      const { rows } = await sql.query<TokenRow>(
        `INSERT INTO license_admin_tokens (token_id, vendor_id, token_hash, label, scopes, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${columns}`,
        [token.tokenId, token.vendorId, token.tokenHash, token.label, [...token.scopes], token.createdAt, token.expiresAt],
      );
      return toRecord(rows[0] as TokenRow);
    },
    async authenticate(tokenHash, now) {
      const { rows } = await sql.query<TokenRow>(`SELECT ${columns} FROM license_admin_tokens WHERE token_hash = $1`, [tokenHash]);
      const row = rows[0];
      if (row === undefined) return { kind: 'unknown' };
      if (row.revoked_at !== null) return { kind: 'revoked' };
      if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return { kind: 'expired' };
      if (row.last_used_at === null || now.getTime() - row.last_used_at.getTime() >= touchIntervalMs) {
        await sql.query('UPDATE license_admin_tokens SET last_used_at = $2 WHERE token_id = $1', [row.token_id, now]);
        row.last_used_at = now;
      }
      return { kind: 'valid', token: toRecord(row) };
    },
    async list(vendorId) {
      const { rows } =
        vendorId === undefined
          ? await sql.query<TokenRow>(`SELECT ${columns} FROM license_admin_tokens ORDER BY created_at, token_id`)
          : await sql.query<TokenRow>(`SELECT ${columns} FROM license_admin_tokens WHERE vendor_id = $1 ORDER BY created_at, token_id`, [vendorId]);
      return rows.map(toRecord);
    },
    async revoke(tokenId, at, vendorId) {
      const { rows } = await sql.query<TokenRow>(
        `UPDATE license_admin_tokens SET revoked_at = COALESCE(revoked_at, $2)
         WHERE token_id = $1 AND ($3::text IS NULL OR vendor_id = $3) RETURNING ${columns}`,
        [tokenId, at, vendorId ?? null],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
  };
}
