import { hexDecode } from '../../crypto/hex';
import type { PolicyDocument, PolicyVersionScope } from '../model/policies/policy-document';
import { compareSemVer, isSemVer } from '../model/policies/semver';
import type { SqlClient } from '../../storage/sql-client';
import { resolveEntitlements, type EntitlementInput, type EntitlementSnapshot } from '../model/catalog/resolve-entitlements';
import type { LicenseStatus } from '../model/licenses/license-record';
import type { Entitlements } from '../payloads/entitlements';

/** The license facts the client protocol judges a request by. */
export interface LicenseFacts {
  readonly status: LicenseStatus;
  readonly expiresAt: Date | null;
  /** The license's own tier; `null` = the policy's. */
  readonly tier: string | null;
  readonly versionScopeOverride: PolicyVersionScope | null;
}

/**
 * Where a non-revoked license stands at `now`:
 * - `usable`: activations and tickets may be issued with `tier`; `expiresAt` is when the client must stop
 *   (the expiry, plus the grace with `expiry_behavior: "grace"`; absent when it never stops, including
 *   `fallback`), and `refreshBy` caps the next refresh at the expiry when entitlements change there
 *   (`fallback` before expiry);
 * - `suspended` or `expired` (with `deny`, or after the grace): refused with 1000 (403).
 */
export type LicenseStanding =
  | { readonly kind: 'usable'; readonly tier: string | null; readonly expiresAt?: number; readonly refreshBy?: number }
  | { readonly kind: 'suspended' | 'expired' };

/**
 * Judges a license that is not revoked (revocation is a kill order or a refusal, decided by the caller).
 *
 * @param license - The license.
 * @param policy - Its policy.
 * @param now - Unix seconds.
 * @returns The standing.
 * @example
 * ```ts
 * import { licenseStanding } from '@tollgate/core/license';
 * const standing = licenseStanding(license, policy, now);
 * if (standing.kind !== 'usable') throw refusedCredential(403);
 * ```
 */
export function licenseStanding(license: LicenseFacts, policy: PolicyDocument, now: number): LicenseStanding {
  if (license.status === 'suspended') return { kind: 'suspended' };
  const tier = license.tier ?? policy.tier;
  if (license.expiresAt === null) return { kind: 'usable', tier };
  const expiry = Math.floor(license.expiresAt.getTime() / 1000);
  switch (policy.expiry_behavior) {
    case 'deny':
      return now < expiry ? { kind: 'usable', tier, expiresAt: expiry } : { kind: 'expired' };
    case 'grace': {
      const end = expiry + policy.validation_grace_seconds;
      return now < end ? { kind: 'usable', tier, expiresAt: end } : { kind: 'expired' };
    }
    case 'fallback':
      return now < expiry ? { kind: 'usable', tier, refreshBy: expiry } : { kind: 'usable', tier: policy.fallback_tier };
  }
}

/**
 * Whether an app version is inside the license's version scope (its override, else the policy's):
 * `min` inclusive, `max_exclusive` exclusive, SemVer precedence. No scope admits everything; with a
 * scope, a version that is not SemVer is outside.
 *
 * @param license - The license (its override).
 * @param policy - Its policy.
 * @param appVersion - The version the device runs.
 * @returns Whether it may run.
 * @example
 * ```ts
 * import { versionInScope } from '@tollgate/core/license';
 * if (!versionInScope(license, policy, '2.1.0')) throw new LicenseClientError(1008, '…');
 * ```
 */
export function versionInScope(license: Pick<LicenseFacts, 'versionScopeOverride'>, policy: Pick<PolicyDocument, 'version_scope'>, appVersion: string): boolean {
  const scope = license.versionScopeOverride ?? policy.version_scope;
  if (scope === null) return true;
  if (!isSemVer(appVersion)) return false;
  if (scope.min !== undefined && compareSemVer(appVersion, scope.min) < 0) return false;
  return scope.max_exclusive === undefined || compareSemVer(appVersion, scope.max_exclusive) < 0;
}

/**
 * The `tier` of the wire's Entitlements for a license without one: catalog ids start with a letter or
 * digit, so this never names a real tier.
 */
export const noTierName = '_none';

/**
 * Converts a resolved entitlement snapshot to the wire's Entitlements. `catalogVersion` is the first six
 * bytes of the snapshot digest as an integer: equal feature sets give equal numbers and a changed set a
 * different one (the catalog has no version counter of its own).
 *
 * @param snapshot - From `resolveEntitlements`.
 * @returns The record credentials and tickets carry.
 * @example
 * ```ts
 * import { resolveEntitlements, wireEntitlements } from '@tollgate/core/license';
 * const entitlements = wireEntitlements(await resolveEntitlements(sql, vendorId, input));
 * ```
 */
export function wireEntitlements(snapshot: EntitlementSnapshot): Entitlements {
  const digest = hexDecode(snapshot.digest);
  let catalogVersion = 0;
  for (let index = 0; index < 6; index += 1) catalogVersion = catalogVersion * 256 + (digest[index] as number);
  return { features: [...snapshot.features], limits: new Map(), tier: snapshot.tier ?? noTierName, catalogVersion };
}

/**
 * When a device should validate next and how long it may run without doing so, from the policy (and
 * the standing's cap).
 *
 * @param policy - The license's policy.
 * @param standing - A usable standing.
 * @param now - Unix seconds.
 * @returns `refreshAfter` and `graceSeconds`.
 * @example
 * ```ts
 * import { refreshSchedule } from '@tollgate/core/license';
 * const { refreshAfter, graceSeconds } = refreshSchedule(policy, standing, now);
 * ```
 */
export function refreshSchedule(policy: PolicyDocument, standing: Extract<LicenseStanding, { kind: 'usable' }>, now: number): { refreshAfter: number; graceSeconds: number } {
  const interval = now + policy.validation_interval_seconds;
  return { refreshAfter: standing.refreshBy === undefined ? interval : Math.max(now, Math.min(interval, standing.refreshBy)), graceSeconds: policy.validation_grace_seconds };
}

/**
 * Resolves a license's entitlements for a credential or ticket and converts them to the wire's record.
 * The catalog and policies were checked when they were stored, so a refusal here is a server fault: it
 * is rethrown as a plain `Error` (logged and answered 5000), never as an Admin error a client would see.
 *
 * @param sql - The database or a transaction.
 * @param vendorId - The license's vendor.
 * @param input - Product, tier and overrides.
 * @returns The wire Entitlements.
 * @example
 * ```ts
 * import { licenseEntitlements } from '@tollgate/core/license';
 * const entitlements = await licenseEntitlements(sql, vendorId, { product_id, tier, overrides });
 * ```
 */
export async function licenseEntitlements(sql: SqlClient, vendorId: string, input: EntitlementInput): Promise<Entitlements> {
  try {
    return wireEntitlements(await resolveEntitlements(sql, vendorId, input));
  } catch (error) {
    throw new Error(`The entitlements of a license of product ${input.product_id} do not resolve: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
