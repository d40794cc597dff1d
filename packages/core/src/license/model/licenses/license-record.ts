/** What operators set: `expired` is derived from `expires_at`, never stored (docs/decisions.md). */
export type LicenseStatus = 'active' | 'suspended' | 'revoked';

/** The status a license shows: revoked, else suspended, else expired (past `expires_at`), else active. */
export type EffectiveLicenseStatus = LicenseStatus | 'expired';

/** Features added to and removed from what the license's tier grants. */
export interface EntitlementOverrides {
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

/** A range of app versions: `min` inclusive, `max_exclusive` exclusive, either open. */
export interface VersionScope {
  readonly min?: string;
  readonly max_exclusive?: string;
}

/** A license as stored, with the policy defaults it falls back to. */
export interface LicenseRecord {
  readonly licenseId: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly policyId: string;
  /** The last four characters of the key. */
  readonly keyHint: string;
  readonly accountId: string | null;
  readonly status: LicenseStatus;
  readonly seatsOverride: number | null;
  readonly expiresAt: Date | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly entitlementOverrides: EntitlementOverrides;
  readonly versionScopeOverride: VersionScope | null;
  /** The tier chosen for this license; `null` means the policy's. */
  readonly tier: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revokedAt: Date | null;
  /** The revocation batch that published the revocation. */
  readonly revocationSeq: number | null;
  readonly revocationReason: number | null;
  /** The policy's seats and tier, which apply unless overridden. */
  readonly policySeats: number;
  readonly policyTier: string | null;
}

/** A license to insert: its key is already hashed. */
export interface NewLicense {
  readonly licenseId: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly policyId: string;
  readonly keyHash: string;
  readonly keyHint: string;
  readonly accountId: string | null;
  readonly seatsOverride: number | null;
  readonly expiresAt: Date | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly createdAt: Date;
}

/**
 * The status a license shows at `now`.
 *
 * @param license - The license.
 * @param now - The time of the answer.
 * @returns Revoked, else suspended, else expired when `expires_at` has passed, else active.
 * @example
 * ```ts
 * import { effectiveLicenseStatus } from '@tollgate/core/license';
 * if (effectiveLicenseStatus(license, new Date()) !== 'active') refuse();
 * ```
 */
export function effectiveLicenseStatus(license: Pick<LicenseRecord, 'status' | 'expiresAt'>, now: Date): EffectiveLicenseStatus {
  if (license.status !== 'active') return license.status;
  return license.expiresAt !== null && license.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/**
 * The JSON view of a license in Admin answers: never its key or key hash.
 *
 * @param license - The license.
 * @param now - The time of the answer (for the derived `expired` status).
 * @returns The view.
 * @example
 * ```ts
 * import { licenseView } from '@tollgate/core/license';
 * return { body: { license: licenseView(license, call.now) } };
 * ```
 */
export function licenseView(license: LicenseRecord, now: Date) {
  return {
    license_id: license.licenseId,
    product_id: license.productId,
    policy_id: license.policyId,
    account_id: license.accountId,
    status: effectiveLicenseStatus(license, now),
    key_hint: license.keyHint,
    seats: license.seatsOverride ?? license.policySeats,
    seats_override: license.seatsOverride,
    expires_at: license.expiresAt?.toISOString() ?? null,
    tier: license.tier ?? license.policyTier,
    tier_override: license.tier,
    metadata: { ...license.metadata },
    entitlement_overrides: { add: [...license.entitlementOverrides.add], remove: [...license.entitlementOverrides.remove] },
    version_scope_override: license.versionScopeOverride === null ? null : { ...license.versionScopeOverride },
    created_at: license.createdAt.toISOString(),
    updated_at: license.updatedAt.toISOString(),
    revoked_at: license.revokedAt?.toISOString() ?? null,
    revocation_seq: license.revocationSeq,
    revocation_reason: license.revocationReason,
  };
}
