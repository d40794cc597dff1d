import { hexDecode, hexEncode } from '../../crypto/hex';
import type { SqlClient } from '../../storage/sql-client';
import { epochColumns, toStoredEpoch, type EpochRow, type EpochStatus } from '../storage/epoch-store';

/**
 * An epoch as Epoch administration reads it: the stored row plus who administers it. Never carries the
 * private key.
 */
export interface AdministeredEpoch {
  readonly epochId: Uint8Array;
  readonly epochIdHex: string;
  readonly publicKey: Uint8Array;
  readonly productScope: string | undefined;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly status: EpochStatus;
  /** The primary (first loaded) certificate; `undefined` while pending. */
  readonly certificate: Uint8Array | undefined;
  readonly createdAt: Date;
  readonly activatedAt: Date | undefined;
  readonly revokedAt: Date | undefined;
  readonly keyWipedAt: Date | undefined;
  /** The vendor of the product it is scoped to; `undefined` for global epochs (and unknown products). */
  readonly productVendorId: string | undefined;
}

/** The stored row, plus what administration reads besides: when it was revoked, and its product's vendor. */
type AdministeredEpochRow = EpochRow & {
  revoked_at: Date | null;
  product_vendor_id: string | null;
};

// The epoch's columns (prefixed `e.`, as the queries join `license_products p`), then the extras.
const administeredColumns = `${epochColumns
  .split(', ')
  .map((column) => `e.${column}`)
  .join(', ')}, e.revoked_at, p.vendor_id AS product_vendor_id`;

function toAdministeredEpoch(row: AdministeredEpochRow): AdministeredEpoch {
  const stored = toStoredEpoch(row);
  return Object.freeze({
    ...stored,
    // Administration always carries the key (`undefined` for a global epoch), where a stored epoch omits it.
    productScope: stored.productScope,
    revokedAt: row.revoked_at ?? undefined,
    productVendorId: row.product_vendor_id ?? undefined,
  });
}

/** Who may administer which epochs (see {@link epochAdministrator}). */
export interface EpochAdministration {
  /**
   * Vendors administering global epochs (`LICENSE_EPOCH_ADMIN_VENDORS`); `undefined`: every vendor while
   * the server hosts exactly one vendor, none once it hosts several.
   */
  readonly globalEpochVendors: readonly string[] | undefined;
}

/**
 * Whether `vendorId` administers global epochs: listed in `globalEpochVendors`, or — when that is not
 * configured — the only vendor of the server. A global epoch signs every vendor's artifacts and the
 * revocation feed, so on a shared server one tenant must never revoke it for all the others.
 *
 * @param sql - The database.
 * @param administration - The configured vendors.
 * @param vendorId - The caller's vendor.
 * @returns True when the vendor may see and act on global epochs.
 *
 * @example
 * ```ts
 * import { administersGlobalEpochs } from '@tollgate/core/license';
 * if (await administersGlobalEpochs(sql, { globalEpochVendors: undefined }, actor.vendorId)) showGlobalEpochs();
 * ```
 */
export async function administersGlobalEpochs(sql: SqlClient, administration: EpochAdministration, vendorId: string): Promise<boolean> {
  if (administration.globalEpochVendors !== undefined) return administration.globalEpochVendors.includes(vendorId);
  const { rows } = await sql.query<{ vendors: string }>('SELECT count(*) AS vendors FROM license_vendors');
  return Number(rows[0]?.vendors ?? 0) === 1;
}

/**
 * The epochs a vendor administers, oldest first: those scoped to its own products, plus the global ones
 * (and those scoped to a product unknown here) when it administers global epochs.
 *
 * @param sql - The database.
 * @param vendorId - The caller's vendor.
 * @param globalToo - Whether it administers global epochs ({@link administersGlobalEpochs}).
 * @returns The epochs.
 *
 * @example
 * ```ts
 * import { listAdministeredEpochs } from '@tollgate/core/license';
 * const epochs = await listAdministeredEpochs(sql, actor.vendorId, true);
 * ```
 */
export async function listAdministeredEpochs(sql: SqlClient, vendorId: string, globalToo: boolean): Promise<AdministeredEpoch[]> {
  const { rows } = await sql.query<AdministeredEpochRow>(
    `SELECT ${administeredColumns} FROM license_epochs e LEFT JOIN license_products p ON p.product_id = e.product_scope
      WHERE p.vendor_id = $1 OR ($2 AND p.vendor_id IS NULL)
      ORDER BY e.created_at, e.epoch_id`,
    [vendorId, globalToo],
  );
  return rows.map(toAdministeredEpoch);
}

/**
 * One epoch the vendor administers, or `undefined` (missing, or not the vendor's: the same answer).
 * With `lock`, the epoch row is locked `FOR UPDATE` for the rest of the caller's transaction: every
 * confirmation of a revocation of the epoch queues there, so two confirmations never decide at once.
 *
 * @param sql - The database or the caller's transaction.
 * @param vendorId - The caller's vendor.
 * @param epochIdHex - The epoch id (16 lower-case hex digits, already checked).
 * @param options - Whether it administers global epochs, and whether to lock the row.
 * @returns The epoch.
 *
 * @example
 * ```ts
 * import { readAdministeredEpoch } from '@tollgate/core/license';
 * const epoch = await readAdministeredEpoch(call.sql, actor.vendorId, epochIdHex, { globalToo: true, lock: true });
 * ```
 */
export async function readAdministeredEpoch(
  sql: SqlClient,
  vendorId: string,
  epochIdHex: string,
  options: { globalToo: boolean; lock?: boolean },
): Promise<AdministeredEpoch | undefined> {
  const { rows } = await sql.query<AdministeredEpochRow>(
    `SELECT ${administeredColumns} FROM license_epochs e LEFT JOIN license_products p ON p.product_id = e.product_scope
      WHERE e.epoch_id = $1 AND (p.vendor_id = $2 OR ($3 AND p.vendor_id IS NULL))${options.lock === true ? ' FOR UPDATE OF e' : ''}`,
    [hexDecode(epochIdHex), vendorId, options.globalToo],
  );
  return rows[0] === undefined ? undefined : toAdministeredEpoch(rows[0]);
}

/**
 * Every active epoch other than `epoch` that could take over what it signs, valid at `now`: for a
 * global epoch another global one (revocation batches need one), for a product-scoped epoch one of the
 * same product or a global one. The caller keeps those the served keyset lists.
 *
 * @param sql - The database or a transaction.
 * @param epoch - The epoch to replace.
 * @param now - Unix seconds.
 * @returns Candidate epoch ids (hex), newest `notBefore` first.
 *
 * @example
 * ```ts
 * import { replacementCandidates } from '@tollgate/core/license';
 * const candidates = await replacementCandidates(sql, epoch, Math.floor(Date.now() / 1000));
 * ```
 */
export async function replacementCandidates(sql: SqlClient, epoch: Pick<AdministeredEpoch, 'epochId' | 'productScope'>, now: number): Promise<string[]> {
  const { rows } = await sql.query<{ epoch_id: Uint8Array }>(
    `SELECT epoch_id FROM license_epochs
      WHERE status = 'active' AND epoch_id <> $1 AND not_before <= $2 AND not_after > $2
        AND (product_scope IS NULL OR ($3::text IS NOT NULL AND product_scope = $3::text))
      ORDER BY not_before DESC, epoch_id`,
    [epoch.epochId, now, epoch.productScope ?? null],
  );
  return rows.map((row) => hexEncode(row.epoch_id));
}

/**
 * An upper bound of the machines that may hold an artifact the epoch signed: active machines of the
 * products it signs for (its product, or every product for a global epoch) that were in touch with the
 * server during its window (created before `notAfter`, seen since `notBefore`). The server does not
 * record which epoch signed each credential, so this over-counts machines that another epoch served.
 *
 * @param sql - The database.
 * @param epoch - The epoch.
 * @returns The count.
 *
 * @example
 * ```ts
 * import { countMachinesUpperBound } from '@tollgate/core/license';
 * const affected = await countMachinesUpperBound(sql, epoch);
 * ```
 */
export async function countMachinesUpperBound(sql: SqlClient, epoch: Pick<AdministeredEpoch, 'productScope' | 'notBefore' | 'notAfter'>): Promise<number> {
  const { rows } = await sql.query<{ machines: string }>(
    `SELECT count(*) AS machines FROM license_machines m JOIN license_licenses l ON l.license_id = m.license_id
      WHERE m.status = 'active' AND m.created_at < to_timestamp($1) AND m.last_seen_at >= to_timestamp($2)
        AND ($3::text IS NULL OR l.product_id = $3::text)`,
    [epoch.notAfter, epoch.notBefore, epoch.productScope ?? null],
  );
  return Number(rows[0]?.machines ?? 0);
}
