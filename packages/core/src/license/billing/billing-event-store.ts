import type { SqlClient } from '../../storage/sql-client';
import type { BillingEvent } from './billing-event';
import type { WebhookProvider } from './webhook-signature';

/** Where a queued event stands. */
export type BillingEventStatus = 'pending' | 'processed' | 'dead';

/** A queued event as stored. */
export interface StoredBillingEvent {
  readonly provider: WebhookProvider;
  readonly eventId: string;
  readonly eventType: string;
  readonly event: BillingEvent;
  readonly status: BillingEventStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly receivedAt: Date;
  readonly processedAt: Date | null;
  /** What processing did (`license_updated`, `license_issued`, `license_revoked`, `stale`, `unmapped`, …). */
  readonly outcome: string | null;
  readonly licenseId: string | null;
  readonly lastError: string | null;
}

/** The outcome of {@link BillingEventStore.accept}: a new row, or the row an earlier delivery left. */
export type BillingAcceptance = { readonly kind: 'queued' } | { readonly kind: 'duplicate'; readonly status: BillingEventStatus };

type Row = {
  provider: WebhookProvider;
  event_id: string;
  event_type: string;
  event: BillingEvent;
  status: BillingEventStatus;
  attempts: number;
  next_attempt_at: Date;
  received_at: Date;
  processed_at: Date | null;
  outcome: string | null;
  license_id: string | null;
  last_error: string | null;
};

const columns = 'provider, event_id, event_type, event, status, attempts, next_attempt_at, received_at, processed_at, outcome, license_id, last_error';

const toStored = (row: Row): StoredBillingEvent => ({
  provider: row.provider,
  eventId: row.event_id,
  eventType: row.event_type,
  event: row.event,
  status: row.status,
  attempts: Number(row.attempts),
  nextAttemptAt: row.next_attempt_at,
  receivedAt: row.received_at,
  processedAt: row.processed_at,
  outcome: row.outcome,
  licenseId: row.license_id,
  lastError: row.last_error,
});

/**
 * The durable queue of inbound billing events (`license_billing_events`, license migration 017).
 *
 * Contract:
 * - `accept` is one `INSERT … ON CONFLICT DO NOTHING` on (provider, event_id): of any number of
 *   deliveries of one event, concurrent or not, exactly one is `queued`; the others are `duplicate`
 *   and change nothing. Nothing else happens before it, so a duplicate has no side effect at all.
 * - `claimDue` (inside a transaction) takes the oldest due pending row with `FOR UPDATE SKIP LOCKED`: one
 *   instance applies an event at a time, and a row whose transaction dies (a crash, a lost connection)
 *   is pending again, untouched.
 * - `markProcessed` and `markFailed` write the claimed row in the same transaction.
 */
export interface BillingEventStore {
  accept(event: BillingEvent, at: Date): Promise<BillingAcceptance>;
  claimDue(now: Date): Promise<StoredBillingEvent | undefined>;
  markProcessed(event: StoredBillingEvent, result: { outcome: string; licenseId: string | null }, at: Date): Promise<void>;
  /** Counts the failed attempt: pending again at `retryAt`, or `dead` when `retryAt` is `null`. */
  markFailed(event: StoredBillingEvent, error: string, retryAt: Date | null): Promise<void>;
  get(provider: WebhookProvider, eventId: string): Promise<StoredBillingEvent | undefined>;
}

/**
 * The SQL {@link BillingEventStore}.
 *
 * @param sql - The database, or a transaction on it (`claimDue` and the marks need one).
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlBillingEventStore } from '@tollgate/core/license';
 * const accepted = await createSqlBillingEventStore(sql).accept(event, new Date());
 * ```
 */
export function createSqlBillingEventStore(sql: SqlClient): BillingEventStore {
  return {
    async accept(event, at) {
      const inserted = await sql.query<{ event_id: string }>(
        `INSERT INTO license_billing_events (provider, event_id, event_type, event, next_attempt_at, received_at)
         VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (provider, event_id) DO NOTHING RETURNING event_id`,
        [event.provider, event.eventId, event.eventType, JSON.stringify(event), at],
      );
      if (inserted.rows.length > 0) return { kind: 'queued' };
      const { rows } = await sql.query<{ status: BillingEventStatus }>('SELECT status FROM license_billing_events WHERE provider = $1 AND event_id = $2', [event.provider, event.eventId]);
      return { kind: 'duplicate', status: rows[0]?.status ?? 'pending' };
    },
    async claimDue(now) {
      const { rows } = await sql.query<Row>(
        `SELECT ${columns} FROM license_billing_events WHERE status = 'pending' AND next_attempt_at <= $1
         ORDER BY next_attempt_at, received_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [now],
      );
      return rows[0] === undefined ? undefined : toStored(rows[0]);
    },
    async markProcessed(event, result, at) {
      await sql.query(
        `UPDATE license_billing_events SET status = 'processed', processed_at = $3, outcome = $4, license_id = $5, attempts = attempts + 1, last_error = NULL
         WHERE provider = $1 AND event_id = $2`,
        [event.provider, event.eventId, at, result.outcome, result.licenseId],
      );
    },
    async markFailed(event, error, retryAt) {
      await sql.query(
        `UPDATE license_billing_events SET attempts = attempts + 1, last_error = $3,
           status = CASE WHEN $4::timestamptz IS NULL THEN 'dead' ELSE 'pending' END, next_attempt_at = COALESCE($4::timestamptz, next_attempt_at)
         WHERE provider = $1 AND event_id = $2`,
        [event.provider, event.eventId, error.slice(0, 500), retryAt],
      );
    },
    async get(provider, eventId) {
      const { rows } = await sql.query<Row>(`SELECT ${columns} FROM license_billing_events WHERE provider = $1 AND event_id = $2`, [provider, eventId]);
      return rows[0] === undefined ? undefined : toStored(rows[0]);
    },
  };
}
