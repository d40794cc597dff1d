import { TollgateError, type TollgateErrorOptions } from '../errors/base';

/**
 * Why a license artifact, request or message was refused. Stable: callers, tests and the published
 * test vectors match on it.
 *
 * - `bad_encoding`: not the strict canonical CBOR layout (envelope, protected header, payload, request
 *   or message): non-canonical bytes, a tag, a wrong item type, an unknown header label, trailing bytes;
 * - `unknown_kind`: the protected header names a content type that is no artifact kind;
 * - `wrong_kind`: a valid artifact of another kind than the one expected (a ticket offered as a kill order);
 * - `wrong_domain`: the artifact belongs to another product, or the signing epoch is scoped to another
 *   product than the artifact, or a product-scoped epoch signed a global artifact;
 * - `unknown_key`: the `kid` names no epoch of the verified keyset;
 * - `epoch_not_yet_valid` / `expired_epoch`: the signing epoch (or a certificate) is outside its
 *   `[not_before, not_after)` window at the verification time;
 * - `revoked_epoch`: the signing epoch was revoked by a revocation batch;
 * - `unpinned_root`: an epoch certificate was not issued by one of the pinned root keys;
 * - `bad_signature`: the signature (or a device proof) is not 64 bytes or does not verify;
 * - `invalid_payload`: the signed payload or the message decodes but breaks its schema (a missing field,
 *   a wrong length, an unknown key, a value out of range).
 */
export type ArtifactErrorReason =
  | 'bad_encoding'
  | 'unknown_kind'
  | 'wrong_kind'
  | 'wrong_domain'
  | 'unknown_key'
  | 'epoch_not_yet_valid'
  | 'expired_epoch'
  | 'revoked_epoch'
  | 'unpinned_root'
  | 'bad_signature'
  | 'invalid_payload';

/**
 * Every {@link ArtifactErrorReason}, for exhaustive tests and for vector files.
 *
 * @example
 * ```ts
 * import { artifactErrorReasons } from '@tollgate/core/license';
 * artifactErrorReasons.includes('bad_signature'); // true
 * ```
 */
export const artifactErrorReasons: readonly ArtifactErrorReason[] = Object.freeze([
  'bad_encoding',
  'unknown_kind',
  'wrong_kind',
  'wrong_domain',
  'unknown_key',
  'epoch_not_yet_valid',
  'expired_epoch',
  'revoked_epoch',
  'unpinned_root',
  'bad_signature',
  'invalid_payload',
]);

/**
 * The only error the license wire codecs throw for bad input: decoding, verifying and proof checking
 * all end either in a typed result or in this error. `code` and `reason` hold the same
 * {@link ArtifactErrorReason}; `details` names the part that failed (`field`, `kind`, `epochId`, …) and
 * never contains key material. The license server renders it as client error 1000.
 *
 * @example
 * ```ts
 * import { verifyArtifact, ArtifactError } from '@tollgate/core/license';
 * try {
 *   verifyArtifact(bytes, 'validation-ticket', { keys, productId: 'acme-editor', now });
 * } catch (error) {
 *   if (error instanceof ArtifactError && error.reason === 'expired_epoch') await refreshKeyset();
 * }
 * ```
 */
export class ArtifactError extends TollgateError {
  override readonly name = 'ArtifactError';
  declare readonly code: ArtifactErrorReason;
  /** The stable refusal reason (same value as `code`). */
  readonly reason: ArtifactErrorReason;

  /**
   * @param reason - What failed.
   * @param message - A human explanation.
   * @param options - Caller-safe `details` and the lower-level `cause` (a `CborDecodeError`, …).
   */
  constructor(reason: ArtifactErrorReason, message: string, options: TollgateErrorOptions = {}) {
    super(reason, message, { ...options, details: { reason, ...options.details } });
    this.reason = reason;
  }
}

/**
 * True when `value` is an {@link ArtifactError} (also across duplicated module copies).
 *
 * @param value - Anything caught.
 * @returns Whether it is an artifact refusal.
 *
 * @example
 * ```ts
 * import { isArtifactError } from '@tollgate/core/license';
 * if (isArtifactError(error)) console.log(error.reason);
 * ```
 */
export function isArtifactError(value: unknown): value is ArtifactError {
  return (
    value instanceof ArtifactError ||
    (value instanceof Error && value.name === 'ArtifactError' && artifactErrorReasons.includes((value as { reason?: unknown }).reason as ArtifactErrorReason))
  );
}
