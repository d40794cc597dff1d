import * as v from 'valibot';
import type { AdminList, AdminTransport, DestructiveOptions, MutationOptions, ReadOptions } from '../transport-types';
import { entitlementSnapshotSchema } from './catalog';
import { machineSchema, type RevokeInput } from './machines';

const versionScopeSchema = v.looseObject({ min: v.optional(v.string()), max_exclusive: v.optional(v.string()) });

/** A license as the server shows it (never its key: only `key_hint`, the key's last four characters). */
export const licenseSchema = v.looseObject({
  license_id: v.string(),
  product_id: v.string(),
  policy_id: v.string(),
  account_id: v.nullable(v.string()),
  /** The shown status: `active`, `suspended`, `expired` or `revoked`. */
  status: v.string(),
  key_hint: v.string(),
  seats: v.number(),
  seats_override: v.nullable(v.number()),
  expires_at: v.nullable(v.string()),
  /** The tier in force (the license's override, else the policy's). */
  tier: v.nullable(v.string()),
  tier_override: v.nullable(v.string()),
  metadata: v.record(v.string(), v.string()),
  entitlement_overrides: v.looseObject({ add: v.array(v.string()), remove: v.array(v.string()) }),
  version_scope_override: v.nullable(versionScopeSchema),
  created_at: v.string(),
  updated_at: v.string(),
  revoked_at: v.nullable(v.string()),
  revocation_seq: v.nullable(v.number()),
  revocation_reason: v.nullable(v.number()),
});
/** A license. */
export type License = v.InferOutput<typeof licenseSchema>;

/** A license just issued, with its plaintext `key`: the only answer that ever shows it. */
export const issuedLicenseSchema = v.looseObject({ ...licenseSchema.entries, key: v.string() });
/** A license just issued. */
export type IssuedLicense = v.InferOutput<typeof issuedLicenseSchema>;

/** A license with the entitlements it grants after a tier change. */
export const licenseTierChangeSchema = v.looseObject({ license: licenseSchema, entitlements: entitlementSnapshotSchema });
/** The answer of `changeTier`. */
export type LicenseTierChange = v.InferOutput<typeof licenseTierChangeSchema>;

/** What the license would grant if its billing subscription lapsed (`on_lapse` by the policy's `expiry_behavior`). */
export const licenseFallbackPreviewSchema = v.looseObject({
  license_id: v.string(),
  subscription: v.looseObject({ provider: v.string(), subscription_id: v.string(), status: v.string(), current_period_end: v.nullable(v.string()) }),
  access_until: v.nullable(v.string()),
  lapses_at: v.nullable(v.string()),
  /** `deny`, `grace` or `fallback`. */
  expiry_behavior: v.string(),
  current: entitlementSnapshotSchema,
  on_lapse: v.looseObject({ access: v.string(), entitlements: v.nullable(entitlementSnapshotSchema) }),
});
/** The answer of `previewFallback`. */
export type LicenseFallbackPreview = v.InferOutput<typeof licenseFallbackPreviewSchema>;

/** A license's machines: at most 1,000, `truncated` when it has more (use `machines.list({ licenseId })` to page). */
export const licenseMachinesSchema = v.looseObject({ license_id: v.string(), machines: v.array(machineSchema), truncated: v.boolean() });
/** The answer of `licenses.machines`. */
export type LicenseMachines = v.InferOutput<typeof licenseMachinesSchema>;

/** A signed offline key: the envelope and the signing epoch's certificate (base64), with the key's fields. */
export const offlineKeySchema = v.looseObject({
  bundle_id: v.string(),
  license_id: v.string(),
  product_id: v.string(),
  release_id: v.string(),
  bound_fingerprint_hex: v.nullable(v.string()),
  max_seats: v.number(),
  issued_at: v.string(),
  expires_at: v.nullable(v.string()),
  tier: v.nullable(v.string()),
  features: v.array(v.string()),
  entitlement_digest: v.string(),
  epoch_id: v.string(),
  envelope_base64: v.string(),
  certificate_base64: v.string(),
});
/** A signed offline key. */
export type OfflineKey = v.InferOutput<typeof offlineKeySchema>;

/** What a license revocation would do (nothing was changed). */
export const licenseRevokeDryRunSchema = v.looseObject({
  dry_run: v.literal(true),
  license_id: v.string(),
  already_revoked: v.boolean(),
  machines_affected: v.number(),
  would_publish_batch: v.boolean(),
});
/** What a license revocation would do. */
export type LicenseRevokeDryRun = v.InferOutput<typeof licenseRevokeDryRunSchema>;

/** An executed license revocation: the revoked license, the batch's sequence number and the machines revoked with it. */
export const licenseRevokedSchema = v.looseObject({
  dry_run: v.literal(false),
  license: licenseSchema,
  revocation: v.looseObject({ seq: v.number(), machines_revoked: v.number() }),
});
/** An executed license revocation. */
export type LicenseRevoked = v.InferOutput<typeof licenseRevokedSchema>;

/** The query of `licenses.list`. */
export interface LicenseListQuery {
  readonly productId: string;
  readonly status?: 'active' | 'suspended' | 'expired' | 'revoked';
  /** Page size, 1 to 200 (server default 50). */
  readonly limit?: number;
}

/** An instant: a `Date` or an ISO 8601 text with a zone. */
export type Instant = Date | string;

/** What `licenses.issue` takes: `count` licenses (1 to 100, default 1) of a policy, all or none. */
export interface LicenseIssueInput {
  readonly policyId: string;
  readonly count?: number;
  /** An active account of the policy's product the licenses belong to. */
  readonly accountId?: string;
  readonly seatsOverride?: number;
  /** Absent: now plus the policy's duration (none without one); `null`: never expires. */
  readonly expiresAt?: Instant | null;
  /** At most 50 keys of 1 to 64 characters, values of at most 500. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** What `licenses.update` changes (at least one field). */
export interface LicenseUpdateInput {
  /** `revoked` is `licenses.revoke`'s business. */
  readonly status?: 'active' | 'suspended';
  readonly expiresAt?: Instant | null;
  readonly seatsOverride?: number | null;
  /** Catalog feature ids added to and removed from the tier's. */
  readonly entitlementOverrides?: { readonly add?: readonly string[]; readonly remove?: readonly string[] };
  /** The SemVer range the license may run (`min` inclusive, `maxExclusive` exclusive); `null` clears it. */
  readonly versionScopeOverride?: { readonly min?: string; readonly maxExclusive?: string } | null;
}

/** What `licenses.createOfflineKey` takes. */
export interface OfflineKeyInput {
  readonly releaseId: string;
  /** The one device fingerprint (64 hex digits) the key works on. */
  readonly boundFingerprintHex?: string;
  /** 1 to the license's seats (its seats by default). */
  readonly maxSeats?: number;
}

/** The `licenses` group. */
export interface LicensesResource {
  /**
   * Lists a product's licenses, newest first (`GET /licenses`), every page on demand.
   *
   * @example `for await (const license of admin.licenses.list({ productId, status: 'active' })) console.log(license.license_id);`
   */
  list(query: LicenseListQuery, options?: ReadOptions): AdminList<License>;
  /**
   * Issues licenses (`POST /licenses`, 201); each carries its plaintext `key`, shown this once only.
   *
   * @example `const [license] = await admin.licenses.issue({ policyId, count: 1 });`
   */
  issue(input: LicenseIssueInput, options?: MutationOptions): Promise<IssuedLicense[]>;
  /**
   * Reads one license (`GET /licenses/:licenseId`).
   *
   * @example `const license = await admin.licenses.get(licenseId);`
   */
  get(licenseId: string, options?: ReadOptions): Promise<License>;
  /**
   * Changes status, expiry, seats, overrides or version scope (`PATCH /licenses/:licenseId`); a revoked license is 409 `already_revoked`.
   *
   * @example `await admin.licenses.update(licenseId, { status: 'suspended' });`
   */
  update(licenseId: string, input: LicenseUpdateInput, options?: MutationOptions): Promise<License>;
  /**
   * Moves a license to another tier of its product's catalog (`POST /licenses/:licenseId/change-tier`).
   *
   * @example `const { entitlements } = await admin.licenses.changeTier(licenseId, { tier: 'pro' });`
   */
  changeTier(licenseId: string, input: { readonly tier: string }, options?: MutationOptions): Promise<LicenseTierChange>;
  /**
   * Previews what the license grants once its subscription lapses (`GET /licenses/:licenseId/preview-fallback`);
   * 404 `not_found` without a subscription.
   *
   * @example `const { on_lapse } = await admin.licenses.previewFallback(licenseId);`
   */
  previewFallback(licenseId: string, options?: ReadOptions): Promise<LicenseFallbackPreview>;
  /**
   * The license's machines, at most 1,000 (`GET /licenses/:licenseId/machines`).
   *
   * @example `const { machines, truncated } = await admin.licenses.machines(licenseId);`
   */
  machines(licenseId: string, options?: ReadOptions): Promise<LicenseMachines>;
  /**
   * Mints a signed offline key for a release (`POST /licenses/:licenseId/offline-key`, 201); 409
   * `license_not_active`, 422 `olk_not_allowed` when the policy forbids offline keys.
   *
   * @example `const key = await admin.licenses.createOfflineKey(licenseId, { releaseId });`
   */
  createOfflineKey(licenseId: string, input: OfflineKeyInput, options?: MutationOptions): Promise<OfflineKey>;
  /**
   * Revokes a license and its machines (`POST /licenses/:licenseId/revoke`, destructive): a dry run unless
   * `{ dryRun: false }`. Confirmed, a revoked license is 409 `already_revoked`.
   *
   * @example `const result = await admin.licenses.revoke(licenseId, { reason: 1 }, { dryRun: false });`
   */
  revoke(licenseId: string, input?: RevokeInput, options?: DestructiveOptions): Promise<LicenseRevokeDryRun | LicenseRevoked>;
}

const instantText = (instant: Instant | null | undefined) => (instant instanceof Date ? instant.toISOString() : instant);
const issuedAnswerSchema = v.pipe(v.looseObject({ licenses: v.array(issuedLicenseSchema) }), v.transform((answer) => answer.licenses));
const licenseAnswerSchema = v.pipe(v.looseObject({ license: licenseSchema }), v.transform((answer) => answer.license));
const offlineKeyAnswerSchema = v.pipe(v.looseObject({ offline_key: offlineKeySchema }), v.transform((answer) => answer.offline_key));
const revokeAnswerSchema = v.variant('dry_run', [licenseRevokeDryRunSchema, licenseRevokedSchema]);

function updateBody(input: LicenseUpdateInput): Record<string, unknown> {
  const scope = input.versionScopeOverride;
  return {
    status: input.status,
    expires_at: instantText(input.expiresAt),
    seats_override: input.seatsOverride,
    entitlement_overrides: input.entitlementOverrides,
    version_scope_override: scope === undefined || scope === null ? scope : { min: scope.min, max_exclusive: scope.maxExclusive },
  };
}

/**
 * Builds the `licenses` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const licenses = createLicensesResource(transport);
 * const [issued] = await licenses.issue({ policyId, count: 1 });
 * console.log(issued?.key);
 * ```
 */
export function createLicensesResource(transport: AdminTransport): LicensesResource {
  const licensePath = (licenseId: string, suffix = '') => `/licenses/${encodeURIComponent(licenseId)}${suffix}`;
  return {
    list: (query, options) =>
      transport.list({ path: '/licenses', query: { product_id: query.productId, status: query.status, limit: query.limit }, itemsKey: 'licenses', itemSchema: licenseSchema, options }),
    issue: async (input, options) => {
      const body = {
        policy_id: input.policyId,
        count: input.count ?? 1,
        account_id: input.accountId,
        seats_override: input.seatsOverride,
        expires_at: instantText(input.expiresAt),
        metadata: input.metadata,
      };
      return (await transport.request({ method: 'POST', path: '/licenses', kind: 'mutation', body, schema: issuedAnswerSchema, options })).body;
    },
    get: async (licenseId, options) => (await transport.request({ method: 'GET', path: licensePath(licenseId), kind: 'read', schema: licenseAnswerSchema, options })).body,
    update: async (licenseId, input, options) =>
      (await transport.request({ method: 'PATCH', path: licensePath(licenseId), kind: 'mutation', body: updateBody(input), schema: licenseAnswerSchema, options })).body,
    changeTier: async (licenseId, input, options) =>
      (await transport.request({ method: 'POST', path: licensePath(licenseId, '/change-tier'), kind: 'mutation', body: { tier: input.tier }, schema: licenseTierChangeSchema, options })).body,
    previewFallback: async (licenseId, options) =>
      (await transport.request({ method: 'GET', path: licensePath(licenseId, '/preview-fallback'), kind: 'read', schema: licenseFallbackPreviewSchema, options })).body,
    machines: async (licenseId, options) =>
      (await transport.request({ method: 'GET', path: licensePath(licenseId, '/machines'), kind: 'read', schema: licenseMachinesSchema, options })).body,
    createOfflineKey: async (licenseId, input, options) => {
      const body = { release_id: input.releaseId, bound_fingerprint_hex: input.boundFingerprintHex, max_seats: input.maxSeats };
      return (await transport.request({ method: 'POST', path: licensePath(licenseId, '/offline-key'), kind: 'mutation', body, schema: offlineKeyAnswerSchema, options })).body;
    },
    revoke: async (licenseId, input = {}, options) =>
      (await transport.request({ method: 'POST', path: licensePath(licenseId, '/revoke'), kind: 'destructive', body: { reason: input.reason }, schema: revokeAnswerSchema, options })).body,
  };
}
