import type { Signer } from '../crypto';
import { licenseClockSkewSeconds } from './protocol';
import { TrustChainError } from './trust-chain-error';
import type { EpochKey } from './verify-artifact';

/** An epoch the server can sign with: its key facts and a signer whose `kid` is the epoch id hex. */
export interface SigningEpoch {
  readonly epoch: EpochKey;
  readonly signer: Signer;
}

/**
 * Picks the epoch that signs an artifact now. Candidates are valid at `now`. A product-bound artifact
 * prefers an epoch scoped to its product and falls back to a global one; a global artifact (revocation
 * batches) only takes global epochs. Within a scope, epochs whose `notBefore` lies at least
 * `licenseClockSkewSeconds` in the past ("settled") win over fresher ones, so a successor takes over
 * 300 s after its window opens and clients whose clocks run behind never see an epoch before its time;
 * a fresh epoch still signs when no settled one is valid. Among equals the newest `notBefore` wins
 * (ties: the smaller epoch id, so every instance picks the same one).
 *
 * @param epochs - The server's active epochs.
 * @param target - `productId` of the artifact (absent for global kinds) and the time.
 * @returns The chosen epoch.
 * @throws {@link TrustChainError} `no_signing_epoch`.
 *
 * @example
 * ```ts
 * import { pickSigningEpoch } from '@tollgate/core/license';
 * const { signer } = pickSigningEpoch(epochs, { productId: 'acme-editor', now });
 * ```
 */
export function pickSigningEpoch(epochs: readonly SigningEpoch[], target: { productId?: string; now: number }): SigningEpoch {
  const valid = epochs.filter(({ epoch }) => epoch.notBefore <= target.now && target.now < epoch.notAfter);
  const settledSince = target.now - licenseClockSkewSeconds;
  const byPreference = (candidates: SigningEpoch[]) =>
    [...candidates].sort(
      (a, b) =>
        Number(b.epoch.notBefore <= settledSince) - Number(a.epoch.notBefore <= settledSince) ||
        b.epoch.notBefore - a.epoch.notBefore ||
        (a.epoch.epochIdHex < b.epoch.epochIdHex ? -1 : 1),
    )[0];
  const scoped = target.productId === undefined ? undefined : byPreference(valid.filter(({ epoch }) => epoch.productScope === target.productId));
  const chosen = scoped ?? byPreference(valid.filter(({ epoch }) => epoch.productScope === undefined));
  if (chosen === undefined) {
    throw new TrustChainError('no_signing_epoch', `No active epoch may sign ${target.productId === undefined ? 'global artifacts' : `for ${target.productId}`} now.`, {
      details: { productId: target.productId, now: target.now },
    });
  }
  return chosen;
}
