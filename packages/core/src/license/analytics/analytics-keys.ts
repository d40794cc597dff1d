import { hmacSha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { deriveLicenseSubkey } from '../admin/admin-keys';

/**
 * HKDF label of the analytics pseudonym key (salt `tollgate/license`): its own subkey of
 * `LICENSE_MASTER_KEY`, separate from the license-key and token hashes (spec, "Telemetry block" rule 3).
 * Registered here until the subkey registry lists it; changing it orphans every stored pseudonym.
 */
export const analyticsPseudonymLabel = 'tollgate/license/analytics-pseudonym/v1';

/** The keys of the analytics area. */
export interface AnalyticsKeys {
  /** HMAC-SHA-256 key of the pseudonyms. */
  readonly pseudonym: Uint8Array;
}

/**
 * Derives the analytics keys from the license master key.
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @returns The keys.
 * @example
 * ```ts
 * import { deriveAnalyticsKeys } from '@tollgate/core/license';
 * const keys = deriveAnalyticsKeys(masterKey);
 * ```
 */
export function deriveAnalyticsKeys(masterKey: Uint8Array): AnalyticsKeys {
  return Object.freeze({ pseudonym: deriveLicenseSubkey(masterKey, analyticsPseudonymLabel) });
}

/** What a pseudonym stands for: the kind is part of the HMAC input, so a device and a license never share one. */
export type PseudonymKind = 'device' | 'license';

/**
 * The pseudonym analytics rows carry instead of an id: HMAC-SHA-256(key, `<kind>` NUL `<id>`) as 64 hex
 * characters. Without the key it cannot be linked back to a machine or license; with it, a data-subject
 * request finds the subject's events.
 *
 * @param keys - The analytics keys.
 * @param kind - `device` (machine id) or `license` (license id).
 * @param id - The id (lowercase hex).
 * @returns 64 hex characters.
 * @example
 * ```ts
 * import { analyticsPseudonym, deriveAnalyticsKeys } from '@tollgate/core/license';
 * const device = analyticsPseudonym(deriveAnalyticsKeys(masterKey), 'device', machineId);
 * ```
 */
export function analyticsPseudonym(keys: AnalyticsKeys, kind: PseudonymKind, id: string): string {
  return hexEncode(hmacSha256(keys.pseudonym, utf8Encode(`${kind}\u0000${id}`)));
}
