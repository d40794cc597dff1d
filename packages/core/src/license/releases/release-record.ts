import type { ReleaseStatus } from '../payloads/validation-ticket';
import type { CompromiseAction, ReleaseState } from './release-gate';

/** One registered build of a product (table `license_releases`, license migration 009). */
export interface ReleaseRecord {
  /** 32 lowercase hex digits (16 random bytes). */
  readonly releaseId: string;
  readonly vendorId: string;
  readonly productId: string;
  /** SemVer 2.0.0, at most 64 characters (what the client reports in `client_info`). */
  readonly appVersion: string;
  readonly channel: string;
  /** 64 lowercase hex digits (32 bytes). */
  readonly buildFingerprint: string;
  /** 32 lowercase hex digits. */
  readonly variantId: string;
  /** Whether `variantId` was derived from a variant seed (the seed itself is never stored). */
  readonly hasVariantSeed: boolean;
  readonly manifestRoot: string | null;
  readonly moduleDigest: string | null;
  readonly state: ReleaseState;
  /** Set exactly when `state` is `compromised`. */
  readonly compromiseAction: CompromiseAction | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly deprecatedAt: Date | null;
  readonly compromisedAt: Date | null;
}

/** A row of `license_releases` as the drivers decode it. */
export type ReleaseRow = {
  release_id: string;
  vendor_id: string;
  product_id: string;
  app_version: string;
  channel: string;
  build_fingerprint: string;
  variant_id: string;
  has_variant_seed: boolean;
  manifest_root: string | null;
  module_digest: string | null;
  state: ReleaseState;
  compromise_action: CompromiseAction | null;
  created_at: Date;
  updated_at: Date;
  deprecated_at: Date | null;
  compromised_at: Date | null;
};

/** Every column of `license_releases`, in {@link ReleaseRow} order. */
export const releaseColumns =
  'release_id, vendor_id, product_id, app_version, channel, build_fingerprint, variant_id, has_variant_seed, manifest_root, module_digest, state, compromise_action, created_at, updated_at, deprecated_at, compromised_at';

/**
 * Maps a `license_releases` row to its record.
 *
 * @param row - The row.
 * @returns The record.
 * @example
 * ```ts
 * import { releaseFromRow } from '@tollgate/core/license';
 * const release = releaseFromRow(rows[0]);
 * ```
 */
export function releaseFromRow(row: ReleaseRow): ReleaseRecord {
  return {
    releaseId: row.release_id,
    vendorId: row.vendor_id,
    productId: row.product_id,
    appVersion: row.app_version,
    channel: row.channel,
    buildFingerprint: row.build_fingerprint,
    variantId: row.variant_id,
    hasVariantSeed: row.has_variant_seed,
    manifestRoot: row.manifest_root,
    moduleDigest: row.module_digest,
    state: row.state,
    compromiseAction: row.compromise_action,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deprecatedAt: row.deprecated_at,
    compromisedAt: row.compromised_at,
  };
}

/**
 * The ticket's `releaseStatus` for a state: `0` registered, `1` deprecated, `2` compromised.
 *
 * @param state - The release state.
 * @returns The wire code.
 * @example
 * ```ts
 * import { releaseStatusOf } from '@tollgate/core/license';
 * releaseStatusOf('deprecated'); // 1
 * ```
 */
export function releaseStatusOf(state: ReleaseState): ReleaseStatus {
  return state === 'registered' ? 0 : state === 'deprecated' ? 1 : 2;
}

/** How severe each compromise action is: a compromise only ever moves to a higher rank. */
export const compromiseActionRank: Readonly<Record<CompromiseAction, number>> = Object.freeze({ warn: 1, force_upgrade: 2, revoke: 3 });

/**
 * The Admin API's view of a release (snake_case, hex, ISO dates). The variant seed never appears: only
 * whether one was given.
 *
 * @param release - The record.
 * @returns The JSON view.
 * @example
 * ```ts
 * import { releaseView } from '@tollgate/core/license';
 * return { body: { release: releaseView(release) } };
 * ```
 */
export function releaseView(release: ReleaseRecord) {
  return {
    release_id: release.releaseId,
    product_id: release.productId,
    app_version: release.appVersion,
    channel: release.channel,
    build_fingerprint: release.buildFingerprint,
    variant_id: release.variantId,
    has_variant_seed: release.hasVariantSeed,
    manifest_root_hex: release.manifestRoot,
    module_digest_hex: release.moduleDigest,
    state: release.state,
    compromise_action: release.compromiseAction,
    release_status: releaseStatusOf(release.state),
    created_at: release.createdAt.toISOString(),
    updated_at: release.updatedAt.toISOString(),
    deprecated_at: release.deprecatedAt?.toISOString() ?? null,
    compromised_at: release.compromisedAt?.toISOString() ?? null,
  };
}
