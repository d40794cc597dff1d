import type { SuspicionSignal } from '../suspicion/suspicion-signals';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { verifyEd25519, type Signer } from '../../crypto';
import { keyedHash } from '../../crypto/keyed-hash';
import { randomBytes, type RandomSource } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import { LicenseClientError } from '../../errors/license-client';
import { createMemoryRateLimiter } from '../../storage/rate-limit/memory-rate-limiter';
import type { RateLimiter, RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import type { AccountTokenVerifier } from '../account-sessions/account-token';
import { deriveLicenseAdminKeys } from '../admin/admin-keys';
import type { AuditLog } from '../admin/audit/audit-log';
import type { ReleaseGate } from '../releases/release-gate';
import type { ArtifactKind, ArtifactPayloads } from '../kinds';
import { signArtifact } from '../sign-artifact';
import { pickSigningEpoch, type SigningEpoch } from '../signing-epochs';
import { TrustChainError } from '../trust-chain-error';
import type { SignatureVerifier } from '../verify-artifact';
import { createAssetKeySource, type AssetKeySource } from '../asset-keys/asset-key-source';
import { createEntitlementCache, type EntitlementCache } from './entitlement-cache';
import { createDeviceKeyCache, type DeviceKeyCache } from './validation-one-trip';

/** Per-route request budgets of the client protocol (activate, validate, offline); absent = unlimited. */
export interface ClientRateLimits {
  /** Per client address, per route. */
  readonly perAddress?: RateLimitRule;
  /** Per license, per route (activate, validate, offline: never heartbeat or deactivate), spent only once the request proved who sent it. */
  readonly perLicense?: RateLimitRule;
}

/**
 * Default budgets: 600 requests a minute per address and 120 a minute per license, per route. A license
 * of 1,000 seats validating daily spends under one a minute; a burst of activations of one license (a
 * fleet rollout) fits 120.
 *
 * @example
 * ```ts
 * import { defaultClientRateLimits } from '@tollgate/core/license';
 * const limits = { ...defaultClientRateLimits, perLicense: { limit: 600, windowMs: 60_000 } };
 * ```
 */
export const defaultClientRateLimits: Required<ClientRateLimits> = Object.freeze({
  perAddress: { limit: 600, windowMs: 60_000 },
  perLicense: { limit: 120, windowMs: 60_000 },
});

/** Retention of the client protocol's one-use records. */
export interface ClientProtocolRetention {
  /** How long a used nonce is remembered (default one day). */
  readonly nonceSeconds: number;
  /** How long an Idempotency-Key answer is replayed (default one day, as the Admin API's). */
  readonly idempotencySeconds: number;
}

/** Default {@link ClientProtocolRetention}. */
export const defaultClientProtocolRetention: ClientProtocolRetention = Object.freeze({ nonceSeconds: 86_400, idempotencySeconds: 86_400 });

/**
 * Something an operator should know about: a device that saw a later revocation epoch or security floor
 * than this server has (a database restored from an old backup, or a tampered client), or a telemetry
 * block that could not be stored (the validation went on).
 */
export type ClientProtocolNotice =
  | { readonly kind: 'rollback_reported'; readonly licenseId: string; readonly machineId: string; readonly details: Readonly<Record<string, number>> }
  | { readonly kind: 'telemetry_not_stored'; readonly machineId: string; readonly error: unknown }
  /** A forged proof, a replayed nonce, a license out of seats or a cloned fingerprint, an offline activation, a rollback report: see the suspicion ledger. */
  | { readonly kind: 'suspicious'; readonly signal: SuspicionSignal };

/** What the client protocol's services are built from. */
export interface ClientProtocolDeps {
  /** The license database (license migrations through 010 applied). */
  readonly sql: SqlClient;
  readonly clock: Clock;
  /** `LICENSE_MASTER_KEY`: license keys and device fingerprints are looked up by keyed hashes under its subkeys. */
  readonly masterKey: Uint8Array;
  /** Activations, deactivations and seat reclaims append to the vendor's audit chain. */
  readonly audit: AuditLog;
  /** The active epochs this instance can sign with (`trust.signingEpochs()`). */
  signingEpochs(): readonly SigningEpoch[];
  /** Release gating (1007, 1009, release status, security floor). Absent: every build passes, floor 0. */
  readonly releaseGate?: ReleaseGate;
  /** Resolves account access tokens. Absent: activations with an account token are refused (1003). */
  readonly accountTokens?: AccountTokenVerifier;
  /** Shared budgets (`createSqlRateLimiter` for several instances). Absent: no limits. */
  readonly rateLimiter?: RateLimiter;
  /**
   * The per-address budgets of validate and heartbeat. Default: in this process's memory (at most
   * 50 000 addresses), because a shared SQL bucket would add a database write to every validation
   * before its proof is even checked, as the gateway decided for `/receive`. With N instances a client
   * address gets up to N times the limit. Ignored without `rateLimiter` (no limits at all).
   */
  readonly addressRateLimiter?: RateLimiter;
  readonly rateLimits?: ClientRateLimits;
  readonly retention?: Partial<ClientProtocolRetention>;
  /** Device proof check: `verifyEd25519` by default (the server passes Node's native one). */
  readonly verify?: SignatureVerifier;
  /** Source of server nonces and machine ids (the platform CSPRNG by default). */
  readonly random?: RandomSource;
  /** Told about {@link ClientProtocolNotice}s; must not throw. */
  readonly notify?: (notice: ClientProtocolNotice) => void;
  /**
   * Where the asset keys credentials and tickets carry come from. Default: `createAssetKeySource` over
   * `sql` and `masterKey` (cached per release, invalidated by the release-change channel of `sql`).
   */
  readonly assetKeySource?: AssetKeySource;
}

/** The subkeys the client protocol hashes with (HKDF-SHA-256 of the master key, salt `tollgate/license`). */
export interface ClientProtocolKeys {
  /** The Admin API's license-key hash key: issuance stored keys under it. */
  readonly licenseKeyHash: Uint8Array;
  /** Device fingerprints are stored only as `keyedHash(fingerprintHash, fingerprint, 'device-fingerprint')`. */
  readonly fingerprintHash: Uint8Array;
}

/** The keyed-hash label of device fingerprints. */
export const deviceFingerprintLabel = 'device-fingerprint';

/**
 * Derives the client protocol's subkeys from `LICENSE_MASTER_KEY`.
 *
 * @param masterKey - 32 bytes.
 * @returns The subkeys.
 * @example
 * ```ts
 * import { deriveClientProtocolKeys } from '@tollgate/core/license';
 * const { fingerprintHash } = deriveClientProtocolKeys(masterKey);
 * ```
 */
export function deriveClientProtocolKeys(masterKey: Uint8Array): ClientProtocolKeys {
  const { licenseKeyHash } = deriveLicenseAdminKeys(masterKey);
  const fingerprintHash = hkdf(sha256, masterKey, utf8Encode('tollgate/license'), utf8Encode('tollgate/license/device-fingerprint-hash/v1'), 32);
  return Object.freeze({ licenseKeyHash, fingerprintHash });
}

/**
 * The stored form of a device fingerprint (64 hex): a fingerprint identifies a device, so the database
 * never holds it in clear.
 *
 * @param keys - The derived subkeys.
 * @param fingerprint - The 32 fingerprint bytes the device sent.
 * @returns 64 lowercase hex digits.
 * @example
 * ```ts
 * import { deriveClientProtocolKeys, hashDeviceFingerprint } from '@tollgate/core/license';
 * const stored = hashDeviceFingerprint(deriveClientProtocolKeys(masterKey), request.fingerprint);
 * ```
 */
export function hashDeviceFingerprint(keys: ClientProtocolKeys, fingerprint: Uint8Array): string {
  return keyedHash(keys.fingerprintHash, fingerprint, deviceFingerprintLabel);
}

/**
 * The epoch signer of a product-bound artifact now, or 5000/503 with `retry_after` 1 when no epoch may
 * sign (a rotation or keyset refresh fixes that, so the client retries inside its grace period).
 *
 * @param epochs - The instance's signing epochs.
 * @param productId - The artifact's product.
 * @param now - Unix seconds.
 * @returns The signer.
 * @throws LicenseClientError 5000 (503).
 * @example
 * ```ts
 * import { clientArtifactSigner } from '@tollgate/core/license';
 * const signer = clientArtifactSigner(deps.signingEpochs(), productId, now);
 * ```
 */
export function clientArtifactSigner(epochs: readonly SigningEpoch[], productId: string, now: number): Signer {
  try {
    return pickSigningEpoch(epochs, { productId, now }).signer;
  } catch (error) {
    throw unavailableSigner(error);
  }
}

function unavailableSigner(error: unknown): unknown {
  return error instanceof TrustChainError ? new LicenseClientError(5000, 'No signing epoch is active; retry shortly.', { status: 503, retryAfterSeconds: 1, cause: error }) : error;
}

/**
 * Signs a product-bound artifact for a device: with `signer` when given (an offline answer is signed by
 * the epoch that signed its credential), else the epoch {@link clientArtifactSigner} picks. A signer
 * that refuses at signing time (its epoch was revoked or its window ended a moment ago) is 5000/503
 * with `retry_after` 1, like having no epoch at all.
 *
 * @param epochs - The instance's signing epochs.
 * @param kind - The artifact kind.
 * @param payload - Its payload.
 * @param target - The product, the time, and optionally the signer to use.
 * @returns The envelope and its signer.
 * @throws LicenseClientError 5000 (503).
 * @example
 * ```ts
 * import { signClientArtifact } from '@tollgate/core/license';
 * const { envelope } = await signClientArtifact(deps.signingEpochs(), 'kill-order', order, { productId, now });
 * ```
 */
export async function signClientArtifact<Kind extends ArtifactKind>(
  epochs: readonly SigningEpoch[],
  kind: Kind,
  payload: ArtifactPayloads[Kind],
  target: { productId: string; now: number; signer?: Signer },
): Promise<{ envelope: Uint8Array; signer: Signer }> {
  const signer = target.signer ?? clientArtifactSigner(epochs, target.productId, target.now);
  try {
    return { envelope: await signArtifact(kind, payload, { signer, productId: target.productId }), signer };
  } catch (error) {
    throw unavailableSigner(error);
  }
}

/** {@link ClientProtocolDeps} with every default filled in and the subkeys derived, once per route table. */
export interface ClientProtocolContext extends ClientProtocolDeps {
  readonly keys: ClientProtocolKeys;
  readonly retentionSeconds: ClientProtocolRetention;
  readonly verifyProof: SignatureVerifier;
  readonly randomSource: RandomSource;
  /** Per-address budgets of validate and heartbeat (see `ClientProtocolDeps.addressRateLimiter`). */
  readonly addressLimiter: RateLimiter | undefined;
  /** Wire entitlements by product, tier, overrides and catalog version (see `createEntitlementCache`). */
  readonly entitlementCache: EntitlementCache;
  /** Device keys by machine, so validate can check the proof before its one statement (see `spendValidationInOneTrip`). */
  readonly deviceKeys: DeviceKeyCache;
  /** The asset keys of releases (see `ClientProtocolDeps.assetKeySource`). */
  readonly assetKeys: AssetKeySource;
}

/**
 * Fills in the defaults of {@link ClientProtocolDeps} and derives the subkeys.
 *
 * @param deps - The dependencies.
 * @returns The context the services take.
 * @example
 * ```ts
 * import { clientProtocolContext } from '@tollgate/core/license';
 * const context = clientProtocolContext({ sql, clock, masterKey, audit, signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function clientProtocolContext(deps: ClientProtocolDeps): ClientProtocolContext {
  return {
    ...deps,
    keys: deriveClientProtocolKeys(deps.masterKey),
    retentionSeconds: { ...defaultClientProtocolRetention, ...deps.retention },
    verifyProof: deps.verify ?? verifyEd25519,
    randomSource: deps.random ?? randomBytes,
    addressLimiter: deps.rateLimiter === undefined ? undefined : (deps.addressRateLimiter ?? createMemoryRateLimiter({ clock: deps.clock, maxKeys: 50_000 })),
    entitlementCache: createEntitlementCache({ clock: deps.clock }),
    deviceKeys: createDeviceKeyCache(),
    assetKeys: deps.assetKeySource ?? createAssetKeySource({ sql: deps.sql, masterKey: deps.masterKey, clock: deps.clock }),
  };
}
