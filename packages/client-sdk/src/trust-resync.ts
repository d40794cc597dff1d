import { ArtifactError, isArtifactError } from '@tollgate/core/license';
import { LicenseRequestError } from './errors';
import type { KeysetFetcher, KeysetRefetch } from './keyset-fetcher';
import type { RevocationFollower } from './revocation-follower';

/**
 * What asked for a sync out of schedule:
 * - `unknown_kid`: an artifact names an epoch the cached keyset does not list (the server may have
 *   switched to a new epoch, in an emergency rotation). Unauthenticated: anyone can make up a `kid`, so
 *   it is bound by the keyset fetcher's rate limit, and when no keyset was fetched nothing else is;
 * - `newer_revocation_epoch`: a **verified** artifact states a revocation epoch beyond the follower's.
 *   The feed is always synced (as before); the keyset only when the rate limit allows.
 */
export type ResyncTrigger = 'unknown_kid' | 'newer_revocation_epoch';

/** What a forced sync did. */
export type TrustResync =
  /** The keyset was refetched (for `unknown_kid`) and the feed followed up to its announced epoch. */
  | { readonly outcome: 'synced' }
  /** Nothing was fetched: the last forced keyset refetch started less than the interval ago. */
  | { readonly outcome: 'rate_limited'; readonly retryAfterSeconds: number }
  /** The server could not be reached (network, 5xx, a non-protocol answer): `cause` says how. */
  | { readonly outcome: 'unreachable'; readonly cause: unknown };

/**
 * Failures that say "the server was not reached", not "something is wrong with what it sent".
 *
 * @param error - What a fetch threw.
 * @returns Whether to treat it as an unreachable server.
 * @example
 * ```ts
 * if (!isUnreachable(error)) throw error; // a tampered keyset, a rollback: never tolerated
 * ```
 */
export function isUnreachable(error: unknown): boolean {
  return error instanceof LicenseRequestError && (error.code === 'network_error' || error.code === 'unexpected_response' || (error.status ?? 0) >= 500);
}

/**
 * The sync an artifact asks for out of schedule: refetch the keyset past its cache (the fetcher's
 * rate-limited `refetch()`), record the revocation epoch it announces, and follow the feed up to it.
 * Both steps live in the shared fetcher and follower, so every verifier built over them sees the result
 * at once, and concurrent callers share one keyset request and one feed pass. An unreachable server is
 * reported, not thrown; anything else (a keyset that fails the pins, a rolled-back or back-dated feed)
 * is thrown as it is, like the scheduled refresh.
 *
 * @param keysets - The shared keyset fetcher.
 * @param revocations - The shared follower.
 * @param trigger - Why (see {@link ResyncTrigger}).
 * @returns What was done.
 * @example
 * ```ts
 * const resync = await resyncTrust(keysets, revocations, 'unknown_kid');
 * if (resync.outcome === 'synced') verifyAgain();
 * ```
 */
export async function resyncTrust(keysets: Pick<KeysetFetcher, 'refetch'>, revocations: RevocationFollower, trigger: ResyncTrigger): Promise<TrustResync> {
  let refetched: KeysetRefetch | { readonly outcome: 'unreachable'; readonly cause: unknown };
  try {
    refetched = await keysets.refetch();
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    refetched = { outcome: 'unreachable', cause: error };
  }
  // No new keyset, so no new epoch: following the feed would only turn forged kids into fetches.
  if (trigger === 'unknown_kid' && refetched.outcome !== 'fetched') return refetched;
  if (refetched.outcome === 'fetched') revocations.observe(refetched.keyset.revocationEpoch);
  try {
    await revocations.sync();
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    return { outcome: 'unreachable', cause: error };
  }
  return { outcome: 'synced' };
}

/**
 * Whether `error` is an `unknown_key` refusal.
 *
 * @param error - Anything caught.
 * @returns Whether the artifact's `kid` named no epoch of the keyset it was checked with.
 * @example
 * ```ts
 * if (isUnknownKey(error)) await resyncTrust(keysets, revocations, 'unknown_kid');
 * ```
 */
export function isUnknownKey(error: unknown): error is ArtifactError {
  return isArtifactError(error) && error.reason === 'unknown_key';
}

/**
 * Verifies, and when the `kid` is unknown, syncs once (`resync`) and verifies again. A kid still
 * unknown after that is refused `unknown_key`, with `details.resync` saying why it stayed unknown:
 * `synced` (the server's current keyset does not list it either: fail closed), `rate_limited` (with
 * `retryAfterSeconds`; nothing was fetched) or `unreachable` (the failure is the `cause`): the last two
 * could not be checked, and the license client treats them like an unreachable server.
 *
 * @param attempt - One verification against the keyset and feed as they are when it runs.
 * @param resync - The forced sync (see {@link resyncTrust}).
 * @returns What `attempt` returned.
 * @throws What `attempt` throws; `ArtifactError` `unknown_key` as described.
 * @example
 * ```ts
 * const verified = await verifyWithResync(() => check(bytes), () => resyncTrust(keysets, revocations, 'unknown_kid'));
 * ```
 */
export async function verifyWithResync<T>(attempt: () => Promise<T>, resync: () => Promise<TrustResync>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!isUnknownKey(error)) throw error;
  }
  const outcome = await resync();
  try {
    // Even after an unreachable feed the keyset may have come through: the new epoch is then known.
    return await attempt();
  } catch (error) {
    if (!isUnknownKey(error)) throw error;
    throw stillUnknown(error, outcome);
  }
}

function stillUnknown(error: ArtifactError, resync: TrustResync): ArtifactError {
  const why =
    resync.outcome === 'synced'
      ? 'the license server does not list it either'
      : resync.outcome === 'rate_limited'
        ? `the keyset was refetched too recently to ask again; next chance in ${resync.retryAfterSeconds} s`
        : 'the license server could not be reached to refetch the keyset';
  return new ArtifactError('unknown_key', `${error.message} (${why})`, {
    details: { ...error.details, resync: resync.outcome, ...(resync.outcome === 'rate_limited' ? { retryAfterSeconds: resync.retryAfterSeconds } : {}) },
    cause: resync.outcome === 'unreachable' ? resync.cause : error,
  });
}
