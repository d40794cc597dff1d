import { TrustChainError } from '../../trust-chain-error';
import { constantTimeEqual } from '../../../crypto/constant-time';
import { unixSeconds, type Clock } from '../../../time/clock';
import type { EpochKey } from '../../verify-artifact';
import type { Signer } from '../../../crypto/signer';
import { nobleLicenseCrypto, type LicenseCrypto } from '../license-crypto';

/**
 * A `Signer` that checks its own signatures; `signArtifact` uses `verifyOwnSignature` for its
 * verify-after-sign step (core's `SelfCheckingSigner`).
 */
export interface EpochSigner extends Signer {
  /** Node-native Ed25519 verification against the certified public key. Never throws. */
  verifyOwnSignature(message: Uint8Array, signature: Uint8Array): boolean;
}

/** Answers whether an epoch may still sign: `false` once this instance learned it was revoked. */
export type EpochRetirementCheck = (epochIdHex: string) => boolean;

/**
 * The server's signer for one epoch, checked at every signature:
 *
 * - **at signing time** it refuses (`TrustChainError` `epoch_revoked`) once `isRetired` says the epoch
 *   was revoked — the trust state learns that from the change notice of the revoking commit, not from
 *   its next periodic refresh — and (`no_signing_epoch`) once the epoch's window has ended on `clock`,
 *   so a signer picked just before either event never signs after it;
 * - **after signing** `signArtifact` checks the signature with `verifyOwnSignature`: `crypto.verify`
 *   (Node's native Ed25519 on `tollgate-license`) against the **certified** public key, not the one
 *   derived from the opened seed.
 *
 * The seed must open to the certified key: otherwise this throws and the epoch does not sign.
 *
 * @param epoch - The certified epoch (its public key and window come from its certificate).
 * @param privateKey - The opened 32-byte seed; the caller zeroes it afterwards.
 * @param isRetired - The trust state's revoked-epoch check.
 * @param clock - The server clock.
 * @param crypto - The Ed25519 implementation (default: {@link nobleLicenseCrypto}; the server passes `nodeLicenseCrypto`).
 * @returns A signer whose `kid` is the epoch id hex.
 * @throws TypeError when the seed is not the certified key's.
 *
 * @example
 * ```ts
 * import { createEpochSigner } from '@tollgate/core/license';
 * const signer = createEpochSigner(epoch, privateKey, (id) => retired.has(id), systemClock);
 * ```
 */
export function createEpochSigner(epoch: EpochKey, privateKey: Uint8Array, isRetired: EpochRetirementCheck, clock: Clock, crypto: LicenseCrypto = nobleLicenseCrypto): EpochSigner {
  const inner = crypto.createSigner({ privateKey, kid: epoch.epochIdHex });
  if (!constantTimeEqual(inner.publicKey, epoch.publicKey)) throw new TypeError(`the opened key of epoch ${epoch.epochIdHex} is not the certified one`);
  return Object.freeze({
    kid: epoch.epochIdHex,
    alg: 'EdDSA' as const,
    publicKey: epoch.publicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      if (isRetired(epoch.epochIdHex)) {
        throw new TrustChainError('epoch_revoked', `Epoch ${epoch.epochIdHex} was revoked: it signs nothing more.`, { details: { epochId: epoch.epochIdHex } });
      }
      const now = unixSeconds(clock);
      if (now < epoch.notBefore || now >= epoch.notAfter) {
        throw new TrustChainError('no_signing_epoch', `Epoch ${epoch.epochIdHex} is outside its window at ${now}.`, { details: { epochId: epoch.epochIdHex, now } });
      }
      return inner.sign(message);
    },
    verifyOwnSignature: (message: Uint8Array, signature: Uint8Array) => crypto.verify(epoch.publicKey, message, signature),
  });
}
