import { bulkDecodeLimits } from '../cbor';
import { hexEncode } from '../crypto';
import { ArtifactError } from './artifact-error';
import { decodeSign1 } from './cose-sign1';
import { rootKeyIdHex, verifyEpochCertificate, type VerifiedEpoch } from './epoch-certificate';
import { keysetSpec, type Keyset } from './messages/keyset-message';
import { licenseClockSkewSeconds, licenseWireLengths } from './protocol';
import { decodeRecord, encodeRecord } from './record-codec';
import type { SignatureVerifier } from './verify-artifact';

/**
 * The epochs of a keyset whose certificates verified against the pinned roots. Use it as `keys` of
 * `verifyArtifact`.
 */
export interface VerifiedKeyset {
  /** The server's revocation epoch when it built the keyset. */
  readonly revocationEpoch: number;
  /**
   * Epochs not yet expired at `verifiedAt` (give or take `licenseClockSkewSeconds`, including
   * not-yet-valid successors), by epoch id hex.
   */
  readonly epochs: ReadonlyMap<string, VerifiedEpoch>;
  /**
   * Epochs whose certificates verified but had expired at `verifiedAt`: left out of `epochs`, kept only
   * to verify the revocation batches they signed.
   */
  readonly expiredEpochs: ReadonlyMap<string, VerifiedEpoch>;
  /** How many certificates were skipped because their `kid` names no pinned root. */
  readonly unpinnedCertificates: number;
  /** The unix time the keyset was verified at. */
  readonly verifiedAt: number;
}

/**
 * Encodes a keyset (`GET /v1/keys` body).
 *
 * @param keyset - Certificates and revocation epoch.
 * @returns Canonical CBOR.
 * @throws {@link ArtifactError} `invalid_payload`.
 *
 * @example
 * ```ts
 * import { encodeKeyset } from '@tollgate/core/license';
 * const body = encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 7 });
 * ```
 */
export function encodeKeyset(keyset: Keyset): Uint8Array {
  return encodeRecord(keysetSpec, keyset);
}

/**
 * Decodes a keyset strictly (bulk limits: up to 8 MiB), without verifying its certificates.
 *
 * @param bytes - The body of `GET /v1/keys`.
 * @returns The typed keyset.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 *
 * @example
 * ```ts
 * import { decodeKeyset } from '@tollgate/core/license';
 * console.log(decodeKeyset(body).revocationEpoch);
 * ```
 */
export function decodeKeyset(bytes: Uint8Array): Keyset {
  return decodeRecord(keysetSpec, bytes, bulkDecodeLimits);
}

/**
 * Checks the pin list: at least one 32-byte key (clients pin the current and the next root).
 *
 * @param pinnedRoots - The pins.
 * @throws TypeError when empty or malformed.
 *
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { assertPinnedRoots } from '@tollgate/core/license';
 * assertPinnedRoots([hexDecode(ROOT_CURRENT_HEX), hexDecode(ROOT_NEXT_HEX)]);
 * ```
 */
export function assertPinnedRoots(pinnedRoots: readonly Uint8Array[]): void {
  if (!Array.isArray(pinnedRoots) || pinnedRoots.length === 0) throw new TypeError('pin at least one root public key');
  for (const pin of pinnedRoots) {
    if (!(pin instanceof Uint8Array) || pin.length !== licenseWireLengths.publicKey) throw new TypeError('a pinned root is a 32-byte Ed25519 public key');
  }
}

/**
 * The root key id a certificate names in its `kid`, or `undefined` when the envelope cannot say (the
 * full verification then reports what is wrong).
 */
function certificateRootKeyId(certificate: Uint8Array): string | undefined {
  try {
    const kid = decodeSign1(certificate).header.kid;
    return kid === undefined ? undefined : hexEncode(kid);
  } catch {
    return undefined;
  }
}

/**
 * Verifies a keyset against pinned roots. A keyset is **not** a trust anchor:
 *
 * - a certificate whose `kid` names no pinned root is **skipped** (counted in `unpinnedCertificates`):
 *   after a root rotation the server may still list epochs of a root this client no longer pins, and
 *   they are simply not trusted;
 * - a certificate that names a pinned root must verify completely (signature, layout, root digest), and
 *   an epoch may appear only once: otherwise the **whole keyset is refused**, since that means tampering
 *   or a broken server;
 * - a keyset that lists certificates none of which names a pinned root is refused (`unpinned_root`):
 *   the client pins other roots than the server uses. An empty keyset is valid (no epochs).
 *
 * Certificates that expired at `now` (give or take `licenseClockSkewSeconds`) move to `expiredEpochs`
 * (revocation batches only); successors that are not valid yet stay in `epochs`, so a rotation needs no
 * new fetch.
 *
 * @param bytes - The body of `GET /v1/keys`.
 * @param pinnedRoots - Pinned root public keys (current and next).
 * @param now - Unix seconds.
 * @param options - `verify`: signature check (`verifyEd25519` by default).
 * @returns The verified keyset.
 * @throws {@link ArtifactError} (`bad_encoding`, `invalid_payload`, `unpinned_root`, `bad_signature`, …).
 *
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { verifyKeyset } from '@tollgate/core/license';
 * const keys = verifyKeyset(body, [hexDecode(ROOT_CURRENT), hexDecode(ROOT_NEXT)], Math.floor(Date.now() / 1000));
 * ```
 */
export function verifyKeyset(bytes: Uint8Array, pinnedRoots: readonly Uint8Array[], now: number, options: { verify?: SignatureVerifier } = {}): VerifiedKeyset {
  assertPinnedRoots(pinnedRoots);
  if (!Number.isSafeInteger(now)) throw new TypeError('now must be unix seconds (an integer)');
  const keyset = decodeKeyset(bytes);
  const pinnedKeyIds = new Set(pinnedRoots.map(rootKeyIdHex));
  const epochs = new Map<string, VerifiedEpoch>();
  const expiredEpochs = new Map<string, VerifiedEpoch>();
  let unpinnedCertificates = 0;
  keyset.certificates.forEach((certificate, index) => {
    const rootKeyId = certificateRootKeyId(certificate);
    if (rootKeyId !== undefined && !pinnedKeyIds.has(rootKeyId)) {
      unpinnedCertificates += 1;
      return;
    }
    let epoch: VerifiedEpoch;
    try {
      epoch = verifyEpochCertificate(certificate, { pinnedRoots, ...(options.verify === undefined ? {} : { verify: options.verify }) });
    } catch (error) {
      if (error instanceof ArtifactError) {
        throw new ArtifactError(error.reason, `Keyset certificate ${index}: ${error.message}`, { details: { ...error.details, certificate: index }, cause: error });
      }
      throw error;
    }
    if (epochs.has(epoch.epochIdHex) || expiredEpochs.has(epoch.epochIdHex)) {
      throw new ArtifactError('invalid_payload', `Keyset lists epoch ${epoch.epochIdHex} twice.`, { details: { epochId: epoch.epochIdHex, certificate: index } });
    }
    if (now >= epoch.notAfter + licenseClockSkewSeconds) expiredEpochs.set(epoch.epochIdHex, epoch);
    else epochs.set(epoch.epochIdHex, epoch);
  });
  if (keyset.certificates.length > 0 && unpinnedCertificates === keyset.certificates.length) {
    throw new ArtifactError('unpinned_root', 'No certificate of the keyset was issued by a pinned root.', { details: { unpinnedCertificates } });
  }
  return Object.freeze({ revocationEpoch: keyset.revocationEpoch, epochs, expiredEpochs, unpinnedCertificates, verifiedAt: now });
}
