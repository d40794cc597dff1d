import { SqlError, SqlState } from '../../../storage/sql-error';
import type { SqlClient, SqlParam } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../page';
import type { EffectiveLicenseStatus, EntitlementOverrides, LicenseRecord, LicenseStatus, NewLicense, VersionScope } from './license-record';

/** Filters and page of {@link LicenseStore.list}. */
export interface LicenseListQuery {
  readonly productId: string;
  /** The status the license shows at `now` (`expired` included). */
  readonly status?: EffectiveLicenseStatus;
  readonly now: Date;
  readonly limit: number;
  /** List position to continue after (newest first). */
  readonly after?: AdminCursorPosition;
}

/** What {@link LicenseStore.update} may change; absent fields stay as they are. */
export interface LicenseChanges {
  readonly status?: 'active' | 'suspended';
  readonly expiresAt?: Date | null;
  readonly seatsOverride?: number | null;
  readonly entitlementOverrides?: EntitlementOverrides;
  readonly versionScopeOverride?: VersionScope | null;
  readonly tier?: string | null;
}

/** The outcome of {@link LicenseStore.update}. */
export type LicenseUpdateOutcome = { readonly kind: 'updated'; readonly license: LicenseRecord } | { readonly kind: 'not_found' } | { readonly kind: 'revoked' };

/** The outcome of {@link LicenseStore.lockForRevocation}. */
export type LicenseLockOutcome =
  | { readonly kind: 'locked'; readonly license: LicenseRecord }
  | { readonly kind: 'not_found' }
  /** Another transaction holds the row (a revocation, or any write, under way). */
  | { readonly kind: 'busy' };

/**
 * Licenses.
 *
 * Contract: every read and write names the vendor, and another vendor's license behaves exactly like a
 * missing one. `insertMany` is one statement (all rows or none). `update` is one statement that never
 * changes a revoked license (a concurrent revocation that commits first wins, and the update reports
 * `revoked`). `lockForRevocation` must run inside a transaction: it takes the row lock without waiting
 * (in a savepoint, so a busy row leaves the transaction usable) and holds it until that transaction ends.
 * `getForShare` must run inside a transaction too; its shared lock waits instead.
 * `list` is newest first, ties broken by id, so cursors are stable under concurrent inserts.
 */
export interface LicenseStore {
  insertMany(licenses: readonly NewLicense[]): Promise<LicenseRecord[]>;
  get(vendorId: string, licenseId: string): Promise<LicenseRecord | undefined>;
  list(vendorId: string, query: LicenseListQuery): Promise<LicenseRecord[]>;
  update(vendorId: string, licenseId: string, changes: LicenseChanges, at: Date): Promise<LicenseUpdateOutcome>;
  lockForRevocation(vendorId: string, licenseId: string): Promise<LicenseLockOutcome>;
  /**
   * Reads a license under a shared row lock held until the transaction ends (run it inside one): it
   * waits for a transaction that is changing or revoking the license and returns the row as that one
   * left it; while it is held, `lockForRevocation` answers `busy` and `update` waits. For work that
   * must not overlap a revocation of the license, such as minting an offline key.
   */
  getForShare(vendorId: string, licenseId: string): Promise<LicenseRecord | undefined>;
  /** Marks a license (locked by this transaction) revoked by batch `seq`; `undefined` if it already was. */
  markRevoked(licenseId: string, revocation: { at: Date; seq: number; reason: number | null }): Promise<LicenseRecord | undefined>;
}

type LicenseRow = {
  license_id: string;
  vendor_id: string;
  product_id: string;
  policy_id: string;
  key_hint: string;
  account_id: string | null;
  status: LicenseStatus;
  seats_override: number | null;
  expires_at: Date | null;
  metadata: Record<string, string>;
  entitlement_overrides: EntitlementOverrides;
  version_scope_override: VersionScope | null;
  tier: string | null;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
  revocation_seq: string | null;
  revocation_reason: number | null;
  policy_seats: number;
  policy_tier: string | null;
};

const licenseColumns =
  'l.license_id, l.vendor_id, l.product_id, l.policy_id, l.key_hint, l.account_id, l.status, l.seats_override, l.expires_at, l.metadata, l.entitlement_overrides, ' +
  'l.version_scope_override, l.tier, l.created_at, l.updated_at, l.revoked_at, l.revocation_seq, l.revocation_reason';
// The policy's defaults travel with every license read, so views need no second query.
const withPolicy = `${licenseColumns}, (p.document->>'seats')::integer AS policy_seats, p.document->>'tier' AS policy_tier`;

function toRecord(row: LicenseRow): LicenseRecord {
  return {
    licenseId: row.license_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    policyId: row.policy_id,
    keyHint: row.key_hint,
    accountId: row.account_id,
    status: row.status,
    seatsOverride: row.seats_override === null ? null : Number(row.seats_override),
    expiresAt: row.expires_at,
    metadata: row.metadata,
    entitlementOverrides: row.entitlement_overrides,
    versionScopeOverride: row.version_scope_override,
    tier: row.tier,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revokedAt: row.revoked_at,
    revocationSeq: row.revocation_seq === null ? null : Number(row.revocation_seq),
    revocationReason: row.revocation_reason === null ? null : Number(row.revocation_reason),
    policySeats: Number(row.policy_seats),
    policyTier: row.policy_tier,
  };
}

async function readLicense(sql: SqlClient, vendorId: string, licenseId: string, lock = ''): Promise<LicenseRecord | undefined> {
  const { rows } = await sql.query<LicenseRow>(
    `SELECT ${withPolicy} FROM license_licenses l JOIN license_policies p ON p.policy_id = l.policy_id WHERE l.license_id = $1 AND l.vendor_id = $2 ${lock}`,
    [licenseId, vendorId],
  );
  return rows[0] === undefined ? undefined : toRecord(rows[0]);
}

/**
 * The SQL {@link LicenseStore} over `license_licenses` (license migration 007).
 *
 * @param sql - A database with `licenseMigrations` applied, or a transaction on one.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlLicenseStore } from '@tollgate/core/license';
 * const license = await createSqlLicenseStore(sql).get(vendorId, licenseId);
 * ```
 */
export function createSqlLicenseStore(sql: SqlClient): LicenseStore {
  return {
    async insertMany(licenses) {
      if (licenses.length === 0) return [];
      const column = <K extends keyof NewLicense>(key: K) => licenses.map((license) => license[key]);
      const { rows } = await sql.query<LicenseRow>(
        `WITH inserted AS (
           INSERT INTO license_licenses (license_id, vendor_id, product_id, policy_id, key_hash, key_hint, account_id, seats_override, expires_at, metadata, created_at, updated_at)
           SELECT n.license_id, n.vendor_id, n.product_id, n.policy_id, n.key_hash, n.key_hint, n.account_id, n.seats_override, n.expires_at, n.metadata::jsonb, n.created_at, n.created_at
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[], $9::timestamptz[], $10::text[], $11::timestamptz[])
             AS n (license_id, vendor_id, product_id, policy_id, key_hash, key_hint, account_id, seats_override, expires_at, metadata, created_at)
           RETURNING *
         )
         SELECT ${withPolicy} FROM inserted l JOIN license_policies p ON p.policy_id = l.policy_id ORDER BY l.created_at DESC, l.license_id DESC`,
        [
          column('licenseId'),
          column('vendorId'),
          column('productId'),
          column('policyId'),
          column('keyHash'),
          column('keyHint'),
          column('accountId'),
          column('seatsOverride'),
          column('expiresAt'),
          licenses.map((license) => JSON.stringify(license.metadata)),
          column('createdAt'),
        ],
      );
      return rows.map(toRecord);
    },
    get: (vendorId, licenseId) => readLicense(sql, vendorId, licenseId),
    async list(vendorId, query) {
      // The shown status: `expired` is an active license past `expires_at` at the time of the answer.
      const { rows } = await sql.query<LicenseRow>(
        `SELECT ${withPolicy} FROM license_licenses l JOIN license_policies p ON p.policy_id = l.policy_id
         WHERE l.vendor_id = $1 AND l.product_id = $2
           AND ($3::text IS NULL
             OR ($3 IN ('revoked', 'suspended') AND l.status = $3)
             OR ($3 = 'expired' AND l.status = 'active' AND l.expires_at <= $4::timestamptz)
             OR ($3 = 'active' AND l.status = 'active' AND (l.expires_at IS NULL OR l.expires_at > $4::timestamptz)))
           AND ($5::timestamptz IS NULL OR (l.created_at, l.license_id) < ($5, $6))
         ORDER BY l.created_at DESC, l.license_id DESC
         LIMIT $7`,
        [vendorId, query.productId, query.status ?? null, query.now, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(toRecord);
    },
    async update(vendorId, licenseId, changes, at) {
      const assignments: string[] = ['updated_at = $3'];
      const params: SqlParam[] = [licenseId, vendorId, at];
      const set = (columnName: string, value: SqlParam) => {
        params.push(value);
        assignments.push(`${columnName} = $${params.length}`);
      };
      if (changes.status !== undefined) set('status', changes.status);
      if (changes.expiresAt !== undefined) set('expires_at', changes.expiresAt);
      if (changes.seatsOverride !== undefined) set('seats_override', changes.seatsOverride);
      if (changes.entitlementOverrides !== undefined) set('entitlement_overrides', JSON.stringify(changes.entitlementOverrides));
      if (changes.versionScopeOverride !== undefined) set('version_scope_override', changes.versionScopeOverride === null ? null : JSON.stringify(changes.versionScopeOverride));
      if (changes.tier !== undefined) set('tier', changes.tier);
      // One statement: `target` tells a missing license from one the update skipped, and the only
      // reason an existing license is skipped is that it is (or just became) revoked.
      const { rows } = await sql.query<{ found: boolean } & Partial<LicenseRow>>(
        `WITH target AS (
           SELECT license_id FROM license_licenses WHERE license_id = $1 AND vendor_id = $2
         ), updated AS (
           UPDATE license_licenses SET ${assignments.join(', ')}
           WHERE license_id = $1 AND vendor_id = $2 AND status <> 'revoked'
           RETURNING *
         )
         SELECT EXISTS (SELECT 1 FROM target) AS found, ${withPolicy}
         FROM (VALUES (1)) AS one LEFT JOIN updated l ON true LEFT JOIN license_policies p ON p.policy_id = l.policy_id`,
        params,
      );
      const row = rows[0];
      if (row === undefined || !row.found) return { kind: 'not_found' };
      if (row.license_id === null || row.license_id === undefined) return { kind: 'revoked' };
      return { kind: 'updated', license: toRecord(row as LicenseRow) };
    },
    async lockForRevocation(vendorId, licenseId) {
      try {
        const license = await sql.transaction((savepoint) => readLicense(savepoint, vendorId, licenseId, 'FOR NO KEY UPDATE OF l NOWAIT'));
        return license === undefined ? { kind: 'not_found' } : { kind: 'locked', license };
      } catch (error) {
        if (error instanceof SqlError && error.code === SqlState.lockNotAvailable) return { kind: 'busy' };
        throw error;
      }
    },
    getForShare: (vendorId, licenseId) => readLicense(sql, vendorId, licenseId, 'FOR SHARE OF l'),
    async markRevoked(licenseId, revocation) {
      const { rows } = await sql.query<LicenseRow>(
        `WITH updated AS (
           UPDATE license_licenses SET status = 'revoked', revoked_at = $2, revocation_seq = $3, revocation_reason = $4, updated_at = $2
           WHERE license_id = $1 AND status <> 'revoked'
           RETURNING *
         )
         SELECT ${withPolicy} FROM updated l JOIN license_policies p ON p.policy_id = l.policy_id`,
        [licenseId, revocation.at, revocation.seq, revocation.reason],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
  };
}
