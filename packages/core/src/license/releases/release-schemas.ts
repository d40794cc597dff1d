import * as v from 'valibot';
import { isHexId } from '../../crypto/random';
import { hexProductIdSchema } from '../model/catalog/catalog-schemas';
import { isSemVer } from '../model/policies/semver';

/** Bounds of release fields (docs/decisions.md "License: releases"). */
export const releaseLimits = {
  /** `app_version`: the wire's `client_info` app version is 1 to 64 bytes, so a longer one could never match. */
  appVersionLength: 64,
  /** Every hex field is 32 bytes. */
  hexBytes: 32,
} as const;

/** Release channels: short slugs such as `stable`, `beta`, `rc`, `nightly`. */
export const releaseChannelPattern = /^[a-z0-9][a-z0-9._-]{0,31}$/;

const hex32Schema = (field: string, what: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((hex) => isHexId(hex, releaseLimits.hexBytes), `${field} must be 64 lowercase hex digits (${what})`),
  );

/** A release id in a body or query: 32 lowercase hex digits. */
export const releaseIdSchema = v.pipe(
  v.string('release_id must be a string'),
  v.check((id) => isHexId(id, 16), 'release_id must be 32 lowercase hex digits'),
);

/** The body of `POST /releases`. */
export const registerReleaseSchema = v.strictObject(
  {
    product_id: hexProductIdSchema,
    app_version: v.pipe(
      v.string('app_version must be a string'),
      v.maxLength(releaseLimits.appVersionLength, `app_version must be at most ${releaseLimits.appVersionLength} characters`),
      v.check((version: string) => isSemVer(version), 'app_version must be a SemVer 2.0.0 version such as 2.1.0 or 2.1.0-rc.1'),
    ),
    build_fingerprint: hex32Schema('build_fingerprint', 'the 32-byte build fingerprint the app reports'),
    channel: v.pipe(v.string('channel must be a string'), v.regex(releaseChannelPattern, 'channel must be 1 to 32 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit')),
    manifest_root_hex: v.optional(hex32Schema('manifest_root_hex', 'a 32-byte manifest root')),
    module_digest_hex: v.optional(hex32Schema('module_digest_hex', 'a 32-byte module digest')),
    variant_seed_hex: v.optional(hex32Schema('variant_seed_hex', 'a 32-byte variant seed')),
  },
  'the body must be product_id, app_version, build_fingerprint and channel, with optionally manifest_root_hex, module_digest_hex and variant_seed_hex, and nothing else',
);

/** The query of `GET /releases` (`limit` and `cursor` are read by `parseAdminPage`). */
export const listReleasesQuerySchema = v.object({
  product_id: v.optional(hexProductIdSchema),
  channel: v.optional(v.pipe(v.string(), v.regex(releaseChannelPattern, 'channel must be a channel slug'))),
  state: v.optional(v.picklist(['registered', 'deprecated', 'compromised'], 'state must be registered, deprecated or compromised')),
});

/**
 * A JSON object body, never an array: valibot's object schemas accept `[]` (it has no keys), which would
 * let a body that is not an object at all through as "no fields".
 */
const objectBody = <Schema extends v.GenericSchema>(schema: Schema, message: string) =>
  v.pipe(
    v.unknown(),
    v.check((body) => !Array.isArray(body), message),
    schema,
  );

/** The body of `POST /releases/:releaseId/deprecate`: none, or an empty object. */
export const deprecateReleaseSchema = v.optional(objectBody(v.strictObject({}, 'deprecate takes no body fields'), 'deprecate takes no body fields'), {});

const markCompromisedMessage = 'the body must be an object of action, bump_security_floor and acknowledge_revoke (each optional in a dry run), and nothing else';

/**
 * The body of `POST /releases/:releaseId/mark-compromised`. The whole body, and `action` in it, may be
 * left out of a dry run (which then reports the impact and which actions would change the release): the
 * spec makes every destructive route a dry run by default, and a preview that cannot be asked without
 * choosing first is no preview. A confirmation needs `action` (checked by the operation, which knows
 * whether the call is a dry run).
 */
export const markCompromisedSchema = v.optional(
  objectBody(
    v.strictObject(
      {
        action: v.optional(v.picklist(['warn', 'force_upgrade', 'revoke'], 'action must be warn, force_upgrade or revoke')),
        bump_security_floor: v.optional(v.boolean('bump_security_floor must be true or false'), false),
        acknowledge_revoke: v.optional(v.boolean('acknowledge_revoke must be true or false'), false),
      },
      markCompromisedMessage,
    ),
    markCompromisedMessage,
  ),
  { bump_security_floor: false, acknowledge_revoke: false },
);
