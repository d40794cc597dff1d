import { systemClock, unixSeconds, type Clock } from '@tollgate/core';
import type { VerifiedArtifact, VerifiedKeyset } from '@tollgate/core/license';
import { RevocationFeedError } from './errors';
import { verifyInEpochWindow, type AppArtifactKind, type EpochWindowTime } from './epoch-window';
import type { KeysetFetcher } from './keyset-fetcher';
import type { RevocationFollower } from './revocation-follower';
import { verifyWithChecks, type SdkSignatureVerifier } from './signature-checks';
import { isUnreachable, resyncTrust, verifyWithResync } from './trust-resync';
import { verifyArtifact } from './verify';

export type { AppArtifactKind, EpochWindowTime } from './epoch-window';

/** One day in seconds. */
const day = 86_400;

/** Options of {@link createArtifactVerifier}. */
export interface ArtifactVerifierOptions {
  /**
   * The verified keyset source: a `KeysetFetcher` (its `current()` is what artifacts verify against; its
   * rate-limited `refetch()` is asked when an artifact names an epoch the cached keyset does not list).
   */
  keysets: Pick<KeysetFetcher, 'get' | 'current' | 'refetch'>;
  /** The revocation follower; build it with `keys: () => keysets.get()` over the same server. */
  revocations: RevocationFollower;
  /** The product of product-bound kinds, unless a call names another. */
  productId?: string;
  /**
   * How long after the last successful sync of the revocation feed artifacts still verify while the
   * server cannot be reached: 7 days by default (the validity of an offline activation answer). Past it,
   * and before the first sync, `verify` fails `stale`.
   */
  maxRevocationAgeSeconds?: number;
  /** How old the last sync may be before `verify` syncs again first: 300 s by default (the keyset's max-age). */
  refreshAfterSeconds?: number;
  clock?: Clock;
  /**
   * A second clock at which the signing epoch of a fresh artifact may be valid instead: the device's own
   * clock, when `clock` is a guarded clock that never goes back. A mark once set far ahead then does not
   * make every epoch look expired, and a device clock set back does not make a current one look not yet
   * valid. Feed freshness is still judged at `clock` only.
   */
  deviceClock?: Clock;
  /** Signature check: the runtime's fastest by default (Node's native Ed25519, else WebCrypto, else noble). */
  verify?: SdkSignatureVerifier;
}

/** Per-call options of {@link ArtifactVerifier.verify}. */
export interface VerifyCallOptions {
  /** Another product than the verifier's. */
  productId?: string;
  /**
   * The artifact was verified and accepted earlier, and kept (a machine credential or validation ticket
   * read back at a restart): its signing epoch must have been valid at the artifact's own signed time
   * (`issuedAt` / `serverTime`), not now, so an epoch that has expired since still vouches for it. It
   * must still be in the verified keyset (chained to the pins) and not revoked by the feed. Whether the
   * license it carries is still current is judged by the caller from its payload.
   */
  stored?: boolean;
}

/** Verifies artifacts against the pinned keyset **and** the revocation feed, always both. */
export interface ArtifactVerifier {
  /** Fetches the keyset (cached for its max-age), records its revocation epoch, and syncs the feed. */
  refresh(): Promise<void>;
  /**
   * Verifies an artifact with the revoked epochs applied. Syncs first when the last sync is older than
   * `refreshAfterSeconds` (or has never happened); a network failure then is tolerated only while the
   * last sync is younger than `maxRevocationAgeSeconds`. An unknown `kid` or a newer stated revocation
   * epoch syncs again out of schedule (see `createArtifactVerifier`).
   */
  verify<Kind extends AppArtifactKind>(bytes: Uint8Array, kind: Kind, options?: VerifyCallOptions): Promise<VerifiedArtifact<Kind>>;
}

/** The feed head and time a verified artifact states, when its kind carries them. */
function statedFeedHead(payload: unknown): { revocationEpoch: number; serverTime: number } | undefined {
  const fields = payload as { revocationEpoch?: unknown; serverTime?: unknown; issuedAt?: unknown };
  const serverTime = fields.serverTime ?? fields.issuedAt;
  return typeof fields.revocationEpoch === 'number' && typeof serverTime === 'number' ? { revocationEpoch: fields.revocationEpoch, serverTime } : undefined;
}

/**
 * The one verifier an app needs: it ties the keyset (which epochs exist) to the revocation feed (which
 * of them were revoked), so an artifact signed by a revoked epoch is never accepted. Each `verify`:
 *
 * 1. syncs the feed when the last sync is older than `refreshAfterSeconds` (keyset first, so the feed
 *    is followed up to the revocation epoch the keyset announces);
 * 2. refuses with `RevocationFeedError` `stale` when the feed was never synced, or when the last sync
 *    is older than `maxRevocationAgeSeconds` and the server cannot be reached (the cause is attached);
 *    other refresh failures — a tampered keyset or batch, a rollback — are thrown as they are;
 * 3. verifies the artifact against the keyset with the follower's revoked epochs (`ArtifactError`); a
 *    `stored` one with its epoch's window at its own signed time, so an epoch that expired since counts;
 * 4. when its `kid` names no epoch of the cached keyset (the server switched epochs since, as in an
 *    emergency rotation), refetches the keyset past its cache and syncs the feed up to the revocation
 *    epoch it announces, then verifies again: the first genuine artifact of a new epoch is accepted,
 *    and from then on a revoked epoch's artifacts are refused `revoked_epoch`. The refetch is the
 *    fetcher's: shared by every verifier over it, concurrent callers share one, and at most one starts
 *    per 30 s (`refetchIntervalSeconds`), so made-up kids cannot turn into a flood of requests. A kid
 *    still unknown is refused `unknown_key`, `details.resync` saying why (`synced`: the server does not
 *    list it either; `rate_limited`: nothing was fetched; `unreachable`: the failure is the `cause`);
 * 5. when the artifact states a revocation epoch newer than the follower's, syncs the same way (the
 *    feed always, the keyset unless rate-limited) and verifies again, so a ticket never outruns a
 *    revocation of its own signer (a failed sync fails the call, except for a kill order and an
 *    unreachable server: a kill order only ever stops the app); its `(revocationEpoch, serverTime)`
 *    becomes the follower's signed checkpoint against back-dated batches.
 *
 * Persist `revocations.state()` between runs; clock rollback on the device is the client life cycle's
 * concern (a device whose clock is set back looks freshly synced).
 *
 * @param options - Keyset source, follower, product, freshness bounds, clock.
 * @returns The verifier.
 *
 * @example
 * ```ts
 * import { createArtifactVerifier, createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
 * const baseUrl = 'https://license.example.com';
 * const keysets = createKeysetFetcher({ baseUrl, pinnedRoots: [ROOT_CURRENT_HEX, ROOT_NEXT_HEX] });
 * const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get(), state: loadSavedState() });
 * const verifier = createArtifactVerifier({ keysets, revocations, productId: 'acme-editor' });
 * const { payload } = await verifier.verify(ticketBytes, 'validation-ticket');
 * saveState(revocations.state());
 * ```
 */
export function createArtifactVerifier(options: ArtifactVerifierOptions): ArtifactVerifier {
  const clock = options.clock ?? systemClock;
  const maxAge = options.maxRevocationAgeSeconds ?? 7 * day;
  const refreshAfter = options.refreshAfterSeconds ?? 300;
  if (!Number.isSafeInteger(maxAge) || maxAge <= 0 || !Number.isSafeInteger(refreshAfter) || refreshAfter < 0) {
    throw new TypeError('maxRevocationAgeSeconds is a positive and refreshAfterSeconds a non-negative number of seconds');
  }
  const { keysets, revocations } = options;

  const refresh = async (): Promise<void> => {
    const keyset = await keysets.get();
    revocations.observe(keyset.revocationEpoch);
    await revocations.sync();
  };

  /** Syncs when due; returns the keyset to verify with, or throws `stale`. */
  const ensureFresh = async (now: number): Promise<VerifiedKeyset> => {
    const syncedAt = revocations.state().syncedAt;
    let failure: unknown;
    // A last sync in this device's future (the clock was set back) counts as due too.
    if (syncedAt === undefined || now - syncedAt >= refreshAfter || syncedAt > now) {
      try {
        await refresh();
      } catch (error) {
        if (!isUnreachable(error)) throw error;
        failure = error;
      }
    }
    const lastSync = revocations.state().syncedAt;
    const keyset = keysets.current();
    if (lastSync === undefined || keyset === undefined) {
      throw new RevocationFeedError('stale', 'The revocation feed was never synced: nothing verifies until the license server was reached once.', { cause: failure });
    }
    if (now - lastSync > maxAge) {
      throw new RevocationFeedError('stale', `The revocation feed was last synced ${now - lastSync} s ago (more than ${maxAge} s): go online.`, {
        details: { syncedAt: lastSync, now, maxRevocationAgeSeconds: maxAge },
        cause: failure,
      });
    }
    return keyset;
  };

  const deviceClock = options.deviceClock;
  /** Where the epoch window is checked: unchanged (core's "valid now") unless stored or a device clock is given. */
  const windowTime = (stored: boolean, now: number): EpochWindowTime | undefined => {
    if (stored) return 'signed-time';
    return deviceClock === undefined ? undefined : [now, unixSeconds(deviceClock)];
  };
  const check = <Kind extends AppArtifactKind>(bytes: Uint8Array, kind: Kind, keyset: VerifiedKeyset, productId: string | undefined, now: number, at: EpochWindowTime | undefined) =>
    verifyWithChecks(options.verify, (verify) => {
      const common = { revokedEpochIds: revocations.state().revokedEpochIds, ...(productId === undefined ? {} : { productId }), verify };
      return at === undefined ? verifyArtifact(bytes, kind, keyset, { now, ...common }) : verifyInEpochWindow(bytes, kind, keyset, { at, ...common });
    });

  return {
    refresh,
    async verify(bytes, kind, call = {}) {
      const productId = call.productId ?? options.productId;
      const stored = call.stored === true;
      const keyset = await ensureFresh(unixSeconds(clock));
      // Each attempt reads the shared keyset and revoked set as they are then: a sync in between counts.
      const attempt = () => {
        const now = unixSeconds(clock);
        return check(bytes, kind, keysets.current() ?? keyset, productId, now, windowTime(stored, now));
      };
      const verified = await verifyWithResync(attempt, () => resyncTrust(keysets, revocations, 'unknown_kid'));
      const stated = statedFeedHead(verified.payload);
      if (stated === undefined) return verified;
      revocations.observeSigned(stated.revocationEpoch, stated.serverTime);
      if (stated.revocationEpoch <= revocations.state().revocationEpoch) return verified;
      // The artifact knows of revocations this device has not applied: apply them, then look again.
      const resync = await resyncTrust(keysets, revocations, 'newer_revocation_epoch');
      if (resync.outcome === 'unreachable') {
        // A kill order only ever stops the app, so an unreachable feed does not hold it back.
        if (kind === 'kill-order') return verified;
        throw resync.cause;
      }
      return attempt();
    },
  };
}
