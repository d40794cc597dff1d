import { hexEncode } from '../../crypto/hex';
import { assertRateLimitInput, type RateLimitDecision, type RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import { sqlRateLimitDecision, sqlRateLimitUpsert } from '../../storage/rate-limit/sql-rate-limiter';
import type { SqlClient, SqlParam } from '../../storage/sql-client';
import type { EntitlementOverrides, LicenseStatus } from '../model/licenses/license-record';
import type { MachineStatus } from '../model/machines/machine-store';
import { policyDocument, type PolicyDocument, type PolicyVersionScope } from '../model/policies/policy-document';

/** A machine with its license, policy and the revocation epoch, as validate, heartbeat and deactivate read it. */
export interface SessionMachine {
  readonly machineId: string;
  readonly licenseId: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly fingerprintHash: string;
  /** The key registered at activation: it checks the request's proof. */
  readonly devicePublicKey: Uint8Array;
  /** The X25519 KEM key registered at activation (asset keys are wrapped to it), if any. */
  readonly deviceKemKey: Uint8Array | null;
  readonly status: MachineStatus;
  readonly deactivationReason: 'client' | 'reclaimed' | null;
  readonly offline: boolean;
  readonly license: {
    readonly status: LicenseStatus;
    /** The reason code recorded with an Admin revoke (0–255), if any: 4 and 5 name fraud and refund. */
    readonly revocationReason: number | null;
    readonly expiresAt: Date | null;
    readonly tier: string | null;
    readonly entitlementOverrides: EntitlementOverrides;
    readonly versionScopeOverride: PolicyVersionScope | null;
  };
  readonly policy: PolicyDocument;
  /** The revocation epoch (feed head) in the same snapshot. */
  readonly revocationEpoch: number;
  /**
   * The product catalog's version in the same snapshot: its item count and the sum of a hash of each
   * item's id and members (items are never deleted; an edit of the members of any item changes the
   * sum), which keys the entitlement cache. Names and descriptions do not count: they are not entitlements.
   */
  readonly catalogStamp: string;
}

/** @internal A row of {@link sessionColumns}. */
export type SessionRow = {
  machine_id: string;
  license_id: string;
  vendor_id: string;
  product_id: string;
  fingerprint_hash: string;
  device_public_key: Uint8Array;
  device_kem_key: Uint8Array | null;
  status: MachineStatus;
  deactivation_reason: 'client' | 'reclaimed' | null;
  offline: boolean;
  license_status: LicenseStatus;
  revocation_reason: number | string | null;
  expires_at: Date | null;
  tier: string | null;
  entitlement_overrides: EntitlementOverrides;
  version_scope_override: PolicyVersionScope | null;
  document: PolicyDocument;
  revocation_epoch: string | null;
  catalog_stamp: string | null;
};

/**
 * Reads the machine a session request names, in one statement: the machine must belong to the license
 * and the license to the product the request names, else `undefined` (the caller answers 1000 without
 * saying which did not match).
 *
 * @param sql - The database.
 * @param ids - Keys 1–3 of the request.
 * @returns The machine, or `undefined`.
 * @example
 * ```ts
 * import { readSessionMachine } from '@tollgate/core/license';
 * const machine = await readSessionMachine(sql, { productId, licenseId: request.licenseId, machineId: request.machineId });
 * ```
 */
export async function readSessionMachine(sql: SqlClient, ids: { productId: string; licenseId: Uint8Array; machineId: Uint8Array }): Promise<SessionMachine | undefined> {
  const { rows } = await sql.query<SessionRow>(`SELECT ${sessionColumns} FROM ${sessionJoins} WHERE m.machine_id = $1 AND m.license_id = $2 AND l.product_id = $3`, [
    hexEncode(ids.machineId),
    hexEncode(ids.licenseId),
    ids.productId,
  ]);
  const row = rows[0];
  return row === undefined ? undefined : sessionMachineOf(row);
}

/** @internal What a session read selects (aliases `m`, `l`, `p`), for statements that read the machine themselves. */
export const sessionColumns = `m.machine_id, m.license_id, m.vendor_id, l.product_id, m.fingerprint_hash, m.device_public_key, m.device_kem_key, m.status, m.deactivation_reason, m.offline,
            l.status AS license_status, l.revocation_reason, l.expires_at, l.tier, l.entitlement_overrides, l.version_scope_override, p.document,
            (SELECT seq FROM license_revocation_head WHERE singleton) AS revocation_epoch,
            (SELECT count(*) || '/' || COALESCE(sum(hashtext(c.kind || ':' || c.item_id || '=' || c.members::text)::bigint), 0)
             FROM license_catalog_items c WHERE c.product_id = l.product_id) AS catalog_stamp`;

/** @internal The joins {@link sessionColumns} reads from. */
export const sessionJoins = `license_machines m JOIN license_licenses l ON l.license_id = m.license_id JOIN license_policies p ON p.policy_id = l.policy_id`;

/** @internal A row of {@link sessionColumns} as a {@link SessionMachine}. */
export function sessionMachineOf(row: SessionRow): SessionMachine {
  return {
    machineId: row.machine_id,
    licenseId: row.license_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    fingerprintHash: row.fingerprint_hash,
    devicePublicKey: row.device_public_key,
    deviceKemKey: row.device_kem_key === null ? null : new Uint8Array(row.device_kem_key),
    status: row.status,
    deactivationReason: row.deactivation_reason,
    offline: row.offline,
    license: {
      status: row.license_status,
      revocationReason: row.revocation_reason === null ? null : Number(row.revocation_reason),
      expiresAt: row.expires_at,
      tier: row.tier,
      entitlementOverrides: row.entitlement_overrides,
      versionScopeOverride: row.version_scope_override,
    },
    policy: policyDocument(row.document),
    revocationEpoch: row.revocation_epoch === null ? 0 : Number(row.revocation_epoch),
    catalogStamp: row.catalog_stamp ?? '',
  };
}

/** Which kind of contact {@link spendSessionNonce} records. */
export type SessionContact = 'validate' | 'heartbeat' | 'deactivate';

/**
 * Spends the request's nonce and, when it was fresh, records the contact on the machine if it still
 * holds a seat (`last_seen_at`, which seat reclaim measures silence by, and the contact's own column;
 * validation also records the app version and release it reported). One statement: of two requests
 * with one nonce exactly one is fresh.
 *
 * @param sql - The database or a transaction.
 * @param input - The machine, nonce, contact, time, retention and what validation reports.
 * @returns `fresh` (false: a replay) and `active` (the machine held a seat and was touched).
 * @example
 * ```ts
 * import { spendSessionNonce } from '@tollgate/core/license';
 * const { fresh } = await spendSessionNonce(sql, { machineId, nonce, contact: 'heartbeat', now, nonceExpiry });
 * ```
 */
export async function spendSessionNonce(sql: SqlClient, input: SessionNonceInput): Promise<{ fresh: boolean; active: boolean }> {
  const { rows } = await sql.query<{ fresh: boolean; active: boolean }>(
    `WITH spent AS (
       INSERT INTO license_client_nonces (scope, nonce, expires_at) VALUES (decode($1, 'hex'), $2, $4) ON CONFLICT DO NOTHING RETURNING 1
     ), ${touchedCte(input.contact)}
     SELECT EXISTS (SELECT 1 FROM spent) AS fresh, EXISTS (SELECT 1 FROM touched) AS active`,
    nonceParams(input),
  );
  return { fresh: rows[0]?.fresh === true, active: rows[0]?.active === true };
}

/** What {@link spendSessionNonce} records. */
export interface SessionNonceInput {
  readonly machineId: string;
  readonly nonce: Uint8Array;
  readonly contact: SessionContact;
  readonly now: Date;
  readonly nonceExpiry: Date;
  readonly appVersion?: string;
  readonly releaseId?: string | null;
}

/** @internal Parameters $1–$7 of the nonce statements. */
export function nonceParams(input: SessionNonceInput): SqlParam[] {
  return [input.machineId, input.nonce, input.now, input.nonceExpiry, input.appVersion ?? null, input.releaseId ?? null, input.contact !== 'deactivate'];
}

/** @internal The contact CTE `touched`. */
// The contact on the machine ($1 machine, $3 now, $5 app version, $6 release, $7 whether to touch), only
// when the nonce was fresh (the `spent` CTE).
export function touchedCte(contact: SessionContact): string {
  const contactColumn = contact === 'validate' ? ', last_validated_at = $3' : contact === 'heartbeat' ? ', last_heartbeat_at = $3' : '';
  return `touched AS (
       UPDATE license_machines SET last_seen_at = $3${contactColumn}, app_version = COALESCE($5, app_version), release_id = COALESCE($6, release_id)
       WHERE machine_id = $1 AND status = 'active' AND $7::boolean AND EXISTS (SELECT 1 FROM spent)
       RETURNING 1
     )`;
}

/** The SQL that holds when the request's nonce ($1 machine, $2 nonce) has not been spent yet. */
export const nonceUnseen = `NOT EXISTS (SELECT 1 FROM license_client_nonces WHERE scope = decode($1, 'hex') AND nonce = $2)`;

/** @internal The limiter's upsert ($8–$11), charging only when `guard` holds. */
const budgetedNonceSql = `WITH budget AS (${sqlRateLimitUpsert({ key: '$8', nowMs: '$9', limit: '$10', windowMs: '$11', when: nonceUnseen })}
     ), spent AS (
       INSERT INTO license_client_nonces (scope, nonce, expires_at) SELECT decode($1, 'hex'), $2, $4 FROM budget WHERE budget.allowed ON CONFLICT DO NOTHING RETURNING 1
     ), ${touchedCte('validate')}
     SELECT budget.tat, budget.allowed, EXISTS (SELECT 1 FROM spent) AS fresh, EXISTS (SELECT 1 FROM touched) AS active FROM (SELECT 1) AS one LEFT JOIN budget ON true`;

/**
 * {@link spendSessionNonce} with one request of a budget of the shared SQL rate limiter, in the same
 * statement (one round trip, one commit). The budget is charged only when the nonce has not been spent
 * yet, so replaying a captured request costs the license nothing; the nonce is spent, and the contact
 * recorded, only when the budget allowed the request, so a refused request leaves its nonce usable.
 * Two requests racing with one unseen nonce may both be charged (both saw it unspent); exactly one is
 * fresh. Only for `validate` contacts, and only for a limiter made by `createSqlRateLimiter` over this
 * same database (`sqlRateLimiterDatabase(limiter) === sql`).
 *
 * @param sql - The database the limiter keeps its buckets in.
 * @param input - As {@link spendSessionNonce}, plus the budget's key, rule and the time in ms.
 * @returns The budget's decision (`undefined` for a replay: nothing was charged), and `fresh`/`active`
 *   (both false when the budget refused or the nonce was a replay).
 * @example
 * ```ts
 * import { spendBudgetedSessionNonce } from '@tollgate/core/license';
 * const { decision, fresh } = await spendBudgetedSessionNonce(sql, { ...nonceInput, budget: { key, rule, nowMs } });
 * ```
 */
export async function spendBudgetedSessionNonce(
  sql: SqlClient,
  input: SessionNonceInput & { readonly budget: { readonly key: string; readonly rule: RateLimitRule; readonly nowMs: number } },
): Promise<{ decision: RateLimitDecision | undefined; fresh: boolean; active: boolean }> {
  const { key, rule } = input.budget;
  assertRateLimitInput(key, rule);
  if (input.contact !== 'validate') throw new TypeError('spendBudgetedSessionNonce records validate contacts only.');
  const nowMs = Math.floor(input.budget.nowMs);
  const { rows } = await sql.query<{ tat: string | null; allowed: boolean | null; fresh: boolean; active: boolean }>(budgetedNonceSql, [
    ...nonceParams(input),
    key,
    nowMs,
    rule.limit,
    rule.windowMs,
  ]);
  const row = rows[0];
  if (row === undefined) throw new Error('The budgeted nonce statement returned no row.');
  const decision = row.tat === null || row.allowed === null ? undefined : sqlRateLimitDecision({ tat: row.tat, allowed: row.allowed }, nowMs, rule);
  return { decision, fresh: row.fresh === true, active: row.active === true };
}

/**
 * Whether a session request's nonce was already spent (a replay), without spending it: for callers
 * whose budget lives outside this database, so they can refuse a replay before charging the budget.
 *
 * @param sql - The database.
 * @param machineId - The machine (hex), the nonce's scope.
 * @param nonce - The request's nonce.
 * @returns `true` when the nonce is already recorded.
 * @example
 * ```ts
 * import { sessionNonceSpent } from '@tollgate/core/license';
 * if (await sessionNonceSpent(sql, machine.machineId, request.nonce)) throw refusedCredential(401);
 * ```
 */
export async function sessionNonceSpent(sql: SqlClient, machineId: string, nonce: Uint8Array): Promise<boolean> {
  const { rows } = await sql.query<{ spent: boolean }>(`SELECT NOT ${nonceUnseen} AS spent`, [machineId, nonce]);
  return rows[0]?.spent === true;
}
