import { hexDecode, systemClock, unixSeconds } from '@tollgate/core';
import {
  verifyArtifact as verifyArtifactWithCore,
  verifyKeyset as verifyKeysetWithCore,
  type ArtifactKind,
  type EpochKeySource,
  type SignatureVerifier,
  type VerifiedArtifact,
  type VerifiedKeyset,
} from '@tollgate/core/license';

/** A pinned root public key: 32 bytes, or 64 lower-case hex digits as you would embed it in an app. */
export type PinnedRoot = Uint8Array | string;

/**
 * Turns pins given as hex or bytes into bytes.
 *
 * @param pinnedRoots - The pins.
 * @returns 32-byte keys.
 * @throws TypeError for a malformed pin.
 *
 * @example
 * ```ts
 * import { decodePins } from '@tollgate/client-sdk';
 * const pins = decodePins([ROOT_CURRENT_HEX, ROOT_NEXT_HEX]);
 * ```
 */
export function decodePins(pinnedRoots: readonly PinnedRoot[]): Uint8Array[] {
  return pinnedRoots.map((pin) => {
    if (pin instanceof Uint8Array) return pin;
    if (typeof pin !== 'string' || !/^[0-9a-f]{64}$/.test(pin)) throw new TypeError('a pinned root is 32 bytes or 64 lower-case hex digits');
    return hexDecode(pin);
  });
}

/**
 * Verifies the body of `GET /v1/keys` against the roots pinned in the app (current and next). The
 * keyset is not trusted by itself: a certificate whose `kid` names a root you do not pin is skipped
 * (counted in `unpinnedCertificates`); every other certificate must be signed by the pinned root it
 * names, or the whole keyset is refused; and a keyset none of whose certificates names a pinned root
 * is refused (`unpinned_root`). Certificates expired at `now` (give or take the 300 s clock skew) are
 * kept apart in `expiredEpochs`, which verify revocation batches only; a successor whose window has not
 * opened yet stays in `epochs`, so a rotation needs no refetch.
 *
 * @param keyset - The CBOR body of `GET /v1/keys`.
 * @param pinnedRoots - Root public keys (bytes or hex), current then next.
 * @param now - Unix seconds.
 * @param options - `verify`: the Ed25519 check (noble by default; `nodeEd25519Verifier` from
 *   `@tollgate/client-sdk/node` is several times faster on Node).
 * @returns The verified keyset, to pass to {@link verifyArtifact}.
 * @throws `ArtifactError` (`bad_encoding`, `invalid_payload`, `unpinned_root`, `bad_signature`).
 *
 * @example
 * ```ts
 * import { verifyKeyset } from '@tollgate/client-sdk';
 * const keys = verifyKeyset(body, [ROOT_CURRENT_HEX, ROOT_NEXT_HEX], Math.floor(Date.now() / 1000));
 * ```
 */
export function verifyKeyset(keyset: Uint8Array, pinnedRoots: readonly PinnedRoot[], now: number, options: { verify?: SignatureVerifier } = {}): VerifiedKeyset {
  return verifyKeysetWithCore(keyset, decodePins(pinnedRoots), now, options);
}

/** Options of {@link verifyArtifact}. */
export interface VerifyArtifactOptions {
  /** Your product id: required for every kind except `revocation-batch`. */
  productId?: string;
  /** Unix seconds; the system clock by default. */
  now?: number;
  /**
   * **Required.** Epoch ids (hex) the revocation feed revoked (`RevocationFollower.state().revokedEpochIds`).
   * There is no default: an artifact signed by a revoked epoch verifies perfectly well, so leaving the
   * feed out would accept what a leaked key signs. `createArtifactVerifier` passes it for you.
   */
  revokedEpochIds: ReadonlySet<string> | readonly string[];
  /** Signature check; noble's strict Ed25519 by default. */
  verify?: SignatureVerifier;
}

/**
 * Verifies a signed artifact (machine credential, validation ticket, kill order, revocation batch,
 * offline response) with the epoch keys of a verified keyset and the epochs the revocation feed revoked,
 * and returns its typed payload. It fails with an `ArtifactError` naming what failed: `bad_encoding`,
 * `unknown_kind`, `wrong_kind` (a ticket offered as a kill order), `wrong_domain` (another product),
 * `unknown_key`, `epoch_not_yet_valid`, `expired_epoch`, `revoked_epoch`, `bad_signature` or
 * `invalid_payload`.
 *
 * This is the building block: most apps use `createArtifactVerifier`, which keeps the keyset and the
 * revocation feed current and refuses to verify while the feed is stale. Call this one yourself only
 * with a revoked set you keep current (an air-gapped machine that receives the feed state by other
 * means, for example).
 *
 * @param bytes - The envelope (the response body of activate/validate, or an item of the revocation feed).
 * @param kind - The kind you expect.
 * @param keys - A keyset from {@link verifyKeyset} (or anything with verified `epochs`).
 * @param options - Revoked epochs (required), product, time.
 * @returns The payload, product and signing epoch.
 * @throws `ArtifactError` as listed; `TypeError` when `revokedEpochIds` is missing.
 *
 * @example
 * ```ts
 * import { verifyArtifact } from '@tollgate/client-sdk';
 * const { revokedEpochIds } = follower.state();
 * const { payload } = verifyArtifact(body, 'validation-ticket', keys, { productId: 'acme-editor', revokedEpochIds });
 * if (payload.verdict !== 0) enterRestrictedMode();
 * ```
 */
export function verifyArtifact<Kind extends Exclude<ArtifactKind, 'epoch-certificate'>>(
  bytes: Uint8Array,
  kind: Kind,
  keys: EpochKeySource,
  options: VerifyArtifactOptions,
): VerifiedArtifact<Kind> {
  const revoked = (options as Partial<VerifyArtifactOptions> | undefined)?.revokedEpochIds;
  if (!(revoked instanceof Set) && !Array.isArray(revoked)) {
    throw new TypeError('verifyArtifact needs revokedEpochIds (the revocation feed\'s revoked epochs): use createArtifactVerifier, or pass follower.state().revokedEpochIds');
  }
  return verifyArtifactWithCore(bytes, kind, {
    keys,
    now: options.now ?? unixSeconds(systemClock),
    ...(options.productId === undefined ? {} : { productId: options.productId }),
    revokedEpochIds: revoked instanceof Set ? (revoked as ReadonlySet<string>) : new Set(revoked as readonly string[]),
    ...(options.verify === undefined ? {} : { verify: options.verify }),
  });
}
