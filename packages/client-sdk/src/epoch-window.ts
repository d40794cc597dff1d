import { checkEpochWindow, licenseClockSkewSeconds, type ArtifactKind, type EpochKey, type EpochKeySource, type SignatureVerifier, type VerifiedArtifact } from '@tollgate/core/license';
import { verifyArtifact } from './verify';

/** The kinds an app verifies (certificates come inside keysets, batches through the follower). */
export type AppArtifactKind = Exclude<ArtifactKind, 'epoch-certificate' | 'revocation-batch'>;

/** When the signing epoch's window is checked: at the artifact's signed time, or at any of these times. */
export type EpochWindowTime = 'signed-time' | readonly number[];

/** The signed time of the kinds a device keeps. */
function signedTimeOf(kind: AppArtifactKind, payload: unknown): number | undefined {
  if (kind === 'machine-credential') return (payload as { issuedAt: number }).issuedAt;
  if (kind === 'validation-ticket') return (payload as { serverTime: number }).serverTime;
  return undefined;
}

/**
 * Verifies an artifact like `verifyArtifact`, except for when its signing epoch must be valid. With
 * `'signed-time'` (a stored artifact that was accepted before), the window is checked at the artifact's
 * signed `issuedAt` / `serverTime`, as for revocation batches, and expired epochs of `keys` are
 * accepted; with a list of times, at any of them. Both allow the 300 s clock skew. Everything
 * else is unchanged: the epoch must be among `keys` (verified against the pins), not revoked, in scope,
 * and the signature must verify.
 *
 * @param bytes - The envelope.
 * @param kind - `machine-credential` or `validation-ticket` for `'signed-time'`; any app kind otherwise.
 * @param keys - Verified epoch keys (a keyset, or certificates checked against the pins).
 * @param options - Product, revoked epochs, signature check, window time.
 * @returns The verified artifact, with the signing epoch's real window.
 * @throws `ArtifactError` as `verifyArtifact` (`expired_epoch` when the window holds at none of the
 *   times); `TypeError` for `'signed-time'` with a kind that states no signed time.
 * @example
 * ```ts
 * import { verifyInEpochWindow } from './epoch-window';
 * const { payload } = verifyInEpochWindow(storedCredential, 'machine-credential', keyset, { productId, revokedEpochIds, at: 'signed-time' });
 * ```
 */
export function verifyInEpochWindow<Kind extends AppArtifactKind>(
  bytes: Uint8Array,
  kind: Kind,
  keys: EpochKeySource,
  options: { productId?: string; revokedEpochIds: ReadonlySet<string> | readonly string[]; verify?: SignatureVerifier; at: EpochWindowTime },
): VerifiedArtifact<Kind> {
  if (options.at === 'signed-time' && kind !== 'machine-credential' && kind !== 'validation-ticket') {
    throw new TypeError(`a ${kind} states no signed time: it cannot be verified at it`);
  }
  // Every verified epoch, expired or not, with its window opened: core then checks everything but the
  // window, which is checked below with the real one.
  const open = new Map<string, EpochKey>();
  for (const source of [keys.expiredEpochs, keys.epochs]) {
    for (const [id, epoch] of source ?? []) open.set(id, { ...epoch, notBefore: 0, notAfter: Number.MAX_SAFE_INTEGER });
  }
  const verified = verifyArtifact(bytes, kind, { epochs: open }, {
    now: 0,
    revokedEpochIds: options.revokedEpochIds,
    ...(options.productId === undefined ? {} : { productId: options.productId }),
    ...(options.verify === undefined ? {} : { verify: options.verify }),
  });
  const id = verified.epoch.epochIdHex;
  const epoch = (keys.epochs.get(id) ?? keys.expiredEpochs?.get(id)) as EpochKey;
  if (options.at === 'signed-time') {
    // With the skew a fresh answer is accepted with: what verified when it arrived verifies at a restart.
    checkEpochWindow(epoch, signedTimeOf(kind, verified.payload) as number, licenseClockSkewSeconds);
  } else {
    const times = options.at;
    const failures = times.map((time) => {
      try {
        checkEpochWindow(epoch, time, licenseClockSkewSeconds);
        return undefined;
      } catch (error) {
        return error;
      }
    });
    if (!failures.includes(undefined)) throw failures[0] ?? new TypeError('at least one time to check the epoch window at');
  }
  return { ...verified, epoch };
}
