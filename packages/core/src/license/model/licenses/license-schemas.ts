import * as v from 'valibot';
import { isHexId } from '../../../crypto/random';
import { catalogIdListSchema, catalogItemIdSchema } from '../catalog/catalog-schemas';
import { compareSemVer, isSemVer } from '../policies/semver';

/** Bounds of license fields (docs/decisions.md "License: licenses and machines"). */
export const licenseLimits = {
  /** Licenses per issue request. */
  issueCount: { min: 1, max: 100 },
  /** `seats_override`. */
  seats: { min: 1, max: 10_000 },
  metadataKeys: 50,
  metadataKeyLength: 64,
  metadataValueLength: 500,
} as const;

const hexIdSchema = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((id) => isHexId(id, 16), `${field} must be 32 lowercase hex digits`),
  );

/** An ISO 8601 instant with an explicit zone (`2027-01-01T00:00:00Z`), turned into a `Date`. */
const instantSchema = (field: string) =>
  v.pipe(
    v.string(`${field} must be an ISO 8601 date-time string`),
    v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, `${field} must be an ISO 8601 date-time with a zone, e.g. 2027-01-01T00:00:00Z`),
    v.check(isRealCalendarDate, `${field} names a day that does not exist`),
    v.transform((text) => new Date(text)),
    v.check((date) => !Number.isNaN(date.getTime()) && date.getUTCFullYear() <= 9999, `${field} must be a real date-time`),
  );

/** The calendar date an ISO text names, as written (`2027-02-30…` → `2027-02-30`). */
const writtenDate = (text: string) => text.slice(0, 10);

/** True when the written calendar date exists: `Date` silently rolls `2027-02-30` over to March 2. */
function isRealCalendarDate(text: string): boolean {
  const written = writtenDate(text);
  const probe = new Date(`${written}T00:00:00Z`);
  return !Number.isNaN(probe.getTime()) && probe.toISOString().slice(0, 10) === written;
}

const seatsSchema = v.pipe(
  v.number('seats_override must be a number'),
  v.integer('seats_override must be a whole number'),
  v.minValue(licenseLimits.seats.min, `seats_override must be at least ${licenseLimits.seats.min}`),
  v.maxValue(licenseLimits.seats.max, `seats_override must be at most ${licenseLimits.seats.max}`),
);

/** `metadata`: at most 50 keys of 1 to 64 characters, each value a string of at most 500 characters. */
export const licenseMetadataSchema = v.pipe(
  // valibot's record silently drops these keys; refuse them so nothing sent is lost without a word.
  v.custom<Record<string, string>>((value) => typeof value !== 'object' || value === null || !['__proto__', 'constructor', 'prototype'].some((key) => Object.hasOwn(value, key)), 'metadata keys must not be __proto__, constructor or prototype'),
  v.record(
    v.pipe(v.string(), v.minLength(1, 'metadata keys must not be empty'), v.maxLength(licenseLimits.metadataKeyLength, `metadata keys are at most ${licenseLimits.metadataKeyLength} characters`)),
    v.pipe(v.string('metadata values must be strings'), v.maxLength(licenseLimits.metadataValueLength, `metadata values are at most ${licenseLimits.metadataValueLength} characters`)),
    'metadata must be an object of strings',
  ),
  v.check((metadata) => Object.keys(metadata).length <= licenseLimits.metadataKeys, `metadata holds at most ${licenseLimits.metadataKeys} keys`),
);

/** `version_scope_override`: `null`, or SemVer bounds `min` (inclusive) and `max_exclusive`, min below max. */
export const versionScopeSchema = v.nullable(
  v.pipe(
    v.strictObject(
      {
        min: v.optional(v.pipe(v.string(), v.check((value: string) => isSemVer(value), 'min must be a SemVer version'))),
        max_exclusive: v.optional(v.pipe(v.string(), v.check((value: string) => isSemVer(value), 'max_exclusive must be a SemVer version'))),
      },
      'version_scope_override holds min and max_exclusive, and nothing else',
    ),
    v.check((scope) => scope.min === undefined || scope.max_exclusive === undefined || compareSemVer(scope.min, scope.max_exclusive) < 0, 'min must be below max_exclusive'),
  ),
);

/** `entitlement_overrides`: catalog feature ids to add and to remove (none in both). */
export const entitlementOverridesSchema = v.pipe(
  v.strictObject(
    { add: v.optional(catalogIdListSchema, []), remove: v.optional(catalogIdListSchema, []) },
    'entitlement_overrides holds add and remove, and nothing else',
  ),
  v.check((overrides) => !overrides.add.some((id) => overrides.remove.includes(id)), 'a feature cannot be both added and removed'),
);

/** The body of `POST /licenses`. */
export const issueLicensesSchema = v.strictObject(
  {
    policy_id: hexIdSchema('policy_id'),
    count: v.pipe(
      v.number('count must be a number'),
      v.integer('count must be a whole number'),
      v.minValue(licenseLimits.issueCount.min, `count must be at least ${licenseLimits.issueCount.min}`),
      v.maxValue(licenseLimits.issueCount.max, `count must be at most ${licenseLimits.issueCount.max}`),
    ),
    account_id: v.optional(hexIdSchema('account_id')),
    seats_override: v.optional(seatsSchema),
    // Absent: the policy's duration from now (or none); null: never expires.
    expires_at: v.optional(v.nullable(instantSchema('expires_at'))),
    metadata: v.optional(licenseMetadataSchema, {}),
  },
  'the body must be policy_id and count, with optionally account_id, seats_override, expires_at and metadata, and nothing else',
);

/** The body of `PATCH /licenses/:licenseId`: at least one field. */
export const patchLicenseSchema = v.pipe(
  v.strictObject(
    {
      status: v.optional(
        v.pipe(
          v.string('status must be a string'),
          v.check((status) => status !== 'revoked', 'status revoked is set by POST /v1/admin/licenses/{id}/revoke, not by PATCH'),
          v.picklist(['active', 'suspended'], 'status must be active or suspended'),
        ),
      ),
      expires_at: v.optional(v.nullable(instantSchema('expires_at'))),
      seats_override: v.optional(v.nullable(seatsSchema)),
      entitlement_overrides: v.optional(entitlementOverridesSchema),
      version_scope_override: v.optional(versionScopeSchema),
    },
    'the body holds status, expires_at, seats_override, entitlement_overrides or version_scope_override, and nothing else',
  ),
  v.check((patch) => Object.keys(patch).length > 0, 'name at least one field to change'),
);

/** The body of `POST /licenses/:licenseId/change-tier`. */
export const changeTierSchema = v.strictObject({ tier: catalogItemIdSchema }, 'the body must be { tier }');

/** The query of `GET /licenses`: `product_id` is required; `limit` and `cursor` are read by `parseAdminPage`. */
export const listLicensesQuerySchema = v.object(
  {
    product_id: hexIdSchema('product_id'),
    status: v.optional(v.picklist(['active', 'suspended', 'expired', 'revoked'], 'status must be active, suspended, expired or revoked')),
  },
  'product_id is required',
);

/** The body of `POST /licenses/:licenseId/offline-key`. */
export const offlineKeyRequestSchema = v.strictObject(
  {
    release_id: hexIdSchema('release_id'),
    bound_fingerprint_hex: v.optional(
      v.pipe(
        v.string('bound_fingerprint_hex must be a string'),
        v.check((hex) => isHexId(hex, 32), 'bound_fingerprint_hex must be 64 lowercase hex digits (a 32-byte device fingerprint)'),
      ),
    ),
    max_seats: v.optional(v.pipe(v.number('max_seats must be a number'), v.integer('max_seats must be a whole number'), v.minValue(1, 'max_seats must be at least 1'))),
  },
  'the body must be release_id, with optionally bound_fingerprint_hex and max_seats, and nothing else',
);

/** The body of the revoke routes: an optional reason code (0 to 255) recorded with the revocation. */
export const revokeBodySchema = v.optional(
  v.strictObject(
    { reason: v.optional(v.pipe(v.number('reason must be a number'), v.integer('reason must be a whole number'), v.minValue(0, 'reason is 0 to 255'), v.maxValue(255, 'reason is 0 to 255'))) },
    'the body holds only reason',
  ),
  {},
);
