import type { SqlClient } from '../../../storage/sql-client';

/** The billing providers whose webhooks fill subscriptions (license spec, "Inbound billing webhooks"). */
export type BillingProvider = 'stripe' | 'paddle' | 'lemonsqueezy';

/** Subscription states, normalised across providers. */
export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled' | 'expired';

/** The billing subscription behind a license. */
export interface SubscriptionRecord {
  readonly licenseId: string;
  readonly vendorId: string;
  readonly provider: BillingProvider;
  /** The provider's subscription id. */
  readonly externalId: string;
  readonly status: SubscriptionStatus;
  /** When the paid period ends: the subscription lapses then unless renewed. */
  readonly currentPeriodEnd: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The provider time of the newest billing event applied (`null` for rows written otherwise). */
  readonly lastEventAt: Date | null;
  /** That event's id. */
  readonly lastEventId: string | null;
}

/** What {@link SubscriptionStore.put} writes. */
export type SubscriptionInput = Omit<SubscriptionRecord, 'createdAt' | 'updatedAt' | 'lastEventAt' | 'lastEventId'> & {
  readonly lastEventAt?: Date | null;
  readonly lastEventId?: string | null;
};

/**
 * Subscriptions of licenses (one at most per license).
 *
 * Contract: reads name the vendor (another vendor's license has none). `put` is one upsert keyed by the
 * license: billing events arriving twice leave one row with the latest values. `lockByExternalId`
 * (inside a transaction) finds the subscription a provider names and holds its row until the
 * transaction ends, so two events of one subscription are applied one after the other.
 */
export interface SubscriptionStore {
  get(vendorId: string, licenseId: string): Promise<SubscriptionRecord | undefined>;
  put(subscription: SubscriptionInput, at: Date): Promise<SubscriptionRecord>;
  lockByExternalId(provider: BillingProvider, externalId: string): Promise<SubscriptionRecord | undefined>;
}

type SubscriptionRow = {
  license_id: string;
  vendor_id: string;
  provider: BillingProvider;
  external_id: string;
  status: SubscriptionStatus;
  current_period_end: Date | null;
  created_at: Date;
  updated_at: Date;
  last_event_at: Date | null;
  last_event_id: string | null;
};

const columns = 'license_id, vendor_id, provider, external_id, status, current_period_end, created_at, updated_at, last_event_at, last_event_id';

const toRecord = (row: SubscriptionRow): SubscriptionRecord => ({
  licenseId: row.license_id,
  vendorId: row.vendor_id,
  provider: row.provider,
  externalId: row.external_id,
  status: row.status,
  currentPeriodEnd: row.current_period_end,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastEventAt: row.last_event_at,
  lastEventId: row.last_event_id,
});

/**
 * The SQL {@link SubscriptionStore} over `license_subscriptions` (license migration 007).
 *
 * @param sql - A database with `licenseMigrations` applied, or a transaction on one.
 * @returns The store.
 * @example
 * ```ts
 * import { createSqlSubscriptionStore } from '@tollgate/core/license';
 * const subscription = await createSqlSubscriptionStore(sql).get(vendorId, licenseId);
 * ```
 */
export function createSqlSubscriptionStore(sql: SqlClient): SubscriptionStore {
  return {
    async get(vendorId, licenseId) {
      const { rows } = await sql.query<SubscriptionRow>(`SELECT ${columns} FROM license_subscriptions WHERE license_id = $1 AND vendor_id = $2`, [licenseId, vendorId]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
    async put(subscription, at) {
      // The license's own vendor is written, whatever the caller says, so a row can never cross vendors.
      const { rows } = await sql.query<SubscriptionRow>(
        `INSERT INTO license_subscriptions (license_id, vendor_id, provider, external_id, status, current_period_end, created_at, updated_at, last_event_at, last_event_id)
         SELECT license_id, vendor_id, $3, $4, $5, $6, $7, $7, $8, $9 FROM license_licenses WHERE license_id = $1 AND vendor_id = $2
         ON CONFLICT (license_id) DO UPDATE SET provider = EXCLUDED.provider, external_id = EXCLUDED.external_id, status = EXCLUDED.status,
           current_period_end = EXCLUDED.current_period_end, updated_at = EXCLUDED.updated_at,
           last_event_at = EXCLUDED.last_event_at, last_event_id = EXCLUDED.last_event_id
         RETURNING ${columns}`,
        [
          subscription.licenseId,
          subscription.vendorId,
          subscription.provider,
          subscription.externalId,
          subscription.status,
          subscription.currentPeriodEnd,
          at,
          subscription.lastEventAt ?? null,
          subscription.lastEventId ?? null,
        ],
      );
      const row = rows[0];
      if (row === undefined) throw new Error(`No license ${subscription.licenseId} of vendor ${subscription.vendorId} to attach a subscription to.`);
      return toRecord(row);
    },
    async lockByExternalId(provider, externalId) {
      const { rows } = await sql.query<SubscriptionRow>(`SELECT ${columns} FROM license_subscriptions WHERE provider = $1 AND external_id = $2 FOR UPDATE`, [provider, externalId]);
      return rows[0] === undefined ? undefined : toRecord(rows[0]);
    },
  };
}
