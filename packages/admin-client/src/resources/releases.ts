import * as v from 'valibot';
import type { AdminList, AdminTransport, DestructiveOptions, MutationOptions, ReadOptions } from '../transport-types';

/** A registered release (build) of a product. */
export const ReleaseSchema = v.looseObject({
  release_id: v.string(),
  product_id: v.string(),
  app_version: v.string(),
  channel: v.string(),
  build_fingerprint: v.string(),
  variant_id: v.string(),
  has_variant_seed: v.boolean(),
  manifest_root_hex: v.nullable(v.string()),
  module_digest_hex: v.nullable(v.string()),
  /** `registered`, `deprecated` or `compromised`. */
  state: v.string(),
  /** `warn`, `force_upgrade` or `revoke` once compromised, else `null`. */
  compromise_action: v.nullable(v.string()),
  /** The wire's release status: 0 registered, 1 deprecated, 2 compromised. */
  release_status: v.number(),
  created_at: v.string(),
  updated_at: v.string(),
  deprecated_at: v.nullable(v.string()),
  compromised_at: v.nullable(v.string()),
});
/** A release. */
export type Release = v.InferOutput<typeof ReleaseSchema>;

/** The answer of `POST /releases` (201 new, 200 when the same build was registered before). */
export const ReleaseRegistrationSchema = v.looseObject({ release: ReleaseSchema, already_registered: v.boolean(), variant_reused: v.boolean() });
/** The answer of `releases.create()`. */
export type ReleaseRegistration = v.InferOutput<typeof ReleaseRegistrationSchema>;

/** `GET /releases/:releaseId` answers `{ release }`: the call resolves to the release. */
const releaseAnswerSchema = v.pipe(v.looseObject({ release: ReleaseSchema }), v.transform((answer) => answer.release));

const common = { release: ReleaseSchema, impacted_devices: v.number(), warnings: v.array(v.string()) };

/** The answer of `POST /releases/:releaseId/deprecate`: narrow on `dry_run`. */
export const ReleaseDeprecateResultSchema = v.variant('dry_run', [
  v.looseObject({ dry_run: v.literal(true), ...common, would_change: v.boolean() }),
  v.looseObject({ dry_run: v.literal(false), ...common, changed: v.boolean() }),
]);
/** The answer of `releases.deprecate()`. */
export type ReleaseDeprecateResult = v.InferOutput<typeof ReleaseDeprecateResultSchema>;

/** The answer of `POST /releases/:releaseId/mark-compromised`: narrow on `dry_run`. */
export const ReleaseCompromiseResultSchema = v.variant('dry_run', [
  v.looseObject({
    dry_run: v.literal(true),
    ...common,
    action: v.nullable(v.string()),
    would_change: v.boolean(),
    /** The actions that would change the release (compromises only escalate). */
    changing_actions: v.array(v.string()),
    requires_acknowledgement: v.boolean(),
    security_floor: v.looseObject({ current: v.number(), next: v.number() }),
  }),
  v.looseObject({ dry_run: v.literal(false), ...common, changed: v.boolean(), security_floor: v.looseObject({ previous: v.number(), current: v.number() }) }),
]);
/** The answer of `releases.markCompromised()`. */
export type ReleaseCompromiseResult = v.InferOutput<typeof ReleaseCompromiseResultSchema>;

/** Filters of `releases.list()` (newest first). */
export interface ReleaseListQuery {
  readonly productId?: string;
  readonly channel?: string;
  readonly state?: 'registered' | 'deprecated' | 'compromised';
  /** Page size, 1 to 200 (default 50). */
  readonly limit?: number;
}

/** What `releases.create()` registers. */
export interface ReleaseCreateInput {
  readonly productId: string;
  /** SemVer 2.0.0, at most 64 characters. */
  readonly appVersion: string;
  /** 64 lower-case hex digits: the fingerprint the app reports. */
  readonly buildFingerprint: string;
  /** A channel slug such as `stable` or `beta`. */
  readonly channel: string;
  readonly manifestRootHex?: string;
  readonly moduleDigestHex?: string;
  readonly variantSeedHex?: string;
}

/** The body of `releases.deprecate()`: the route takes no fields (`{}` or nothing). */
export type ReleaseDeprecateInput = Readonly<Record<string, never>>;

/** The body of `releases.markCompromised()`; `action` may be left out of a dry run only. */
export interface ReleaseCompromiseInput {
  readonly action?: 'warn' | 'force_upgrade' | 'revoke';
  /** Raise the product's security floor by one when the compromise changes the release. */
  readonly bumpSecurityFloor?: boolean;
  /** Needed to confirm `action: 'revoke'` (every device running the release is killed at its next validation). */
  readonly acknowledgeRevoke?: boolean;
}

/** The `releases` group (scope `releases:rw`). */
export interface ReleasesResource {
  /** `GET /releases`: paginated, newest first. */
  list(query?: ReleaseListQuery, options?: ReadOptions): AdminList<Release>;
  /** `POST /releases`: registers a build (the same build again answers `already_registered: true`). */
  create(input: ReleaseCreateInput, options?: MutationOptions): Promise<ReleaseRegistration>;
  /** `GET /releases/:releaseId`. */
  get(releaseId: string, options?: ReadOptions): Promise<Release>;
  /** `POST /releases/:releaseId/deprecate` (destructive: a dry run unless `dryRun: false`). */
  deprecate(releaseId: string, input?: ReleaseDeprecateInput, options?: DestructiveOptions): Promise<ReleaseDeprecateResult>;
  /**
   * `POST /releases/:releaseId/mark-compromised` (destructive: a dry run unless `dryRun: false`).
   *
   * @example
   * ```ts
   * const preview = await admin.releases.markCompromised(releaseId, { action: 'force_upgrade' });
   * if (preview.dry_run && preview.would_change) await admin.releases.markCompromised(releaseId, { action: 'force_upgrade' }, { dryRun: false });
   * ```
   */
  markCompromised(releaseId: string, input?: ReleaseCompromiseInput, options?: DestructiveOptions): Promise<ReleaseCompromiseResult>;
}

/**
 * Builds the `releases` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * for await (const release of admin.releases.list({ productId, channel: 'stable' })) console.log(release.app_version);
 * ```
 */
export function createReleasesResource(transport: AdminTransport): ReleasesResource {
  const releasePath = (releaseId: string) => `/releases/${encodeURIComponent(releaseId)}`;
  return {
    list: (query = {}, options) =>
      transport.list({
        path: '/releases',
        query: { product_id: query.productId, channel: query.channel, state: query.state, limit: query.limit },
        itemsKey: 'releases',
        itemSchema: ReleaseSchema,
        options,
      }),
    create: async (input, options) => {
      const body = {
        product_id: input.productId,
        app_version: input.appVersion,
        build_fingerprint: input.buildFingerprint,
        channel: input.channel,
        manifest_root_hex: input.manifestRootHex,
        module_digest_hex: input.moduleDigestHex,
        variant_seed_hex: input.variantSeedHex,
      };
      return (await transport.request({ method: 'POST', path: '/releases', kind: 'mutation', body, schema: ReleaseRegistrationSchema, options })).body;
    },
    get: async (releaseId, options) => (await transport.request({ method: 'GET', path: releasePath(releaseId), kind: 'read', schema: releaseAnswerSchema, options })).body,
    deprecate: async (releaseId, input, options) =>
      (await transport.request({ method: 'POST', path: `${releasePath(releaseId)}/deprecate`, kind: 'destructive', body: input, schema: ReleaseDeprecateResultSchema, options })).body,
    markCompromised: async (releaseId, input, options) => {
      const body = input === undefined ? undefined : { action: input.action, bump_security_floor: input.bumpSecurityFloor, acknowledge_revoke: input.acknowledgeRevoke };
      return (await transport.request({ method: 'POST', path: `${releasePath(releaseId)}/mark-compromised`, kind: 'destructive', body, schema: ReleaseCompromiseResultSchema, options })).body;
    },
  };
}
