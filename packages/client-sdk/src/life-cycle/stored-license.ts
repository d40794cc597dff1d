import { hexDecode, hexEncode } from '@tollgate/core';
import { utf8Decode, utf8Encode } from '@tollgate/core/crypto';
import * as v from 'valibot';
import type { RevocationFollowerState } from '../revocation-follower';
import type { UsageWindow } from './usage-telemetry';

/**
 * Everything a license client keeps between runs (see `LicenseStorage`): the device's keys, the signed
 * envelopes exactly as the server sent them (verified again at every start, never trusted as stored),
 * the revocation feed position, and the highest time this device has seen (the clock guard's mark).
 */
export interface StoredLicense {
  readonly productId: string;
  /** Ed25519 seed of the device key that signs every request after activation. */
  readonly deviceSeed: Uint8Array;
  /** X25519 private key of the device (asset keys are wrapped to its public half). */
  readonly kemPrivateKey: Uint8Array;
  /** The machine credential envelope from activation or an imported offline answer; absent while an offline request waits for its answer. */
  readonly credential?: Uint8Array;
  /** The nonce of an offline request built on this device whose answer was not imported yet. */
  readonly pendingOfflineNonce?: Uint8Array;
  /** Epoch certificates of an imported offline answer: the credential verifies with them (and the pins) until the server is reached. */
  readonly certificates?: readonly Uint8Array[];
  /** The last validation ticket envelope, if any. */
  readonly ticket?: Uint8Array;
  /** The last verified keyset envelope: artifacts verify against it offline. */
  readonly keyset?: Uint8Array;
  readonly revocation: RevocationFollowerState;
  /** Unix seconds: the highest device or server time seen; a clock far below it was set back. */
  readonly clockMark: number;
  /**
   * Unix seconds (device time) when the server refused this device (a 4xx such as a suspended license
   * or an erased machine) or its answer failed verification: the license stays locked, also across
   * restarts, until a validation succeeds.
   */
  readonly refusedAt?: number;
  /** The highest revocation epoch and security floor seen (sent on validate; never lowered). */
  readonly knownRevocationEpoch: number;
  readonly knownSecurityFloor: number;
  /** Privacy-notice version the user accepted (0 = none): telemetry is collected only above 0. */
  readonly consentVersion: number;
  /** Usage counted since the last validation that carried it (only while `consentVersion` > 0). */
  readonly usage?: UsageWindow;
}

const hex = (length?: number) =>
  v.pipe(
    v.string(),
    v.regex(/^(?:[0-9a-f]{2})*$/),
    v.check((text) => length === undefined || text.length === length * 2),
    v.transform((text) => hexDecode(text)),
  );
const seconds = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

const storedSchema = v.object({
  format: v.literal(1),
  productId: v.string(),
  deviceSeed: hex(32),
  kemPrivateKey: hex(32),
  credential: v.optional(hex()),
  pendingOfflineNonce: v.optional(hex(32)),
  certificates: v.optional(v.pipe(v.array(hex()), v.maxLength(8))),
  ticket: v.optional(hex()),
  keyset: v.optional(hex()),
  revocation: v.object({
    revocationEpoch: seconds,
    revokedEpochIds: v.array(v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/))),
    lastIssuedAt: v.optional(seconds),
    syncedAt: v.optional(seconds),
    checkpoint: v.optional(v.unknown()),
  }),
  clockMark: seconds,
  refusedAt: v.optional(seconds),
  knownRevocationEpoch: seconds,
  knownSecurityFloor: seconds,
  consentVersion: seconds,
  usage: v.optional(
    v.object({
      windowStart: seconds,
      sessionCount: seconds,
      histogram: v.tuple([seconds, seconds, seconds, seconds]),
      featureHits: v.record(v.string(), seconds),
      activeDays: v.array(seconds),
    }),
  ),
});

/**
 * The record's bytes: UTF-8 JSON with byte strings as lower-case hex (format 1).
 *
 * @param stored - The state to keep.
 * @returns The bytes to hand to `LicenseStorage.save`.
 * @example
 * ```ts
 * await storage.save(encodeStoredLicense(stored));
 * ```
 */
export function encodeStoredLicense(stored: StoredLicense): Uint8Array {
  const { deviceSeed, kemPrivateKey, credential, ticket, keyset, pendingOfflineNonce, certificates, ...rest } = stored;
  return utf8Encode(
    JSON.stringify({
      format: 1,
      ...rest,
      deviceSeed: hexEncode(deviceSeed),
      kemPrivateKey: hexEncode(kemPrivateKey),
      ...(credential === undefined ? {} : { credential: hexEncode(credential) }),
      ...(pendingOfflineNonce === undefined ? {} : { pendingOfflineNonce: hexEncode(pendingOfflineNonce) }),
      ...(certificates === undefined ? {} : { certificates: certificates.map(hexEncode) }),
      ...(ticket === undefined ? {} : { ticket: hexEncode(ticket) }),
      ...(keyset === undefined ? {} : { keyset: hexEncode(keyset) }),
    }),
  );
}

/**
 * Reads a record written by {@link encodeStoredLicense}; `undefined` for anything else (a damaged or
 * foreign record is never half-used).
 *
 * @param bytes - What `LicenseStorage.load` returned.
 * @returns The state, or `undefined`.
 * @example
 * ```ts
 * const stored = decodeStoredLicense(await storage.load() ?? new Uint8Array());
 * ```
 */
export function decodeStoredLicense(bytes: Uint8Array): StoredLicense | undefined {
  try {
    const parsed = v.safeParse(storedSchema, JSON.parse(utf8Decode(bytes)));
    if (!parsed.success) return undefined;
    const { format, revocation, ...rest } = parsed.output;
    void format;
    return { ...rest, revocation: revocation as RevocationFollowerState };
  } catch {
    return undefined;
  }
}
