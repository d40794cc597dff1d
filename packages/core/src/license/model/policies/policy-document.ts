import * as v from 'valibot';
import { isHexId } from '../../../crypto/random';
import { catalogItemIdPattern, hexProductIdSchema } from '../catalog/catalog-schemas';
import { compareSemVer, isSemVer } from './semver';

/** How a license behaves once it has expired (docs/policies.md). */
export type PolicyExpiryBehavior = 'deny' | 'grace' | 'fallback';

/** The app versions a license may run: `min` inclusive, `max_exclusive` exclusive (SemVer precedence). */
export interface PolicyVersionScope {
  readonly min?: string;
  readonly max_exclusive?: string;
}

/**
 * A Policy document: the rules a license is issued under (docs/policies.md defines every field). Stored
 * whole in `license_policies.document` and, per version, in `license_policy_versions.document`.
 */
export interface PolicyDocument {
  readonly id: string;
  readonly product_id: string;
  readonly name: string;
  readonly seats: number;
  readonly validation_interval_seconds: number;
  readonly validation_grace_seconds: number;
  readonly heartbeat_window_seconds: number | null;
  readonly offline_allowed: boolean;
  readonly version_scope: PolicyVersionScope | null;
  readonly tier: string | null;
  readonly telemetry: 'off' | 't1';
  readonly duration_seconds: number | null;
  readonly expiry_behavior: PolicyExpiryBehavior;
  readonly fallback_tier: string | null;
}

/** Ranges of the numeric fields (docs/policies.md). */
export const policyLimits = {
  seats: { min: 1, max: 10_000 },
  validationIntervalSeconds: { min: 60, max: 31_536_000 },
  validationGraceSeconds: { min: 0, max: 31_536_000 },
  heartbeatWindowSeconds: { min: 60, max: 86_400 },
  // 100 years of 365 days: longer is "perpetual", which is `null`.
  durationSeconds: { min: 3_600, max: 3_153_600_000 },
  nameLength: 200,
} as const;

/** What `POST /policies` fills in for a field left out (PATCH takes every field). */
export const policyDefaults = {
  seats: 1,
  validation_interval_seconds: 86_400,
  validation_grace_seconds: 604_800,
  heartbeat_window_seconds: null,
  offline_allowed: false,
  version_scope: null,
  tier: null,
  telemetry: 'off',
  duration_seconds: null,
  expiry_behavior: 'deny',
  fallback_tier: null,
} as const satisfies Partial<PolicyDocument>;

const wholeNumber = (field: string, range: { min: number; max: number }) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be a whole number`),
    v.minValue(range.min, `${field} must be at least ${range.min}`),
    v.maxValue(range.max, `${field} must be at most ${range.max}`),
  );

const semVerSchema = (field: string) => v.pipe(v.string(`${field} must be a string`), v.check((value) => isSemVer(value), `${field} must be a SemVer 2.0.0 version such as 2.1.0`));
const tierRef = (field: string) => v.nullable(v.pipe(v.string(`${field} must be a tier id or null`), v.regex(catalogItemIdPattern, `${field} must be a tier id (a catalog slug) or null`)));

/** The schema of every field but `id`, each required. */
const fields = {
  product_id: hexProductIdSchema,
  name: v.pipe(v.string('name must be a string'), v.minLength(1, 'name must not be empty'), v.maxLength(policyLimits.nameLength, `name must be at most ${policyLimits.nameLength} characters`)),
  seats: wholeNumber('seats', policyLimits.seats),
  validation_interval_seconds: wholeNumber('validation_interval_seconds', policyLimits.validationIntervalSeconds),
  validation_grace_seconds: wholeNumber('validation_grace_seconds', policyLimits.validationGraceSeconds),
  heartbeat_window_seconds: v.nullable(wholeNumber('heartbeat_window_seconds', policyLimits.heartbeatWindowSeconds)),
  offline_allowed: v.boolean('offline_allowed must be true or false'),
  version_scope: v.nullable(
    v.strictObject({ min: v.optional(semVerSchema('version_scope.min')), max_exclusive: v.optional(semVerSchema('version_scope.max_exclusive')) }, 'version_scope must be null or an object with min and/or max_exclusive'),
  ),
  tier: tierRef('tier'),
  telemetry: v.picklist(['off', 't1'], 'telemetry must be "off" or "t1"'),
  duration_seconds: v.nullable(wholeNumber('duration_seconds', policyLimits.durationSeconds)),
  expiry_behavior: v.picklist(['deny', 'grace', 'fallback'], 'expiry_behavior must be "deny", "grace" or "fallback"'),
  fallback_tier: tierRef('fallback_tier'),
};

const policyIdSchema = v.pipe(
  v.string('id must be a string'),
  v.check((id) => isHexId(id, 16), 'id must be 32 lowercase hex digits'),
);

type PolicyFields = Omit<PolicyDocument, 'id'>;

/**
 * The rules that tie fields together (each message names its field). Shape and ranges are the
 * schema's job; this runs only on a document whose fields are individually valid.
 *
 * @param policy - A document whose fields passed the schema.
 * @returns The problems, empty when the document is consistent.
 * @example
 * ```ts
 * import { policyRuleProblems } from '@tollgate/core/license';
 * policyRuleProblems({ ...policy, expiry_behavior: 'fallback', fallback_tier: null }); // ['fallback_tier is required when …']
 * ```
 */
export function policyRuleProblems(policy: PolicyFields): string[] {
  const problems: string[] = [];
  const scope = policy.version_scope;
  if (scope !== null) {
    if (scope.min === undefined && scope.max_exclusive === undefined) problems.push('version_scope needs min and/or max_exclusive (use null for every version)');
    else if (scope.min !== undefined && scope.max_exclusive !== undefined && compareSemVer(scope.min, scope.max_exclusive) >= 0) {
      problems.push('version_scope.min must precede version_scope.max_exclusive');
    }
  }
  if (policy.expiry_behavior === 'fallback' && policy.fallback_tier === null) problems.push('fallback_tier is required when expiry_behavior is "fallback"');
  if (policy.expiry_behavior !== 'fallback' && policy.fallback_tier !== null) problems.push('fallback_tier must be null unless expiry_behavior is "fallback"');
  return problems;
}

// Runs only on a document whose fields each passed (valibot skips pipe actions on untyped data).
const policyRules = <Document extends PolicyFields>() =>
  v.rawCheck<Document>(({ dataset, addIssue }) => {
    if (dataset.typed) for (const message of policyRuleProblems(dataset.value)) addIssue({ message });
  });

/**
 * The body of `POST /policies`: `id` optional (assigned when absent), `product_id` and `name` required,
 * every other field optional with its {@link policyDefaults} value. Unknown fields are refused.
 */
export const policyCreateSchema = v.pipe(
  v.strictObject(
    {
      id: v.optional(policyIdSchema),
      product_id: fields.product_id,
      name: fields.name,
      seats: v.optional(fields.seats, policyDefaults.seats),
      validation_interval_seconds: v.optional(fields.validation_interval_seconds, policyDefaults.validation_interval_seconds),
      validation_grace_seconds: v.optional(fields.validation_grace_seconds, policyDefaults.validation_grace_seconds),
      heartbeat_window_seconds: v.optional(fields.heartbeat_window_seconds, policyDefaults.heartbeat_window_seconds),
      offline_allowed: v.optional(fields.offline_allowed, policyDefaults.offline_allowed),
      version_scope: v.optional(fields.version_scope, policyDefaults.version_scope),
      tier: v.optional(fields.tier, policyDefaults.tier),
      telemetry: v.optional(fields.telemetry, policyDefaults.telemetry),
      duration_seconds: v.optional(fields.duration_seconds, policyDefaults.duration_seconds),
      expiry_behavior: v.optional(fields.expiry_behavior, policyDefaults.expiry_behavior),
      fallback_tier: v.optional(fields.fallback_tier, policyDefaults.fallback_tier),
    },
    'the body must be a Policy document (docs/policies.md) and nothing else',
  ),
  policyRules(),
);

/**
 * The body of `PATCH /policies/:policyId`: the full document, every field present (a field left out
 * would silently reset to its default), `id` equal to the path id (checked by the operation).
 */
export const policyReplaceSchema = v.pipe(v.strictObject({ id: policyIdSchema, ...fields }, 'the body must be a full Policy document (docs/policies.md) and nothing else'), policyRules());

/**
 * A document with its fields in the documented order, so every answer and stored version serialises
 * the same way (PostgreSQL `jsonb` reorders keys; this puts them back).
 *
 * @param policy - A validated document (or one read back from the database).
 * @returns A fresh document.
 * @example
 * ```ts
 * import { policyDocument } from '@tollgate/core/license';
 * JSON.stringify(policyDocument(row.document));
 * ```
 */
export function policyDocument(policy: PolicyDocument): PolicyDocument {
  const scope = policy.version_scope;
  return {
    id: policy.id,
    product_id: policy.product_id,
    name: policy.name,
    seats: policy.seats,
    validation_interval_seconds: policy.validation_interval_seconds,
    validation_grace_seconds: policy.validation_grace_seconds,
    heartbeat_window_seconds: policy.heartbeat_window_seconds,
    offline_allowed: policy.offline_allowed,
    version_scope:
      scope === null ? null : { ...(scope.min === undefined ? {} : { min: scope.min }), ...(scope.max_exclusive === undefined ? {} : { max_exclusive: scope.max_exclusive }) },
    tier: policy.tier,
    telemetry: policy.telemetry,
    duration_seconds: policy.duration_seconds,
    expiry_behavior: policy.expiry_behavior,
    fallback_tier: policy.fallback_tier,
  };
}
