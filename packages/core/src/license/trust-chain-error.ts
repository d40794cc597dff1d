import { TollgateError, type TollgateErrorOptions } from '../errors/base';

/**
 * Why a key ceremony or feed operation was refused (the artifacts themselves fail with `ArtifactError`):
 * - `unknown_epoch`: no stored epoch has the certificate's epoch id;
 * - `certificate_mismatch`: the certificate's key, window or scope differ from what the server requested;
 * - `epoch_revoked`: the epoch was revoked and cannot be activated again;
 * - `no_signing_epoch`: no active epoch may sign this artifact now (none valid, or none for its scope);
 * - `invalid_batch`: a revocation batch with no ids, too many ids, or malformed ids;
 * - `invalid_signer`: a revocation batch signer that clients could not verify: its `kid` names no
 *   stored epoch, or one that is not active, is scoped to a product, or is outside its window at the
 *   batch's `issuedAt`, or its signature does not verify with the stored public key (`details.problem`
 *   says which).
 */
export type TrustChainErrorCode = 'unknown_epoch' | 'certificate_mismatch' | 'epoch_revoked' | 'no_signing_epoch' | 'invalid_batch' | 'invalid_signer';

/**
 * A refused trust-chain operation (CLI ceremony, Admin epoch upload, revocation publishing).
 *
 * @example
 * ```ts
 * import { TrustChainError } from '@tollgate/core/license';
 * try { await activateEpochCertificate(sql, options); } catch (e) { if (e instanceof TrustChainError) console.error(e.code); }
 * ```
 */
export class TrustChainError extends TollgateError {
  override readonly name = 'TrustChainError';
  declare readonly code: TrustChainErrorCode;

  /**
   * @param code - What was refused.
   * @param message - A human explanation.
   * @param options - Caller-safe details and cause.
   */
  constructor(code: TrustChainErrorCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
  }
}
