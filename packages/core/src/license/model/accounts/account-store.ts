import type { SqlClient } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../page';

/** Account states (the spec names only revocation; docs/decisions.md "License: accounts"). */
export type AccountStatus = 'active' | 'revoked';

/** An end-user account of a product, as the Admin API shows it: never with its password hash. */
export interface AccountRecord {
  readonly accountId: string;
  readonly vendorId: string;
  readonly productId: string;
  /** Normalised: trimmed, lower case; unique per product. */
  readonly email: string;
  readonly maxDevices: number;
  readonly status: AccountStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What {@link AccountStore.create} stores. */
export interface NewAccount {
  readonly accountId: string;
  readonly vendorId: string;
  readonly productId: string;
  /** Already normalised ({@link normalizeAccountEmail}). */
  readonly email: string;
  /** A `hashAccountPassword` string. */
  readonly passwordHash: string;
  readonly maxDevices: number;
  readonly createdAt: Date;
}

/** The outcome of {@link AccountStore.create}. */
export type CreateAccountOutcome =
  | { readonly kind: 'created'; readonly account: AccountRecord }
  /** The vendor has no such product (another vendor's product included). */
  | { readonly kind: 'product_not_found' }
  /** The product already has an account with this email. */
  | { readonly kind: 'email_taken' };

/** Filters and page of {@link AccountStore.list}. */
export interface AccountListQuery {
  readonly productId?: string;
  /** Already normalised. */
  readonly email?: string;
  readonly limit: number;
  /** List position to continue after (newest first). */
  readonly after?: AdminCursorPosition;
}

/**
 * End-user accounts.
 *
 * Contract: every read and write names the vendor; another vendor's product or account behaves exactly
 * like a missing one. `create` is one statement: the product check and the insert cannot be separated
 * by a concurrent writer, and of concurrent creates with one (product, email) exactly one succeeds and
 * the others report `email_taken`. `list` is newest first, ties broken by id, so cursors are stable
 * under concurrent inserts.
 */
export interface AccountStore {
  create(account: NewAccount): Promise<CreateAccountOutcome>;
  /** Up to `limit` accounts after `after`, newest first. */
  list(vendorId: string, query: AccountListQuery): Promise<AccountRecord[]>;
}

type AccountRow = {
  account_id: string;
  vendor_id: string;
  product_id: string;
  email: string;
  max_devices: number;
  status: AccountStatus;
  created_at: Date;
  updated_at: Date;
};

const columns = 'account_id, vendor_id, product_id, email, max_devices, status, created_at, updated_at';

function toRecord(row: AccountRow): AccountRecord {
  return {
    accountId: row.account_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    email: row.email,
    maxDevices: Number(row.max_devices),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The form an account email is stored and looked up in: trimmed and lower-cased, so addresses are
 * unique per product without regard to case.
 *
 * @param email - The address as received.
 * @returns The normalised address.
 * @example
 * ```ts
 * import { normalizeAccountEmail } from '@tollgate/core/license';
 * normalizeAccountEmail('  Ada@Example.COM '); // 'ada@example.com'
 * ```
 */
export function normalizeAccountEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The SQL {@link AccountStore} over `license_accounts` (license migration 006).
 *
 * @param sql - A database with `licenseMigrations` applied (or a transaction on one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlAccountStore } from '@tollgate/core/license';
 * const accounts = await createSqlAccountStore(sql).list(vendorId, { limit: 50 });
 * ```
 */
export function createSqlAccountStore(sql: SqlClient): AccountStore {
  return {
    async create(account) {
      // One statement: the product must be the vendor's, and ON CONFLICT makes concurrent twins wait for
      // the first insert and then do nothing. `product_found` tells the two empty outcomes apart.
      const { rows } = await sql.query<{ product_found: boolean } & Partial<AccountRow>>(
        `WITH product AS (
           SELECT product_id, vendor_id FROM license_products WHERE product_id = $2 AND vendor_id = $3
         ), inserted AS (
           INSERT INTO license_accounts (account_id, vendor_id, product_id, email, password_hash, max_devices, status, created_at, updated_at)
           SELECT $1, vendor_id, product_id, $4, $5, $6, 'active', $7, $7 FROM product
           ON CONFLICT (product_id, email) DO NOTHING
           RETURNING ${columns}
         )
         SELECT EXISTS (SELECT 1 FROM product) AS product_found, inserted.* FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`,
        [account.accountId, account.productId, account.vendorId, account.email, account.passwordHash, account.maxDevices, account.createdAt],
      );
      const row = rows[0];
      if (row === undefined || !row.product_found) return { kind: 'product_not_found' };
      if (row.account_id === undefined || row.account_id === null) return { kind: 'email_taken' };
      return { kind: 'created', account: toRecord(row as AccountRow) };
    },
    async list(vendorId, query) {
      const { rows } = await sql.query<AccountRow>(
        `SELECT ${columns} FROM license_accounts
         WHERE vendor_id = $1
           AND ($2::text IS NULL OR product_id = $2)
           AND ($3::text IS NULL OR email = $3)
           AND ($4::timestamptz IS NULL OR (created_at, account_id) < ($4, $5))
         ORDER BY created_at DESC, account_id DESC
         LIMIT $6`,
        [vendorId, query.productId ?? null, query.email ?? null, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(toRecord);
    },
  };
}
