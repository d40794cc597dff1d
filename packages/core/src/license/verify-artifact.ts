import { hexEncode, verifyEd25519 } from '../crypto';
import { ArtifactError } from './artifact-error';
import { decodeSign1, sigStructure, type ProtectedHeader, type Sign1Parts } from './cose-sign1';
import { licenseExternalAad } from './domain';
import { artifactKinds, isArtifactKind, kindOfContentType, type ArtifactKind, type ArtifactPayloads } from './kinds';
import { artifactDecodeLimits, licenseClockSkewSeconds, licenseWireLengths, productIdPattern } from './protocol';
import { decodeStrict, parseRecord } from './record-codec';

/** An epoch public key with its validity window, as a verified certificate states it. */
export interface EpochKey {
  /** The 8-byte epoch id (the artifacts' `kid`). */
  readonly epochId: Uint8Array;
  /** `epochId` as 16 lower-case hex digits. */
  readonly epochIdHex: string;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** First second of validity (unix seconds). */
  readonly notBefore: number;
  /** First second after validity (exclusive). */
  readonly notAfter: number;
  /** The only product this epoch may sign for; absent = every product and the global kinds. */
  readonly productScope?: string;
}

/** Where {@link verifyArtifact} looks up signing keys: a `VerifiedKeyset` satisfies it. */
export interface EpochKeySource {
  /** Epoch keys by `epochIdHex`. Only keys from certificates verified against pinned roots belong here. */
  readonly epochs: ReadonlyMap<string, EpochKey>;
  /**
   * Verified epochs that have expired. They verify revocation batches only (checked at the batch's
   * `issuedAt`), so a client that was offline for months can still catch up on the feed; any other
   * artifact they signed is refused `expired_epoch`.
   */
  readonly expiredEpochs?: ReadonlyMap<string, EpochKey>;
}

/**
 * Checks one Ed25519 signature; never throws. `verifyEd25519` (noble, everywhere) by default;
 * `verifyEd25519Node` from `@tollgate/core/node` on servers.
 */
export type SignatureVerifier = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/** Options of {@link verifyArtifact}. */
export interface VerifyArtifactOptions {
  /** The verified epoch keys (a `VerifiedKeyset`). */
  keys: EpochKeySource;
  /** The product the caller expects; required for product-bound kinds, ignored for global kinds. */
  productId?: string;
  /**
   * Verification time in unix seconds (the verifier's clock): the signing epoch must be valid at this
   * time, give or take `licenseClockSkewSeconds`.
   */
  now: number;
  /** Epoch ids (hex) revoked by the revocation feed; artifacts they signed are refused. */
  revokedEpochIds?: ReadonlySet<string>;
  /** Signature check; `verifyEd25519` by default. */
  verify?: SignatureVerifier;
}

/** What {@link verifyArtifact} returns: the typed payload and what vouched for it. */
export interface VerifiedArtifact<Kind extends ArtifactKind> {
  readonly kind: Kind;
  readonly payload: ArtifactPayloads[Kind];
  /** The product from the protected header (product-bound kinds). */
  readonly productId: string | undefined;
  /** The epoch key that signed it. */
  readonly epoch: EpochKey;
}

/** An envelope read without any verification (for routing, logging and diagnostics). */
export interface InspectedArtifact {
  readonly kind: ArtifactKind;
  readonly header: ProtectedHeader;
  /** The `kid` as hex, when present. */
  readonly kidHex: string | undefined;
  readonly parts: Sign1Parts;
}

/**
 * Reads an envelope's structure and kind **without verifying anything**: never trust what it returns.
 *
 * @param bytes - An artifact envelope.
 * @returns Kind, header, hex kid and raw parts.
 * @throws {@link ArtifactError} `bad_encoding` or `unknown_kind`.
 *
 * @example
 * ```ts
 * import { inspectArtifact } from '@tollgate/core/license';
 * console.log(inspectArtifact(bytes).kind); // e.g. 'kill-order' (unverified)
 * ```
 */
export function inspectArtifact(bytes: Uint8Array): InspectedArtifact {
  const parts = decodeSign1(bytes);
  const kind = kindOfContentType(parts.header.contentType);
  if (kind === undefined || !isArtifactKind(kind)) {
    throw new ArtifactError('unknown_kind', 'The protected header names no artifact kind.', { details: { contentType: parts.header.contentType.slice(0, 100) } });
  }
  return { kind, header: parts.header, kidHex: parts.header.kid === undefined ? undefined : hexEncode(parts.header.kid), parts };
}

/**
 * Refuses an epoch outside its window at `now`, widened by `toleranceSeconds` on both sides: the epoch
 * is accepted while `notBefore − tolerance ≤ now < notAfter + tolerance`.
 *
 * @param epoch - The epoch key.
 * @param now - Unix seconds.
 * @param toleranceSeconds - Clock skew allowed (0 by default: the exact window; `verifyArtifact` passes
 *   `licenseClockSkewSeconds` for the verifier's clock).
 * @throws {@link ArtifactError} `epoch_not_yet_valid` or `expired_epoch`.
 *
 * @example
 * ```ts
 * import { checkEpochWindow, licenseClockSkewSeconds } from '@tollgate/core/license';
 * checkEpochWindow(epoch, Math.floor(Date.now() / 1000), licenseClockSkewSeconds); // throws expired_epoch after notAfter + 300
 * ```
 */
export function checkEpochWindow(epoch: Pick<EpochKey, 'epochIdHex' | 'notBefore' | 'notAfter'>, now: number, toleranceSeconds = 0): void {
  if (now + toleranceSeconds < epoch.notBefore) {
    throw new ArtifactError('epoch_not_yet_valid', `Epoch ${epoch.epochIdHex} is not valid before ${epoch.notBefore}.`, {
      details: { epochId: epoch.epochIdHex, notBefore: epoch.notBefore, now },
    });
  }
  if (now - toleranceSeconds >= epoch.notAfter) throw expiredEpochError(epoch, now);
}

/** The refusal of an artifact whose signing epoch's window is over. */
function expiredEpochError(epoch: Pick<EpochKey, 'epochIdHex' | 'notAfter'>, now: number): ArtifactError {
  return new ArtifactError('expired_epoch', `Epoch ${epoch.epochIdHex} expired at ${epoch.notAfter}.`, {
    details: { epochId: epoch.epochIdHex, notAfter: epoch.notAfter, now },
  });
}

/**
 * Checks the header's kind and product against what the caller expects.
 *
 * @internal Shared with the epoch certificate verifier.
 */
export function expectKindAndProduct(parts: Sign1Parts, kind: ArtifactKind, productId: string | undefined): void {
  const named = kindOfContentType(parts.header.contentType);
  if (named === undefined) {
    throw new ArtifactError('unknown_kind', 'The protected header names no artifact kind.', { details: { contentType: parts.header.contentType.slice(0, 100) } });
  }
  if (named !== kind) {
    throw new ArtifactError('wrong_kind', `Expected a ${kind}, got a ${named}.`, { details: { expected: kind, actual: named } });
  }
  if (artifactKinds[kind].scope === 'global') {
    if (parts.header.productId !== undefined) throw new ArtifactError('bad_encoding', `A ${kind} carries no product label.`, { details: { part: 'protected', field: 'product' } });
    return;
  }
  if (parts.header.productId === undefined) throw new ArtifactError('bad_encoding', `A ${kind} names its product.`, { details: { part: 'protected', field: 'product' } });
  if (parts.header.productId !== productId) {
    throw new ArtifactError('wrong_domain', `This ${kind} belongs to another product.`, { details: { expected: productId, actual: parts.header.productId } });
  }
}

/**
 * Verifies the signature over the Sig_structure and then decodes the payload against the kind's layout.
 *
 * @internal Shared with the epoch certificate verifier.
 */
export function verifySignatureAndPayload<Kind extends ArtifactKind>(
  parts: Sign1Parts,
  kind: Kind,
  productId: string | undefined,
  publicKey: Uint8Array,
  verify: SignatureVerifier,
): ArtifactPayloads[Kind] {
  if (parts.signature.length !== licenseWireLengths.signature) {
    throw new ArtifactError('bad_signature', 'An Ed25519 signature is 64 bytes.', { details: { length: parts.signature.length } });
  }
  const message = sigStructure(parts.protectedBytes, licenseExternalAad(kind, productId), parts.payload);
  if (!verify(publicKey, message, parts.signature)) throw new ArtifactError('bad_signature', `The ${kind} signature does not verify.`, { details: { kind } });
  // Parsed only after the signature verified: unauthenticated payloads never reach the schema.
  return parseRecord(artifactKinds[kind].spec, decodeStrict(parts.payload, 'payload', artifactDecodeLimits));
}

/**
 * Verifies a signed artifact and returns its typed payload. Checks, in this order, each failure naming
 * its {@link ArtifactErrorReason}: strict envelope and header encoding (`bad_encoding`); the header's
 * content type (`unknown_kind`, `wrong_kind`); the product label against `productId` (`wrong_domain`);
 * the `kid` among the verified epochs (`unknown_key`), not revoked (`revoked_epoch`), its product scope
 * (`wrong_domain`) and window at `now` give or take `licenseClockSkewSeconds` (`epoch_not_yet_valid`,
 * `expired_epoch`); the Ed25519 signature over `["Signature1", protected, domain(kind, product),
 * payload]` (`bad_signature`); and finally the payload's canonical encoding and layout (`bad_encoding`,
 * `invalid_payload`).
 *
 * Revocation batches are the one exception to "valid at `now`": published batches never change, so the
 * window is checked exactly at the batch's signed `issuedAt` (server time, which may not lie more than
 * `licenseClockSkewSeconds` after `now`), and expired epochs from `keys.expiredEpochs` are accepted for
 * them. Any other kind signed by an epoch of `keys.expiredEpochs` is refused `expired_epoch` (it is a
 * known epoch, so not `unknown_key`), whatever `now` says.
 *
 * Epoch certificates are verified against root pins instead: see `verifyEpochCertificate`.
 *
 * @param bytes - The envelope.
 * @param kind - The kind the caller expects.
 * @param options - Keys, product, time, revoked epochs, verifier.
 * @returns The typed payload, the product and the signing epoch.
 * @throws {@link ArtifactError} as listed; `TypeError` when `productId` is missing for a product-bound kind.
 *
 * @example
 * ```ts
 * import { verifyArtifact } from '@tollgate/core/license';
 * const { payload } = verifyArtifact(bytes, 'validation-ticket', { keys: keyset, productId: 'acme-editor', now });
 * console.log(payload.refreshAfter);
 * ```
 */
export function verifyArtifact<Kind extends Exclude<ArtifactKind, 'epoch-certificate'>>(
  bytes: Uint8Array,
  kind: Kind,
  options: VerifyArtifactOptions,
): VerifiedArtifact<Kind> {
  if (!isArtifactKind(kind) || (kind as ArtifactKind) === 'epoch-certificate') throw new TypeError(`verifyArtifact takes an epoch-signed kind, not ${String(kind)}`);
  if (!Number.isSafeInteger(options.now)) throw new TypeError('now must be unix seconds (an integer)');
  const scope = artifactKinds[kind].scope;
  if (scope === 'product' && (typeof options.productId !== 'string' || !productIdPattern.test(options.productId))) {
    throw new TypeError(`${kind} is product-bound: pass the expected productId`);
  }
  const productId = scope === 'product' ? options.productId : undefined;
  const parts = decodeSign1(bytes);
  expectKindAndProduct(parts, kind, productId);
  if (parts.header.kid === undefined) throw new ArtifactError('bad_encoding', 'An artifact names its signing epoch (kid).', { details: { part: 'protected', field: 'kid' } });
  const epochIdHex = hexEncode(parts.header.kid);
  const isBatch = kind === 'revocation-batch';
  const current = options.keys.epochs.get(epochIdHex);
  // An expired epoch is still an epoch of the verified keyset: what it signed is refused `expired_epoch`
  // (protocol §4), never `unknown_key`, which tells a client to look for a newer keyset.
  const expired = current === undefined ? options.keys.expiredEpochs?.get(epochIdHex) : undefined;
  const epoch = current ?? expired;
  if (epoch === undefined) throw new ArtifactError('unknown_key', `No verified epoch ${epochIdHex}.`, { details: { epochId: epochIdHex } });
  if (options.revokedEpochIds?.has(epochIdHex)) throw new ArtifactError('revoked_epoch', `Epoch ${epochIdHex} is revoked.`, { details: { epochId: epochIdHex } });
  if (epoch.productScope !== undefined && epoch.productScope !== productId) {
    throw new ArtifactError('wrong_domain', `Epoch ${epochIdHex} may only sign for ${epoch.productScope}.`, {
      details: { epochId: epochIdHex, productScope: epoch.productScope, productId },
    });
  }
  // Listed as expired when the keyset was verified: refused whatever `now` says, so a clock set back
  // does not revive it.
  if (!isBatch && expired !== undefined) throw expiredEpochError(expired, options.now);
  if (!isBatch) checkEpochWindow(epoch, options.now, licenseClockSkewSeconds);
  const payload = verifySignatureAndPayload(parts, kind, productId, epoch.publicKey, options.verify ?? verifyEd25519);
  if (isBatch) {
    const issuedAt = (payload as ArtifactPayloads['revocation-batch']).issuedAt;
    checkEpochWindow(epoch, issuedAt);
    if (issuedAt > options.now + licenseClockSkewSeconds) {
      throw new ArtifactError('invalid_payload', 'The revocation batch is dated after the verification time.', { details: { issuedAt, now: options.now } });
    }
  }
  return { kind, payload, productId, epoch };
}
