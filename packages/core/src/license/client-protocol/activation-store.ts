import type { SqlClient } from '../../storage/sql-client';
import { policyDocument, type PolicyDocument } from '../model/policies/policy-document';
import type { PolicyVersionScope } from '../model/policies/policy-document';
import type { EntitlementOverrides, LicenseStatus } from '../model/licenses/license-record';

/** A license as activation reads it, under its row lock, with its policy. */
export interface ActivationLicense {
  readonly licenseId: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly accountId: string | null;
  readonly status: LicenseStatus;
  readonly expiresAt: Date | null;
  readonly tier: string | null;
  readonly seats: number;
  readonly entitlementOverrides: EntitlementOverrides;
  readonly versionScopeOverride: PolicyVersionScope | null;
  readonly policy: PolicyDocument;
}

type LicenseRow = {
  license_id: string;
  vendor_id: string;
  product_id: string;
  account_id: string | null;
  status: LicenseStatus;
  expires_at: Date | null;
  tier: string | null;
  seats_override: number | null;
  entitlement_overrides: EntitlementOverrides;
  version_scope_override: PolicyVersionScope | null;
  document: PolicyDocument;
};

const licenseSelect = `SELECT l.license_id, l.vendor_id, l.product_id, l.account_id, l.status, l.expires_at, l.tier, l.seats_override,
  l.entitlement_overrides, l.version_scope_override, p.document
  FROM license_licenses l JOIN license_policies p ON p.policy_id = l.policy_id`;

function toLicense(row: LicenseRow): ActivationLicense {
  const policy = policyDocument(row.document);
  return {
    licenseId: row.license_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    accountId: row.account_id,
    status: row.status,
    expiresAt: row.expires_at,
    tier: row.tier,
    seats: row.seats_override === null ? policy.seats : Number(row.seats_override),
    entitlementOverrides: row.entitlement_overrides,
    versionScopeOverride: row.version_scope_override,
    policy,
  };
}

/**
 * The license a key hash names for a product, or `undefined` (an unknown key, or a key of another
 * product: the caller answers both with the same generic 1000).
 *
 * @param sql - The database.
 * @param keyHash - `hashLicenseKey(…)` of the presented key.
 * @param productId - The product the request names.
 * @returns The license id.
 * @example
 * ```ts
 * import { findLicenseIdByKey } from '@tollgate/core/license';
 * const licenseId = await findLicenseIdByKey(sql, keyHash, productId);
 * ```
 */
export async function findLicenseIdByKey(sql: SqlClient, keyHash: string, productId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ license_id: string }>('SELECT license_id FROM license_licenses WHERE key_hash = $1 AND product_id = $2', [keyHash, productId]);
  return rows[0]?.license_id;
}

/**
 * Locks licenses for a seat decision (`FOR NO KEY UPDATE`, in ascending id order, so two activations
 * never lock two licenses in opposite orders) and reads them with their policies. Every later statement
 * of the transaction sees the machines committed by earlier holders of the lock: that is what makes the
 * seat count exact. A revoke in flight is waited for, and then seen.
 *
 * @param tx - A transaction.
 * @param licenseIds - The licenses.
 * @param options - `lock: false` reads without locking (the pre-check before the release gate is asked).
 * @returns The licenses, in id order (missing ones left out).
 * @example
 * ```ts
 * import { lockActivationLicenses } from '@tollgate/core/license';
 * const [license] = await lockActivationLicenses(tx, [licenseId]);
 * ```
 */
export async function lockActivationLicenses(tx: SqlClient, licenseIds: readonly string[], options: { lock: boolean } = { lock: true }): Promise<ActivationLicense[]> {
  const lock = options.lock ? 'FOR NO KEY UPDATE OF l' : '';
  const { rows } = await tx.query<LicenseRow>(`${licenseSelect} WHERE l.license_id = ANY($1::text[]) ORDER BY l.license_id ${lock}`, [[...licenseIds].sort()]);
  return rows.map(toLicense);
}

/** An account as an account-token activation sees it, under its row lock. */
export interface ActivationAccount {
  readonly accountId: string;
  readonly maxDevices: number;
  /** Its licenses of the product, oldest first: the first with a free seat takes the device. */
  readonly licenseIds: readonly string[];
}

/**
 * Locks the account (`FOR UPDATE`: concurrent activations of one account queue, so its device limit is
 * exact) and lists its licenses of the product. Locked before any license, always.
 *
 * @param tx - A transaction.
 * @param accountId - From the access token.
 * @param productId - The request's product.
 * @param options - `lock: false` reads without locking.
 * @returns The account, or `undefined` when it is gone or revoked.
 * @example
 * ```ts
 * import { lockActivationAccount } from '@tollgate/core/license';
 * const account = await lockActivationAccount(tx, identity.accountId, productId);
 * ```
 */
export async function lockActivationAccount(tx: SqlClient, accountId: string, productId: string, options: { lock: boolean } = { lock: true }): Promise<ActivationAccount | undefined> {
  const lock = options.lock ? 'FOR UPDATE' : '';
  const { rows } = await tx.query<{ max_devices: number; status: string }>(`SELECT max_devices, status FROM license_accounts WHERE account_id = $1 AND product_id = $2 ${lock}`, [
    accountId,
    productId,
  ]);
  const account = rows[0];
  if (account === undefined || account.status !== 'active') return undefined;
  const licenses = await tx.query<{ license_id: string }>('SELECT license_id FROM license_licenses WHERE account_id = $1 AND product_id = $2 ORDER BY created_at, license_id', [
    accountId,
    productId,
  ]);
  return { accountId, maxDevices: Number(account.max_devices), licenseIds: licenses.rows.map((row) => row.license_id) };
}

/** The device an activation registers. */
export interface ActivatingDevice {
  readonly fingerprintHash: string;
  readonly devicePublicKey: Uint8Array;
  readonly deviceKemKey: Uint8Array;
  readonly accountId: string | null;
  readonly offline: boolean;
  readonly appVersion: string;
  /** `<os>-<arch>`, for operators. */
  readonly platform: string;
  /** The registered release it runs, when the gate knows it. */
  readonly releaseId: string | null;
}

/** The outcome of {@link takeSeat}. */
export type SeatOutcome =
  | { readonly kind: 'reused'; readonly machineId: string; readonly keyChanged: boolean }
  | { readonly kind: 'taken'; readonly machineId: string }
  | { readonly kind: 'full' };

/**
 * Gives the device a seat on a license whose row this transaction locked ({@link lockActivationLicenses}):
 * the active machine of the same fingerprint is reused (its device keys replaced: a reinstalled app
 * brings a new key pair); otherwise a machine is inserted only while the license's active machines are
 * fewer than its seats and, for an account activation, the account's fewer than `maxDevices`. The count
 * and the insert are one statement run after the lock was granted, so concurrent activations of one
 * license can never take more seats than it has.
 *
 * @param tx - The transaction holding the license lock (and the account's).
 * @param license - The locked license.
 * @param device - The device.
 * @param options - New machine id, the account's device limit, the time.
 * @returns Reused, taken, or full.
 * @example
 * ```ts
 * import { takeSeat } from '@tollgate/core/license';
 * const seat = await takeSeat(tx, license, device, { machineId: randomId(), now });
 * ```
 */
export async function takeSeat(
  tx: SqlClient,
  license: ActivationLicense,
  device: ActivatingDevice,
  options: { machineId: string; maxDevices?: number; now: Date },
): Promise<SeatOutcome> {
  const reused = await tx.query<{ machine_id: string; key_changed: boolean }>(
    `WITH old AS (
       SELECT machine_id, device_public_key FROM license_machines WHERE license_id = $1 AND fingerprint_hash = $2 AND status = 'active' FOR UPDATE
     )
     UPDATE license_machines m SET device_public_key = $3, device_kem_key = $4, last_seen_at = $5, app_version = $6, platform = $7,
       release_id = COALESCE($8, m.release_id), offline = m.offline OR $9, account_id = COALESCE(m.account_id, $10)
     FROM old WHERE m.machine_id = old.machine_id
     RETURNING m.machine_id, old.device_public_key <> $3 AS key_changed`,
    [license.licenseId, device.fingerprintHash, device.devicePublicKey, device.deviceKemKey, options.now, device.appVersion, device.platform, device.releaseId, device.offline, device.accountId],
  );
  const row = reused.rows[0];
  if (row !== undefined) return { kind: 'reused', machineId: row.machine_id, keyChanged: row.key_changed };
  const inserted = await tx.query<{ machine_id: string }>(
    `INSERT INTO license_machines (machine_id, license_id, vendor_id, fingerprint_hash, device_public_key, device_kem_key, status, platform,
       created_at, last_seen_at, account_id, offline, app_version, release_id)
     SELECT $1, $2, $3, $4, $5, $6, 'active', $7, $8, $8, $9, $10, $11, $12
     WHERE (SELECT count(*) FROM license_machines WHERE license_id = $2 AND status = 'active') < $13
       AND ($9::text IS NULL OR $14::integer IS NULL OR (SELECT count(*) FROM license_machines WHERE account_id = $9 AND status = 'active') < $14)
     ON CONFLICT DO NOTHING
     RETURNING machine_id`,
    [
      options.machineId,
      license.licenseId,
      license.vendorId,
      device.fingerprintHash,
      device.devicePublicKey,
      device.deviceKemKey,
      device.platform,
      options.now,
      device.accountId,
      device.offline,
      device.appVersion,
      device.releaseId,
      license.seats,
      options.maxDevices ?? null,
    ],
  );
  const taken = inserted.rows[0];
  return taken === undefined ? { kind: 'full' } : { kind: 'taken', machineId: taken.machine_id };
}

/**
 * Whether the account already has an active machine with this fingerprint on any of its licenses of the
 * product (such a device re-activates without counting against the device limit).
 *
 * @param tx - The transaction holding the account lock.
 * @param licenseIds - The account's licenses.
 * @param fingerprintHash - The device's fingerprint hash.
 * @returns The license holding it, if any.
 * @example
 * ```ts
 * import { accountLicenseOfDevice } from '@tollgate/core/license';
 * const licenseId = await accountLicenseOfDevice(tx, account.licenseIds, fingerprintHash);
 * ```
 */
export async function accountLicenseOfDevice(tx: SqlClient, licenseIds: readonly string[], fingerprintHash: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ license_id: string }>(
    `SELECT license_id FROM license_machines WHERE license_id = ANY($1::text[]) AND fingerprint_hash = $2 AND status = 'active' ORDER BY license_id LIMIT 1`,
    [[...licenseIds], fingerprintHash],
  );
  return rows[0]?.license_id;
}
