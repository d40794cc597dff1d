import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { adminOperation } from '../admin-operation';
import { adminPathId } from '../admin-input';
import { resolveEntitlements, type EntitlementSnapshot } from '../../model/catalog/resolve-entitlements';
import { readLicensePolicy, type PolicyTerms } from '../../model/licenses/license-policy';
import type { LicenseRecord } from '../../model/licenses/license-record';
import { createSqlLicenseStore } from '../../model/licenses/license-store';
import { createSqlSubscriptionStore } from '../../model/licenses/subscription-store';

/** What applies once a subscription lapses, by the policy's `expiry_behavior`. */
type LapseOutcome =
  | { readonly access: 'denied'; readonly entitlements: null }
  | { readonly access: 'grace'; readonly grace_seconds: number; readonly entitlements: EntitlementSnapshot; readonly after_grace: 'denied' }
  | { readonly access: 'fallback'; readonly tier: string | null; readonly entitlements: EntitlementSnapshot };

async function lapseOutcome(sql: SqlClient, license: LicenseRecord, terms: PolicyTerms, current: EntitlementSnapshot): Promise<LapseOutcome> {
  switch (terms.expiry_behavior) {
    case 'deny':
      return { access: 'denied', entitlements: null };
    case 'grace':
      return { access: 'grace', grace_seconds: terms.validation_grace_seconds, entitlements: current, after_grace: 'denied' };
    case 'fallback':
      // The fallback tier alone: per-license overrides were bought with the subscription and lapse with it.
      return {
        access: 'fallback',
        tier: terms.fallback_tier,
        entitlements: await resolveEntitlements(sql, license.vendorId, { product_id: license.productId, tier: terms.fallback_tier }),
      };
  }
}

/**
 * `GET /v1/admin/licenses/:licenseId/preview-fallback` (scope `licenses:rw`): what the license would
 * grant if its billing subscription lapsed, without changing anything. 404 `not_found` when the license
 * has no subscription. The answer names the subscription (with the newest billing event applied to it,
 * and `access_until`, the license expiry billing set), the entitlements that apply now (tier and
 * overrides) and, by the policy's `expiry_behavior`, what applies on lapse: `deny` (nothing), `grace`
 * (today's entitlements for the policy's `validation_grace_seconds`, then nothing) or `fallback` (the
 * policy's `fallback_tier`, without the license's overrides).
 *
 * @example
 * ```ts
 * import { licensePreviewFallbackOperation } from '@tollgate/core/license';
 * const operations = [licensePreviewFallbackOperation];
 * ```
 */
export const licensePreviewFallbackOperation = adminOperation({
  method: 'GET',
  path: '/licenses/:licenseId/preview-fallback',
  docs: { summary: 'Previews what a subscription license falls back to when its subscription lapses.' },
  scopes: ['licenses:rw'],
  kind: 'read',
  run: async (call) => {
    const licenseId = adminPathId(call.params.licenseId, 'license');
    const vendorId = call.actor.vendorId;
    const license = await createSqlLicenseStore(call.sql).get(vendorId, licenseId);
    if (license === undefined) throw new AdminError('not_found', 'No such license.');
    const subscription = await createSqlSubscriptionStore(call.sql).get(vendorId, licenseId);
    if (subscription === undefined) throw new AdminError('not_found', 'This license has no subscription to fall back from.');
    const policy = await readLicensePolicy(call.sql, vendorId, license.policyId);
    if (policy === undefined) throw new Error(`License ${licenseId} names policy ${license.policyId}, which is gone.`);
    const current = await resolveEntitlements(call.sql, vendorId, {
      product_id: license.productId,
      tier: license.tier ?? license.policyTier,
      overrides: license.entitlementOverrides,
    });
    return {
      body: {
        license_id: licenseId,
        subscription: {
          provider: subscription.provider,
          subscription_id: subscription.externalId,
          status: subscription.status,
          current_period_end: subscription.currentPeriodEnd?.toISOString() ?? null,
          // The newest billing event applied (older ones arriving late are not applied).
          last_event_id: subscription.lastEventId,
          last_event_at: subscription.lastEventAt?.toISOString() ?? null,
        },
        // When access ends as billing set it (period end plus the dunning grace, or the cancellation's end).
        access_until: license.expiresAt?.toISOString() ?? null,
        lapses_at: subscription.currentPeriodEnd?.toISOString() ?? null,
        expiry_behavior: policy.terms.expiry_behavior,
        current,
        on_lapse: await lapseOutcome(call.sql, license, policy.terms, current),
      },
    };
  },
});
