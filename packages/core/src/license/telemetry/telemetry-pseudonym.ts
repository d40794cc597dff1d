import { keyedHash, keyedHashLabels } from '../../crypto/keyed-hash';
import { deriveLicenseSubkey, licenseSubkeyLabels } from '../admin/admin-keys';

/**
 * HKDF `info` label of the telemetry pseudonym subkey of `LICENSE_MASTER_KEY` (salt `tollgate/license`),
 * `tollgate/license/telemetry-pseudonym/v1` from the subkey registry.
 * Its own subkey, so a telemetry pseudonym never equals a license-key hash, a fingerprint hash or another
 * purpose's keyed hash of the same bytes. Stable: changing it orphans every stored telemetry row (DSR
 * could no longer find them).
 */
export const telemetryPseudonymSubkeyLabel: string = licenseSubkeyLabels.telemetryPseudonym;

const derivedKeys = new WeakMap<Uint8Array, Uint8Array>();

/**
 * Derives the key of telemetry pseudonyms from the license master key (HKDF-SHA-256, label
 * {@link telemetryPseudonymSubkeyLabel}). Derived once per master key and remembered, because validate
 * asks for it on every block.
 *
 * @param masterKey - The 32-byte `LICENSE_MASTER_KEY`.
 * @returns 32 bytes.
 * @throws TypeError when the master key is not 32 bytes.
 * @example
 * ```ts
 * import { deriveTelemetryPseudonymKey, telemetrySubject } from '@tollgate/core/license';
 * const subject = telemetrySubject(deriveTelemetryPseudonymKey(masterKey), machineId);
 * ```
 */
export function deriveTelemetryPseudonymKey(masterKey: Uint8Array): Uint8Array {
  const known = derivedKeys.get(masterKey);
  if (known !== undefined) return known;
  const key = deriveLicenseSubkey(masterKey, telemetryPseudonymSubkeyLabel);
  derivedKeys.set(masterKey, key);
  return key;
}

/**
 * The pseudonym telemetry rows are keyed by instead of the machine id: `keyedHash(key, machineId,
 * 'analytics-pseudonym')`, 64 lowercase hex. Stable for a machine (the server recomputes it from the
 * machine id to export or erase that machine's rows), unlinkable to the machine without the server
 * secret, and under a domain label and subkey of its own (never equal to a license-key HMAC).
 *
 * @param pseudonymKey - {@link deriveTelemetryPseudonymKey} of the master key.
 * @param machineId - The machine id, 32 lowercase hex digits.
 * @returns 64 lowercase hex digits.
 * @example
 * ```ts
 * import { deriveTelemetryPseudonymKey, telemetrySubject } from '@tollgate/core/license';
 * const subject = telemetrySubject(deriveTelemetryPseudonymKey(masterKey), '0f1e…');
 * ```
 */
export function telemetrySubject(pseudonymKey: Uint8Array, machineId: string): string {
  if (!/^[0-9a-f]{32}$/.test(machineId)) throw new TypeError('A machine id is 32 lowercase hex digits.');
  return keyedHash(pseudonymKey, machineId, keyedHashLabels.analyticsPseudonym);
}
