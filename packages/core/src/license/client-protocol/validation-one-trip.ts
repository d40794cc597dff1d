import type { RateLimitDecision, RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import { sqlRateLimitDecision, sqlRateLimitUpsert } from '../../storage/rate-limit/sql-rate-limiter';
import type { SqlClient } from '../../storage/sql-client';
import { nonceParams, nonceUnseen, sessionColumns, sessionJoins, sessionMachineOf, touchedCte, type SessionMachine, type SessionNonceInput, type SessionRow } from './session-store';

// Every validation of a known device runs one of these two fixed texts: planning them once per pooled
// connection instead of on every call halves the statement's cost on the PostgreSQL server.
const prepared = { prepare: true } as const;

/**
 * The device keys this instance has read, by machine, with the license and product the machine was read
 * under. A machine's key is set at activation and never changes, but the cache is only a hint: the
 * statement that uses it compares it with the stored key and spends nothing when they differ.
 */
export interface DeviceKeyCache {
  /** The key read for this machine under this license and product, if any. */
  get(machineId: string, licenseId: string, productId: string): Uint8Array | undefined;
  /** Remembers the key of a machine as read from the database. */
  remember(machine: Pick<SessionMachine, 'machineId' | 'licenseId' | 'productId' | 'devicePublicKey'>): void;
}

/**
 * A bounded {@link DeviceKeyCache} (oldest entry dropped first).
 *
 * @param maxEntries - How many machines it keeps (default 50 000).
 * @returns The cache.
 * @example
 * ```ts
 * import { createDeviceKeyCache } from '@tollgate/core/license';
 * const deviceKeys = createDeviceKeyCache();
 * ```
 */
export function createDeviceKeyCache(maxEntries = 50_000): DeviceKeyCache {
  const entries = new Map<string, { licenseId: string; productId: string; key: Uint8Array }>();
  return {
    get(machineId, licenseId, productId) {
      const entry = entries.get(machineId);
      return entry !== undefined && entry.licenseId === licenseId && entry.productId === productId ? entry.key : undefined;
    },
    remember(machine) {
      entries.delete(machine.machineId);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(machine.machineId, { licenseId: machine.licenseId, productId: machine.productId, key: machine.devicePublicKey });
    },
  };
}

/** The machine CTE of the one-trip statements: read in the statement's snapshot, only under that license and product with that key. */
const machineCte = (license: string, product: string, key: string) => `machine AS (
       SELECT ${sessionColumns} FROM ${sessionJoins}
       WHERE m.machine_id = $1 AND m.license_id = ${license} AND l.product_id = ${product} AND m.device_public_key = ${key}
     )`;

// $1–$7 the nonce, $8–$11 the budget, $12 license, $13 product, $14 the cached device key. Nothing is
// spent unless the machine exists so, and the budget is charged only for an unspent nonce.
const budgetedOneTripSql = `WITH ${machineCte('$12', '$13', '$14')}, budget AS (${sqlRateLimitUpsert({ key: '$8', nowMs: '$9', limit: '$10', windowMs: '$11', when: `EXISTS (SELECT 1 FROM machine) AND ${nonceUnseen}` })}
     ), spent AS (
       INSERT INTO license_client_nonces (scope, nonce, expires_at) SELECT decode($1, 'hex'), $2, $4 FROM budget WHERE budget.allowed ON CONFLICT DO NOTHING RETURNING 1
     ), ${touchedCte('validate')}
     SELECT machine.*, budget.tat, budget.allowed, EXISTS (SELECT 1 FROM spent) AS fresh, EXISTS (SELECT 1 FROM touched) AS active FROM machine LEFT JOIN budget ON true`;

// Without a per-license budget: $1–$7 the nonce, $8 license, $9 product, $10 the cached device key.
const unbudgetedOneTripSql = `WITH ${machineCte('$8', '$9', '$10')}, spent AS (
       INSERT INTO license_client_nonces (scope, nonce, expires_at) SELECT decode($1, 'hex'), $2, $4 WHERE EXISTS (SELECT 1 FROM machine) ON CONFLICT DO NOTHING RETURNING 1
     ), ${touchedCte('validate')}
     SELECT machine.*, NULL::text AS tat, NULL::boolean AS allowed, EXISTS (SELECT 1 FROM spent) AS fresh, EXISTS (SELECT 1 FROM touched) AS active FROM machine`;

/**
 * Validation's database work in one round trip, for a request whose proof verified with a cached device
 * key: reads the machine (as `readSessionMachine`) and, in the same statement and only when the machine
 * still holds that key under the license and product named, charges the license budget (when there is
 * one) for an unspent nonce, spends the nonce when the budget allowed it and records the contact.
 * `undefined` when the machine was not found so (nothing was spent): the caller takes the two-statement path.
 *
 * @param sql - The database the SQL limiter keeps its buckets in.
 * @param input - The nonce input, the budget (absent: no per-license budget), the request's license (hex)
 *   and product, and the cached key.
 * @returns The machine as read, the budget's decision (`undefined` for a replay or without a budget), `fresh` and `active`.
 * @example
 * ```ts
 * import { spendValidationInOneTrip } from '@tollgate/core/license';
 * const trip = await spendValidationInOneTrip(sql, { ...nonceInput, budget, licenseId, productId, devicePublicKey });
 * ```
 */
export async function spendValidationInOneTrip(
  sql: SqlClient,
  input: SessionNonceInput & {
    readonly budget: { readonly key: string; readonly rule: RateLimitRule; readonly nowMs: number } | undefined;
    readonly licenseId: string;
    readonly productId: string;
    readonly devicePublicKey: Uint8Array;
  },
): Promise<{ machine: SessionMachine; decision: RateLimitDecision | undefined; fresh: boolean; active: boolean } | undefined> {
  type Row = SessionRow & { tat: string | null; allowed: boolean | null; fresh: boolean; active: boolean };
  const { budget } = input;
  const nowMs = Math.floor(budget?.nowMs ?? 0);
  const { rows } =
    budget === undefined
      ? await sql.query<Row>(unbudgetedOneTripSql, [...nonceParams(input), input.licenseId, input.productId, input.devicePublicKey], prepared)
      : await sql.query<Row>(budgetedOneTripSql, [...nonceParams(input), budget.key, nowMs, budget.rule.limit, budget.rule.windowMs, input.licenseId, input.productId, input.devicePublicKey], prepared);
  const row = rows[0];
  if (row === undefined) return undefined;
  const decision = budget === undefined || row.tat === null || row.allowed === null ? undefined : sqlRateLimitDecision({ tat: row.tat, allowed: row.allowed }, nowMs, budget.rule);
  return { machine: sessionMachineOf(row), decision, fresh: row.fresh === true, active: row.active === true };
}
