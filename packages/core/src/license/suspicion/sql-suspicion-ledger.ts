import { isHexId } from '../../crypto/random';
import { createSqlJobQueue } from '../../storage/jobs/sql-job-queue';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import {
  defaultSuspicionSettings,
  maxSuspicionScore,
  suspicionWeights,
  type SuspicionAlert,
  type SuspicionKind,
  type SuspicionLedger,
  type SuspicionRecordResult,
  type SuspicionSettings,
  type SuspicionSignal,
} from './suspicion-signals';

/** The job queue alerts wait on for delivery (`createSuspicionAlertDeliverer` works it). */
export const suspicionAlertQueue = 'license.suspicion-alerts';

/** Delivery attempts before an alert is dead-lettered (about a day with the queue's capped backoff). */
export const suspicionAlertMaxAttempts = 12;

/** Options of {@link createSqlSuspicionLedger}. */
export interface SqlSuspicionLedgerOptions {
  readonly clock: Clock;
  readonly settings?: Partial<SuspicionSettings>;
}

type ProductRow = { alert_webhook_url: string | null; alert_threshold: number | null };

// The score reads at most 100 rows: every weight is ≥ 1 and the score is capped at 100, so a flood of
// signals costs one bounded index scan, never a sum over the whole flood.
const scoreSql = `SELECT LEAST(${maxSuspicionScore}, COALESCE(SUM(weight), 0))::int AS score FROM (
  SELECT weight FROM license_suspicion_signals WHERE product_id = $1 AND at > $2 ORDER BY at DESC LIMIT ${maxSuspicionScore}) recent`;

// A conditional upsert: of concurrent crossings, the first one commits a fresh `last_alert_at` and the
// others find the row inside its cool-down (PostgreSQL re-checks the WHERE on the updated row).
const claimAlertSql = `INSERT INTO license_suspicion_alerts AS alerts (product_id, alert_seq, last_alert_at) VALUES ($1, 1, $2)
  ON CONFLICT (product_id) DO UPDATE SET alert_seq = alerts.alert_seq + 1, last_alert_at = EXCLUDED.last_alert_at
  WHERE alerts.last_alert_at <= $3
  RETURNING alert_seq::text AS alert_seq`;

async function alertBreakdown(tx: SqlClient, productId: string, since: Date): Promise<Pick<SuspicionAlert, 'signals' | 'licenses'>> {
  const kinds = await tx.query<{ kind: SuspicionKind; n: string }>(
    `SELECT kind, count(*)::text AS n FROM license_suspicion_signals WHERE product_id = $1 AND at > $2 GROUP BY kind ORDER BY kind`,
    [productId, since],
  );
  const licenses = await tx.query<{ license_id: string; score: number }>(
    `SELECT license_id, LEAST(${maxSuspicionScore}, SUM(weight))::int AS score FROM license_suspicion_signals
     WHERE product_id = $1 AND at > $2 AND license_id IS NOT NULL GROUP BY license_id ORDER BY score DESC, license_id LIMIT 10`,
    [productId, since],
  );
  return {
    signals: Object.fromEntries(kinds.rows.map((row) => [row.kind, Number(row.n)])),
    licenses: licenses.rows.map((row) => ({ licenseId: row.license_id, score: Number(row.score) })),
  };
}

function checkSignal(signal: SuspicionSignal): void {
  if (!Object.hasOwn(suspicionWeights, signal.kind)) throw new TypeError(`Unknown suspicion kind ${JSON.stringify(signal.kind)}.`);
  if (signal.licenseId !== undefined && !isHexId(signal.licenseId, 16)) throw new TypeError('licenseId must be 32 lowercase hex digits.');
}

/**
 * The suspicion ledger over the license tables (migration 013): `record` stores a signal, scores the
 * product over the window and, when the product's alert webhook threshold is reached outside the
 * cool-down, queues one alert on {@link suspicionAlertQueue} in the same transaction, so an alert is
 * never lost (the signal and its job commit together) and never doubled (the cool-down row decides).
 *
 * @param sql - Database with the license migrations applied.
 * @param options - Clock and settings ({@link defaultSuspicionSettings} by default).
 * @returns The ledger.
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createSqlSuspicionLedger } from '@tollgate/core/license';
 * const suspicion = createSqlSuspicionLedger(sql, { clock: systemClock });
 * await suspicion.record({ productId, licenseId, kind: 'proof_failure' });
 * ```
 */
export function createSqlSuspicionLedger(sql: SqlClient, options: SqlSuspicionLedgerOptions): SuspicionLedger {
  const settings = { ...defaultSuspicionSettings, ...options.settings };
  const { clock } = options;

  return {
    async record(signal) {
      checkSignal(signal);
      const now = new Date(clock.now());
      const since = new Date(now.getTime() - settings.windowMs);
      return sql.transaction(async (tx): Promise<SuspicionRecordResult> => {
        const product = await tx.query<ProductRow>('SELECT alert_webhook_url, alert_threshold FROM license_products WHERE product_id = $1', [signal.productId]);
        // A signal about a product that does not exist (a forged request names any id) is not stored.
        if (product.rows[0] === undefined) return { score: 0 };
        await tx.query('INSERT INTO license_suspicion_signals (product_id, license_id, kind, weight, at) VALUES ($1, $2, $3, $4, $5)', [
          signal.productId,
          signal.licenseId ?? null,
          signal.kind,
          suspicionWeights[signal.kind],
          now,
        ]);
        const score = Number((await tx.query<{ score: number }>(scoreSql, [signal.productId, since])).rows[0]?.score ?? 0);
        const { alert_webhook_url: url, alert_threshold: threshold } = product.rows[0];
        if (url === null || threshold === null || score < Number(threshold)) return { score };
        const claimed = await tx.query<{ alert_seq: string }>(claimAlertSql, [signal.productId, now, new Date(now.getTime() - settings.cooldownMs)]);
        const seq = claimed.rows[0]?.alert_seq;
        if (seq === undefined) return { score };
        const alert: SuspicionAlert = {
          alertId: `${signal.productId}-${seq}`,
          productId: signal.productId,
          score,
          threshold: Number(threshold),
          windowSeconds: Math.round(settings.windowMs / 1000),
          ...(await alertBreakdown(tx, signal.productId, since)),
          raisedAt: Math.floor(now.getTime() / 1000),
        };
        await createSqlJobQueue(tx, { clock }).enqueue(suspicionAlertQueue, alert, { idempotencyKey: alert.alertId, maxAttempts: suspicionAlertMaxAttempts });
        return { score, alert };
      });
    },

    async purge() {
      const before = new Date(clock.now() - settings.retentionMs);
      const result = await sql.query<{ n: string }>('WITH gone AS (DELETE FROM license_suspicion_signals WHERE at < $1 RETURNING 1) SELECT count(*)::text AS n FROM gone', [before]);
      return Number(result.rows[0]?.n ?? 0);
    },
  };
}
