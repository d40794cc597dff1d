import type { SqlClient } from '../../storage/sql-client';
import { assertLoginGateRule, type LoginGateDecision, type LoginGateRule, type LoginGateState } from './login-gate';

/**
 * The login gate's storage, shared by every server instance.
 *
 * Contract: `charge` is atomic per key (concurrent charges of one key queue on its row and each sees
 * the previous one's count), so of N concurrent attempts on a key at its threshold exactly the
 * remaining free ones are let through. Keys are opaque (keyed hashes); times are unix seconds.
 */
export interface LoginGateStore {
  /** Charges one attempt to `key` under `rule` (see `loginGateCharge`). */
  charge(key: string, now: number, rule: LoginGateRule): Promise<LoginGateDecision>;
  /** Gives one charge back (see `loginGateRefund`); nothing when the key has no row. */
  refund(key: string, rule: LoginGateRule): Promise<void>;
  /** Forgets `key` entirely (a correct password for the account). */
  clear(key: string): Promise<void>;
  /** The stored state of `key`, for tests and diagnostics. */
  read(key: string): Promise<LoginGateState | undefined>;
  /** Deletes rows that are unlocked and whose last charge is `forgetAfterSeconds` old at `now`; returns the count. */
  purge(now: number, forgetAfterSeconds: number): Promise<number>;
}

// `loginGateCharge` as SQL: $2 now, $3 threshold, $4 base lock, $5 max lock, $6 forget-after.
const locked = '(g.locked_until > $2::bigint)';
const nextFailures = '((CASE WHEN $2::bigint - g.last_charge_at >= $6::bigint THEN 0 ELSE g.failures END) + 1)';
const lockUntil = (failures: string) =>
  `(CASE WHEN ${failures} >= $3::int THEN $2::bigint + LEAST($5::bigint, $4::bigint << LEAST(${failures} - $3::int, 30)) ELSE 0 END)`;

// One statement, so a charge is atomic per key; an unseen key is inserted as its first charge.
const chargeSql = `
  INSERT INTO license_login_gates AS g (gate_key, failures, last_charge_at, locked_until, last_allowed)
  VALUES ($1, 1, $2::bigint, ${lockUntil('1')}, true)
  ON CONFLICT (gate_key) DO UPDATE SET
    failures = CASE WHEN ${locked} THEN g.failures ELSE ${nextFailures} END,
    last_charge_at = CASE WHEN ${locked} THEN g.last_charge_at ELSE $2::bigint END,
    locked_until = CASE WHEN ${locked} THEN g.locked_until ELSE ${lockUntil(nextFailures)} END,
    last_allowed = NOT ${locked}
  RETURNING failures, last_charge_at, locked_until, last_allowed`;

const refundSql = `
  UPDATE license_login_gates SET
    failures = GREATEST(failures - 1, 0),
    locked_until = CASE WHEN GREATEST(failures - 1, 0) >= $2::int THEN locked_until ELSE 0 END
  WHERE gate_key = $1`;

type GateRow = { failures: number; last_charge_at: string | number; locked_until: string | number; last_allowed?: boolean };

const toState = (row: GateRow): LoginGateState => ({ failures: row.failures, lastChargeAt: Number(row.last_charge_at), lockedUntil: Number(row.locked_until) });

/**
 * The SQL {@link LoginGateStore} over `license_login_gates` (license migration 011): one upsert per
 * charge, mirroring `loginGateCharge` in integer seconds.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlLoginGateStore, defaultLoginGateRules } from '@tollgate/core/license';
 * const decision = await createSqlLoginGateStore(sql).charge(gateKey, nowSeconds, defaultLoginGateRules.account);
 * ```
 */
export function createSqlLoginGateStore(sql: SqlClient): LoginGateStore {
  return {
    async charge(key, now, rule) {
      assertLoginGateRule(rule);
      const { rows } = await sql.query<GateRow>(chargeSql, [key, now, rule.threshold, rule.baseLockSeconds, rule.maxLockSeconds, rule.forgetAfterSeconds]);
      const row = rows[0];
      if (row === undefined) throw new Error('The login gate upsert returned no row.');
      const state = toState(row);
      return row.last_allowed ? { allowed: true, state } : { allowed: false, retryAfterSeconds: state.lockedUntil - now, state };
    },
    async refund(key, rule) {
      await sql.query(refundSql, [key, rule.threshold]);
    },
    async clear(key) {
      await sql.query('DELETE FROM license_login_gates WHERE gate_key = $1', [key]);
    },
    async read(key) {
      const { rows } = await sql.query<GateRow>('SELECT failures, last_charge_at, locked_until FROM license_login_gates WHERE gate_key = $1', [key]);
      return rows[0] === undefined ? undefined : toState(rows[0]);
    },
    async purge(now, forgetAfterSeconds) {
      const { rowCount } = await sql.query('DELETE FROM license_login_gates WHERE locked_until <= $1::bigint AND last_charge_at <= $1::bigint - $2::bigint', [now, forgetAfterSeconds]);
      return rowCount;
    },
  };
}
