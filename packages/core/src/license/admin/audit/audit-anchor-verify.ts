import { hexEncode, verifyEd25519 } from '../../../crypto';
import { ArtifactError, isArtifactError } from '../../artifact-error';
import { decodeSign1 } from '../../cose-sign1';
import { verifyKeyset } from '../../keyset';
import { licenseClockSkewSeconds } from '../../protocol';
import { checkEpochWindow, expectKindAndProduct, verifySignatureAndPayload, type EpochKey, type EpochKeySource, type SignatureVerifier } from '../../verify-artifact';
import { auditChainLink, auditGenesisHash, verifyAuditChain } from './audit-chain';
import type { AnchoredAuditHead } from './audit-anchors';
import type { AuditEvent } from './audit-log';

/**
 * Where the anchor's signing key comes from: the keyset body of `GET /v1/keys` with the roots you pin
 * (verified here with `verifyKeyset`), or epoch keys you already verified under pinned roots (a
 * `VerifiedKeyset`).
 */
export type AuditAnchorTrust = { readonly keyset: Uint8Array; readonly pinnedRoots: readonly Uint8Array[] } | { readonly keys: EpochKeySource };

/** Options of {@link verifyAuditAnchor}. */
export interface VerifyAuditAnchorOptions {
  readonly trust: AuditAnchorTrust;
  /**
   * The vendor's events as listed (any order; events after the anchored seq are ignored). Events 1 to
   * the anchored seq must all be present.
   */
  readonly events: readonly AuditEvent[];
  /** Verification time (unix seconds): an anchor dated later than `now + licenseClockSkewSeconds` is refused. */
  readonly now: number;
  /** The vendor you expect the anchor to be about; checked when given. */
  readonly vendorId?: string;
  /** Epoch ids (hex) revoked by the revocation feed: their anchors are refused. */
  readonly revokedEpochIds?: ReadonlySet<string>;
  /** Signature check; `verifyEd25519` by default. */
  readonly verify?: SignatureVerifier;
}

/**
 * The outcome of {@link verifyAuditAnchor}:
 * - `verified`: the anchor is genuine and the events' recomputed chain reaches its head at its seq;
 * - `untrusted_anchor`: the envelope, its signer or the keyset failed (`error.reason` says which, e.g.
 *   `unpinned_root`, `unknown_key`, `bad_signature`, `expired_epoch`);
 * - `wrong_vendor`: a genuine anchor about another vendor than `vendorId`;
 * - `chain_mismatch`: a genuine anchor, but the events do not reproduce it. `firstBroken` is the first
 *   position where the events are not intact (see `verifyAuditChain`); when they are intact among
 *   themselves but end in another hash than the anchored one (the log was rewritten and re-hashed after
 *   the anchor), it is the anchored seq.
 */
export type AuditAnchorVerification =
  | { readonly verified: true; readonly anchor: AnchoredAuditHead; readonly epoch: EpochKey }
  | { readonly verified: false; readonly reason: 'untrusted_anchor'; readonly error: ArtifactError }
  | { readonly verified: false; readonly reason: 'wrong_vendor'; readonly anchor: AnchoredAuditHead }
  | { readonly verified: false; readonly reason: 'chain_mismatch'; readonly anchor: AnchoredAuditHead; readonly firstBroken: number };

function trustedKeys(trust: AuditAnchorTrust, now: number, verify: SignatureVerifier): EpochKeySource {
  return 'keys' in trust ? trust.keys : verifyKeyset(trust.keyset, trust.pinnedRoots, now, { verify });
}

/**
 * Verifies an anchor's envelope, in this order: the keyset against the pins (when given as bytes);
 * strict encoding and kind `audit-anchor` without a product (`bad_encoding`, `unknown_kind`,
 * `wrong_kind`); the `kid` among the trusted epochs, current or expired (`unknown_key`), not revoked
 * (`revoked_epoch`) and global (`wrong_domain`); the signature, then the payload (`bad_signature`,
 * `invalid_payload`); the epoch's window at the signed `anchoredAt`, exactly (`epoch_not_yet_valid`,
 * `expired_epoch`), and `anchoredAt` not after `now` plus the clock skew (`invalid_payload`). Like a
 * revocation batch, an anchor is a statement about the past: it stays verifiable after its epoch expires.
 */
function verifyAnchorEnvelope(envelope: Uint8Array, options: VerifyAuditAnchorOptions): { anchor: AnchoredAuditHead; epoch: EpochKey } {
  const verify = options.verify ?? verifyEd25519;
  const keys = trustedKeys(options.trust, options.now, verify);
  const parts = decodeSign1(envelope);
  expectKindAndProduct(parts, 'audit-anchor', undefined);
  if (parts.header.kid === undefined) throw new ArtifactError('bad_encoding', 'An anchor names its signing epoch (kid).', { details: { part: 'protected', field: 'kid' } });
  const epochIdHex = hexEncode(parts.header.kid);
  const epoch = keys.epochs.get(epochIdHex) ?? keys.expiredEpochs?.get(epochIdHex);
  if (epoch === undefined) throw new ArtifactError('unknown_key', `No verified epoch ${epochIdHex}.`, { details: { epochId: epochIdHex } });
  if (options.revokedEpochIds?.has(epochIdHex)) throw new ArtifactError('revoked_epoch', `Epoch ${epochIdHex} is revoked.`, { details: { epochId: epochIdHex } });
  if (epoch.productScope !== undefined) {
    throw new ArtifactError('wrong_domain', `Epoch ${epochIdHex} may only sign for ${epoch.productScope}.`, { details: { epochId: epochIdHex, productScope: epoch.productScope } });
  }
  const payload = verifySignatureAndPayload(parts, 'audit-anchor', undefined, epoch.publicKey, verify);
  checkEpochWindow(epoch, payload.anchoredAt);
  if (payload.anchoredAt > options.now + licenseClockSkewSeconds) {
    throw new ArtifactError('invalid_payload', 'The anchor is dated after the verification time.', { details: { anchoredAt: payload.anchoredAt, now: options.now } });
  }
  const anchor = { vendorId: hexEncode(payload.vendorId), seq: payload.seq, head: hexEncode(payload.head), anchoredAt: payload.anchoredAt };
  return { anchor, epoch };
}

/**
 * What a third party runs to prove a vendor's audit log was not rewritten after an anchor: it checks
 * that the anchor was signed by an epoch whose certificate verifies under a pinned root, then that the
 * events' recomputed hash chain, from seq 1 (linked to the genesis hash), reaches exactly the anchored
 * head at the anchored seq. Any change to an anchored event (even one re-hashed consistently in the
 * database, so that `AuditLog.verify` passes) makes it fail.
 *
 * @param envelope - One `audit-anchor` envelope (from `GET /v1/audit/anchors/:vendorId`, split with
 *   `splitCborSequence`).
 * @param options - Trust (keyset and pins, or verified epoch keys), the events, the time.
 * @returns The outcome; never throws for a bad anchor or events that do not match it.
 * @throws TypeError for malformed pins, a non-integer `now`, or events whose summary is not JSON (caller
 *   mistakes).
 * @example
 * ```ts
 * import { splitCborSequence, verifyAuditAnchor } from '@tollgate/core/license';
 * const [latest] = splitCborSequence(anchorsBody, 1000);
 * const result = verifyAuditAnchor(latest, { trust: { keyset: keysBody, pinnedRoots: [root] }, events, now: Math.floor(Date.now() / 1000), vendorId });
 * if (!result.verified) throw new Error(`audit log not proven: ${result.reason}`);
 * ```
 */
export function verifyAuditAnchor(envelope: Uint8Array, options: VerifyAuditAnchorOptions): AuditAnchorVerification {
  if (!Number.isSafeInteger(options.now)) throw new TypeError('now must be unix seconds (an integer)');
  let verified: { anchor: AnchoredAuditHead; epoch: EpochKey };
  try {
    verified = verifyAnchorEnvelope(envelope, options);
  } catch (error) {
    if (isArtifactError(error)) return { verified: false, reason: 'untrusted_anchor', error };
    throw error;
  }
  const { anchor, epoch } = verified;
  if (options.vendorId !== undefined && options.vendorId !== anchor.vendorId) return { verified: false, reason: 'wrong_vendor', anchor };
  const anchored = options.events.filter((event) => event.seq <= anchor.seq).sort((a, b) => a.seq - b.seq);
  const chain = verifyAuditChain(
    anchored.map((event) => auditChainLink(event)),
    { fromSeq: 1, prevHash: auditGenesisHash, head: { seq: anchor.seq, hash: anchor.head }, limit: anchor.seq },
  );
  // Every event hashes its vendor id, so another vendor's events cannot reproduce this head.
  if (chain.first_broken !== null) return { verified: false, reason: 'chain_mismatch', anchor, firstBroken: chain.first_broken };
  return { verified: true, anchor, epoch };
}
