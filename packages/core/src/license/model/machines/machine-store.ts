import { SqlError, SqlState } from '../../../storage/sql-error';
import type { SqlClient } from '../../../storage/sql-client';
import type { AdminCursorPosition } from '../page';

/** `active` holds a seat; `deactivated` released it; `revoked` was revoked (directly or with its license). */
export type MachineStatus = 'active' | 'deactivated' | 'revoked';

/** A device activated on a license. */
export interface MachineRecord {
  readonly machineId: string;
  readonly licenseId: string;
  readonly vendorId: string;
  /** Keyed hash (64 hex) of the device fingerprint. */
  readonly fingerprintHash: string;
  /** The Ed25519 key that signs the device's requests. */
  readonly devicePublicKey: Uint8Array;
  readonly status: MachineStatus;
  readonly name: string | null;
  readonly platform: string | null;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly deactivatedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revocationSeq: number | null;
}

/** What {@link MachineStore.insert} stores: an active machine. */
export interface NewMachine {
  readonly machineId: string;
  readonly licenseId: string;
  readonly vendorId: string;
  readonly fingerprintHash: string;
  readonly devicePublicKey: Uint8Array;
  readonly name?: string | null;
  readonly platform?: string | null;
  readonly createdAt: Date;
}

/** The outcome of {@link MachineStore.insert}. */
export type InsertMachineOutcome =
  | { readonly kind: 'inserted'; readonly machine: MachineRecord }
  /** The vendor has no such license. */
  | { readonly kind: 'license_not_found' }
  /** The license already has an active machine with this fingerprint. */
  | { readonly kind: 'fingerprint_active' };

/** Filters and page of {@link MachineStore.list}. */
export interface MachineListQuery {
  readonly licenseId?: string;
  readonly status?: MachineStatus;
  readonly limit: number;
  /** List position to continue after (newest first). */
  readonly after?: AdminCursorPosition;
}

/** The outcome of {@link MachineStore.lock}. */
export type MachineLockOutcome = { readonly kind: 'locked'; readonly machine: MachineRecord } | { readonly kind: 'not_found' } | { readonly kind: 'busy' };

/**
 * Machines.
 *
 * Contract: every vendor-named read and write treats another vendor's machine (or license) exactly like
 * a missing one. `insert` is one statement: the license check and the insert cannot be separated, and of
 * concurrent inserts of one active fingerprint on one license exactly one succeeds (seat limits are the
 * activation's to enforce under its own lock). `lock` must run inside a transaction and holds the row
 * until it ends; with `nowait` a row locked by another transaction is `busy` at once (in a savepoint, so
 * the transaction stays usable). `list` is newest first, ties broken by id.
 */
export interface MachineStore {
  insert(machine: NewMachine): Promise<InsertMachineOutcome>;
  get(vendorId: string, machineId: string): Promise<MachineRecord | undefined>;
  list(vendorId: string, query: MachineListQuery): Promise<MachineRecord[]>;
  /** How many machines of the license are not revoked (what revoking the license would revoke). */
  countUnrevoked(licenseId: string): Promise<number>;
  lock(vendorId: string, machineId: string, options: { nowait: boolean }): Promise<MachineLockOutcome>;
  /** Marks a machine revoked by batch `seq`; `undefined` if it already was. */
  markRevoked(machineId: string, revocation: { at: Date; seq: number }): Promise<MachineRecord | undefined>;
  /** Marks every machine of a license revoked by batch `seq`; returns how many changed. */
  revokeAllOfLicense(licenseId: string, revocation: { at: Date; seq: number }): Promise<number>;
  /**
   * Locks the license's machines that are not revoked yet, for the rest of the transaction. License revoke
   * calls it before publishing its batch, so every revoke takes machine rows before the feed head, as a
   * machine revoke does: the two can never deadlock.
   */
  lockAllOfLicense(licenseId: string): Promise<number>;
  /** Deletes a machine's row; returns how many rows (0 or 1). */
  delete(machineId: string): Promise<number>;
}

type MachineRow = {
  machine_id: string;
  license_id: string;
  vendor_id: string;
  fingerprint_hash: string;
  device_public_key: Uint8Array;
  status: MachineStatus;
  name: string | null;
  platform: string | null;
  created_at: Date;
  last_seen_at: Date;
  deactivated_at: Date | null;
  revoked_at: Date | null;
  revocation_seq: string | null;
};

const columns =
  'machine_id, license_id, vendor_id, fingerprint_hash, device_public_key, status, name, platform, created_at, last_seen_at, deactivated_at, revoked_at, revocation_seq';

const toRecord = (row: MachineRow): MachineRecord => ({
  machineId: row.machine_id,
  licenseId: row.license_id,
  vendorId: row.vendor_id,
  fingerprintHash: row.fingerprint_hash,
  devicePublicKey: row.device_public_key,
  status: row.status,
  name: row.name,
  platform: row.platform,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  deactivatedAt: row.deactivated_at,
  revokedAt: row.revoked_at,
  revocationSeq: row.revocation_seq === null ? null : Number(row.revocation_seq),
});

/**
 * The SQL {@link MachineStore} over `license_machines` (license migration 007).
 *
 * @param sql - A database with `licenseMigrations` applied, or a transaction on one.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlMachineStore } from '@tollgate/core/license';
 * const machines = await createSqlMachineStore(sql).list(vendorId, { licenseId, limit: 50 });
 * ```
 */
export function createSqlMachineStore(sql: SqlClient): MachineStore {
  const read = async (client: SqlClient, vendorId: string, machineId: string, lock = '') => {
    const { rows } = await client.query<MachineRow>(`SELECT ${columns} FROM license_machines WHERE machine_id = $1 AND vendor_id = $2 ${lock}`, [machineId, vendorId]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  };
  return {
    async insert(machine) {
      const { rows } = await sql.query<{ license_found: boolean } & Partial<MachineRow>>(
        `WITH license AS (
           SELECT license_id, vendor_id FROM license_licenses WHERE license_id = $2 AND vendor_id = $3
         ), inserted AS (
           INSERT INTO license_machines (machine_id, license_id, vendor_id, fingerprint_hash, device_public_key, status, name, platform, created_at, last_seen_at)
           SELECT $1, license_id, vendor_id, $4, $5, 'active', $6, $7, $8, $8 FROM license
           ON CONFLICT (license_id, fingerprint_hash) WHERE status = 'active' DO NOTHING
           RETURNING ${columns}
         )
         SELECT EXISTS (SELECT 1 FROM license) AS license_found, inserted.* FROM (VALUES (1)) AS one LEFT JOIN inserted ON true`,
        [machine.machineId, machine.licenseId, machine.vendorId, machine.fingerprintHash, machine.devicePublicKey, machine.name ?? null, machine.platform ?? null, machine.createdAt],
      );
      const row = rows[0];
      if (row === undefined || !row.license_found) return { kind: 'license_not_found' };
      if (row.machine_id === null || row.machine_id === undefined) return { kind: 'fingerprint_active' };
      return { kind: 'inserted', machine: toRecord(row as MachineRow) };
    },
    get: (vendorId, machineId) => read(sql, vendorId, machineId),
    async list(vendorId, query) {
      const { rows } = await sql.query<MachineRow>(
        `SELECT ${columns} FROM license_machines
         WHERE vendor_id = $1
           AND ($2::text IS NULL OR license_id = $2)
           AND ($3::text IS NULL OR status = $3)
           AND ($4::timestamptz IS NULL OR (created_at, machine_id) < ($4, $5))
         ORDER BY created_at DESC, machine_id DESC
         LIMIT $6`,
        [vendorId, query.licenseId ?? null, query.status ?? null, query.after === undefined ? null : new Date(query.after.at), query.after?.id ?? '', query.limit],
      );
      return rows.map(toRecord);
    },
    async countUnrevoked(licenseId) {
      const { rows } = await sql.query<{ count: string }>(`SELECT count(*) AS count FROM license_machines WHERE license_id = $1 AND status <> 'revoked'`, [licenseId]);
      return Number(rows[0]?.count ?? 0);
    },
    async lock(vendorId, machineId, options) {
      if (!options.nowait) {
        const machine = await read(sql, vendorId, machineId, 'FOR UPDATE');
        return machine === undefined ? { kind: 'not_found' } : { kind: 'locked', machine };
      }
      try {
        const machine = await sql.transaction((savepoint) => read(savepoint, vendorId, machineId, 'FOR NO KEY UPDATE NOWAIT'));
        return machine === undefined ? { kind: 'not_found' } : { kind: 'locked', machine };
      } catch (error) {
        if (error instanceof SqlError && error.code === SqlState.lockNotAvailable) return { kind: 'busy' };
        throw error;
      }
    },
    async markRevoked(machineId, revocation) {
      const { rows } = await sql.query<MachineRow>(
        `UPDATE license_machines SET status = 'revoked', revoked_at = $2, revocation_seq = $3 WHERE machine_id = $1 AND status <> 'revoked' RETURNING ${columns}`,
        [machineId, revocation.at, revocation.seq],
      );
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    async revokeAllOfLicense(licenseId, revocation) {
      const { rowCount } = await sql.query(`UPDATE license_machines SET status = 'revoked', revoked_at = $2, revocation_seq = $3 WHERE license_id = $1 AND status <> 'revoked'`, [
        licenseId,
        revocation.at,
        revocation.seq,
      ]);
      return rowCount;
    },
    async lockAllOfLicense(licenseId) {
      const { rowCount } = await sql.query(`SELECT 1 FROM license_machines WHERE license_id = $1 AND status <> 'revoked' ORDER BY machine_id FOR UPDATE`, [licenseId]);
      return rowCount;
    },
    async delete(machineId) {
      const { rowCount } = await sql.query('DELETE FROM license_machines WHERE machine_id = $1', [machineId]);
      return rowCount;
    },
  };
}

/**
 * The JSON view of a machine in Admin answers: its fingerprint hash and device key stay inside.
 *
 * @param machine - The machine.
 * @returns The view.
 * @example
 * ```ts
 * import { machineView } from '@tollgate/core/license';
 * return { body: { machines: machines.map(machineView) } };
 * ```
 */
export function machineView(machine: MachineRecord) {
  return {
    machine_id: machine.machineId,
    license_id: machine.licenseId,
    status: machine.status,
    name: machine.name,
    platform: machine.platform,
    created_at: machine.createdAt.toISOString(),
    last_seen_at: machine.lastSeenAt.toISOString(),
    deactivated_at: machine.deactivatedAt?.toISOString() ?? null,
    revoked_at: machine.revokedAt?.toISOString() ?? null,
    revocation_seq: machine.revocationSeq,
  };
}
