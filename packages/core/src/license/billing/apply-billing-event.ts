import type { RandomSource } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import type { AdminCall } from '../admin/admin-operation';
import type { AuditLog } from '../admin/audit/audit-log';
import type { AdminRevocationDeps } from '../admin/licenses/admin-revocation';
import { licenseRevokeOperation } from '../admin/licenses/license-revoke-operation';
import { createSqlLicenseStore } from '../model/licenses/license-store';
import { createSqlSubscriptionStore, type SubscriptionRecord } from '../model/licenses/subscription-store';
import type { BillingEvent } from './billing-event';
import { mapNewSubscription } from './map-subscription';

/** What applying billing events needs. */
export interface BillingApplyDeps {
  readonly audit: AuditLog;
  /** Signing epochs and the post-commit notice of the Admin revoke path (refunds and chargebacks). */
  readonly revocation: AdminRevocationDeps;
  /** `deriveLicenseAdminKeys(masterKey).licenseKeyHash`, for licenses issued to new subscriptions. */
  readonly licenseKeyHashKey: Uint8Array;
  /** `deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel)`: verifies `tollgate_checkout` tokens. */
  readonly checkoutTokenKey: Uint8Array;
  /** How long access lasts past a failed renewal, and past the paid period while renewals arrive (seconds). */
  readonly dunningGraceSeconds: number;
  readonly random?: RandomSource;
}

/** What applying one event did. */
export interface BillingApplyResult {
  /**
   * `license_updated`, `license_issued`, `license_revoked`, `already_revoked` (a revoked license is never
   * changed), `stale` (an older event than the one applied last), `payment_recorded`, or `unmapped`
   * (no license found: `unmapped:<why>`).
   */
  readonly outcome: string;
  readonly licenseId: string | null;
}

/** The kill reason a revocation shows the device: 5 refund, 4 fraud (chargeback). */
const reversalReason = { refund: 5, chargeback: 4 } as const;

/**
 * When access ends after `event`: the paid period plus the grace (`grant`; without a known period,
 * the event time plus the grace, never "forever"), the event time plus the grace (`dunning`), the period end (`cancel`), the event time (`end`).
 *
 * @param event - The normalised event.
 * @param dunningGraceSeconds - `BILLING_DUNNING_GRACE_DAYS` in seconds.
 * @returns The license's new `expires_at`.
 * @example
 * ```ts
 * import { billingAccessUntil } from '@tollgate/core/license';
 * const expiresAt = billingAccessUntil(event, 7 * 86_400);
 * ```
 */
export function billingAccessUntil(event: BillingEvent, dunningGraceSeconds: number): Date {
  const grace = dunningGraceSeconds * 1000;
  switch (event.effect) {
    case 'grant':
      return new Date((event.periodEnd ?? event.occurredAt) + grace);
    case 'dunning':
      return new Date(event.occurredAt + grace);
    case 'cancel':
      return new Date(event.periodEnd ?? event.occurredAt);
    default:
      return new Date(Math.min(event.periodEnd ?? event.occurredAt, event.occurredAt));
  }
}

/**
 * The license a refund or chargeback naming only a payment reverses: found through a payment the
 * server recorded from an earlier paid event of a subscription it linked itself (never through metadata,
 * which a buyer may set).
 */
async function licenseOfPayment(sql: SqlClient, event: BillingEvent): Promise<{ licenseId: string; vendorId: string } | undefined> {
  if (event.paymentRefs.length === 0) return undefined;
  const { rows } = await sql.query<{ license_id: string; vendor_id: string }>(
    `SELECT s.license_id, s.vendor_id FROM license_billing_payments p
     JOIN license_subscriptions s ON s.provider = p.provider AND s.external_id = p.subscription_id
     WHERE p.provider = $1 AND p.payment_ref = ANY($2::text[]) ORDER BY p.created_at LIMIT 1`,
    [event.provider, [...event.paymentRefs]],
  );
  return rows[0] === undefined ? undefined : { licenseId: rows[0].license_id, vendorId: rows[0].vendor_id };
}

/**
 * The expiry a paid event without a period end leaves: the current one, moved forward to the event
 * time plus the grace at most (a perpetual license stays perpetual; a time-limited one never becomes so).
 */
async function expiryWithoutPeriod(sql: SqlClient, licenseId: string, floor: Date): Promise<Date | null> {
  const { rows } = await sql.query<{ expires_at: Date | null }>('SELECT expires_at FROM license_licenses WHERE license_id = $1', [licenseId]);
  const current = rows[0]?.expires_at ?? null;
  return current === null ? null : new Date(Math.max(current.getTime(), floor.getTime()));
}

/** The subscription an event names, locked for the rest of the transaction (events of one subscription apply one at a time). */
async function lockedSubscription(sql: SqlClient, event: BillingEvent): Promise<SubscriptionRecord | undefined> {
  if (event.subscriptionId === null) return undefined;
  // The advisory lock also serialises the first events of a subscription that has no row yet (one issue, not two).
  await sql.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`tollgate:billing:${event.provider}:${event.subscriptionId}`]);
  return createSqlSubscriptionStore(sql).lockByExternalId(event.provider, event.subscriptionId);
}

function auditSummary(event: BillingEvent) {
  return { billing_provider: event.provider, billing_event_id: event.eventId, billing_event_type: event.eventType, subscription_id: event.subscriptionId };
}

async function revoke(sql: SqlClient, deps: BillingApplyDeps, event: BillingEvent, target: { licenseId: string; vendorId: string }, now: Date): Promise<BillingApplyResult> {
  const actor = `billing:${event.provider}`;
  // The Admin revoke path itself, confirmed, in this transaction: the same locks, feed batch, machine
  // revocations, audit event (tagged with the billing event) and post-commit keyset notice.
  const call: AdminCall = {
    params: { licenseId: target.licenseId },
    query: {},
    body: { reason: reversalReason[event.reversal ?? 'refund'] },
    actor: { tokenId: actor, vendorId: target.vendorId, scopes: ['revoke'] },
    sql,
    database: deps.revocation.sql,
    dryRun: false,
    now,
    prepared: undefined,
    audit: async (entry) => {
      await deps.audit.append(sql, { ...entry, summary: { ...entry.summary, ...auditSummary(event), reversal: event.reversal }, vendorId: target.vendorId, actor }, now.getTime());
    },
  };
  try {
    await licenseRevokeOperation(deps.revocation).run(call);
  } catch (error) {
    if (error instanceof AdminError && error.code === 'already_revoked') return { outcome: 'already_revoked', licenseId: target.licenseId };
    throw error;
  }
  return { outcome: 'license_revoked', licenseId: target.licenseId };
}

async function recordPayments(sql: SqlClient, event: BillingEvent, subscriptionId: string, now: Date): Promise<void> {
  for (const ref of event.paymentRefs) {
    await sql.query('INSERT INTO license_billing_payments (provider, payment_ref, subscription_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      event.provider,
      ref,
      subscriptionId,
      now,
    ]);
  }
}

/**
 * Applies one billing event to license state inside the caller's transaction `sql`; throws (and the
 * caller rolls back and retries later) on a passing failure such as a license row held by another
 * revocation. Idempotent by construction: the queue applies each (provider, event id) once, and what it
 * writes depends only on the event, never on how often it ran. Order-safe: a subscription remembers the
 * provider time of the newest event applied, and an older one is `stale` (it changes nothing).
 *
 * Resolution uses only links the server made: the subscription the event names (provider, subscription
 * id), else (refunds, chargebacks) a payment recorded from an earlier paid event of a linked
 * subscription. A paid event of a subscription without a link is linked through its checkout token
 * ({@link mapNewSubscription}): to the license the token names (never replacing a live link to another
 * subscription), or to a license of the token's policy issued to its account.
 *
 * @param sql - The processing transaction.
 * @param deps - Audit log, revoke path, key-hash key, dunning grace.
 * @param event - The normalised event.
 * @param now - The processing time.
 * @returns The outcome and the license it concerned.
 * @example
 * ```ts
 * const result = await sql.transaction((tx) => applyBillingEvent(tx, deps, event, clock.now()));
 * ```
 */
export async function applyBillingEvent(sql: SqlClient, deps: BillingApplyDeps, event: BillingEvent, now: Date): Promise<BillingApplyResult> {
  const subscription = await lockedSubscription(sql, event);
  const linked = subscription === undefined ? undefined : { licenseId: subscription.licenseId, vendorId: subscription.vendorId };
  if (event.effect === 'reverse') {
    const target = linked ?? (await licenseOfPayment(sql, event));
    if (target === undefined) return { outcome: 'unmapped:no_license', licenseId: null };
    return revoke(sql, deps, event, target, now);
  }
  if (event.effect === 'record_payment') {
    if (event.subscriptionId === null) return { outcome: 'unmapped:no_subscription', licenseId: null };
    await recordPayments(sql, event, event.subscriptionId, now);
    return { outcome: 'payment_recorded', licenseId: linked?.licenseId ?? null };
  }
  if (event.subscriptionId === null || event.status === null) return { outcome: 'unmapped:no_subscription', licenseId: null };
  if (subscription?.lastEventAt != null && subscription.lastEventAt.getTime() > event.occurredAt) return { outcome: 'stale', licenseId: subscription.licenseId };

  let accessUntil: Date | null = billingAccessUntil(event, deps.dunningGraceSeconds);
  let license = linked;
  let outcome = 'license_updated';
  if (license === undefined) {
    // Only a paid event links a subscription the server has not seen, and only through a checkout token.
    if (event.effect !== 'grant') return { outcome: 'unmapped:no_license', licenseId: null };
    const mapped = await mapNewSubscription(sql, deps, event, now, accessUntil);
    if (mapped.kind === 'unmapped') return { outcome: `unmapped:${mapped.reason}`, licenseId: null };
    license = { licenseId: mapped.licenseId, vendorId: mapped.vendorId };
    if (mapped.kind === 'issued') outcome = 'license_issued';
  }
  if (outcome === 'license_updated') {
    if (event.effect === 'grant' && event.periodEnd === null) accessUntil = await expiryWithoutPeriod(sql, license.licenseId, accessUntil);
    const updated = await createSqlLicenseStore(sql).update(license.vendorId, license.licenseId, { expiresAt: accessUntil }, now);
    if (updated.kind === 'revoked') return { outcome: 'already_revoked', licenseId: license.licenseId };
    if (updated.kind === 'not_found') throw new Error(`License ${license.licenseId} vanished while its billing event applied.`);
  }
  // Order references (Lemon Squeezy) of a linked subscription: a later `order_refunded` finds the license through them.
  await recordPayments(sql, event, event.subscriptionId, now);
  await createSqlSubscriptionStore(sql).put(
    {
      licenseId: license.licenseId,
      vendorId: license.vendorId,
      provider: event.provider,
      externalId: event.subscriptionId,
      status: event.status,
      currentPeriodEnd: event.periodEnd === null ? null : new Date(event.periodEnd),
      lastEventAt: new Date(event.occurredAt),
      lastEventId: event.eventId,
    },
    now,
  );
  await deps.audit.append(
    sql,
    {
      vendorId: license.vendorId,
      actor: `billing:${event.provider}`,
      action: outcome === 'license_issued' ? 'license.issue' : 'license.billing_update',
      targetType: 'license',
      targetId: license.licenseId,
      summary: { ...auditSummary(event), subscription_status: event.status, effect: event.effect, expires_at: accessUntil?.toISOString() ?? null },
    },
    now.getTime(),
  );
  return { outcome, licenseId: license.licenseId };
}
