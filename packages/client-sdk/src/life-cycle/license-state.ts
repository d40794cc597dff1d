import { isArtifactError, type MachineCredential, type ValidationTicket } from '@tollgate/core/license';
import { LicenseRequestError, ResponseMismatchError, RevocationFeedError } from '../errors';

/**
 * Where a device's license stands:
 * - `unlicensed`: nothing stored (or it was deactivated); call `activate`.
 * - `activating`: an activation is under way.
 * - `active`: a valid ticket (or fresh credential) covers now.
 * - `needs_revalidation`: the app may run while the client validates now (the clock was set back, or the
 *   stored ticket is due).
 * - `grace`: the server cannot be reached (network error, 5xx, 429) and the last ticket's grace window
 *   still covers now.
 * - `locked`: the grace window is over, the license expired, or the server or a signature refused this
 *   device (fail closed at once); validation keeps trying where trying can help.
 * - `revoked`: a kill order arrived; the stored credential and keys are wiped.
 */
export type LicenseState = 'unlicensed' | 'activating' | 'active' | 'needs_revalidation' | 'grace' | 'locked' | 'revoked';

/** The states in which the app may use what the license entitles it to. */
export const usableStates: ReadonlySet<LicenseState> = new Set<LicenseState>(['active', 'needs_revalidation', 'grace']);

/** What a failed call means for the device: try again later, or stop trusting this device's license. */
export type FailureKind =
  /** The server could not be reached or could not answer (network, 5xx, 429): grace applies; retry. */
  | { readonly kind: 'unreachable'; readonly retryAfterSeconds: number | undefined }
  /** The server refused the device (a 4xx client-protocol error), or an answer failed verification. */
  | { readonly kind: 'refused' };

/**
 * Sorts a failed client-protocol call: only "could not reach or answer" keeps the grace window; a
 * refusal (401/403/409…), an answer whose signature, nonce or seat does not check out, or a revocation
 * feed that cannot be trusted fails closed at once. An answer signed by an epoch this device could not
 * look up (`unknown_key` whose keyset refetch was rate-limited or could not reach the server) is never
 * used, but is no evidence against the license either: it counts as unreachable and is asked again
 * (after the rate limit's `retryAfterSeconds`). An epoch the server's current keyset does not list
 * either fails closed.
 *
 * @param error - What the call threw.
 * @returns How the client reacts.
 * @example
 * ```ts
 * if (classifyFailure(error).kind === 'unreachable') enterGrace();
 * ```
 */
export function classifyFailure(error: unknown): FailureKind {
  if (error instanceof LicenseRequestError) {
    const status = error.status ?? 0;
    if (error.code === 'network_error' || error.code === 'unexpected_response' || status >= 500 || status === 429) return { kind: 'unreachable', retryAfterSeconds: error.retryAfterSeconds };
    return { kind: 'refused' };
  }
  if (error instanceof RevocationFeedError && error.code === 'stale' && error.cause instanceof LicenseRequestError) return classifyFailure(error.cause);
  if (isArtifactError(error) && error.reason === 'unknown_key') {
    const { resync, retryAfterSeconds } = error.details;
    if (resync === 'rate_limited') return { kind: 'unreachable', retryAfterSeconds: typeof retryAfterSeconds === 'number' ? retryAfterSeconds : undefined };
    if (resync === 'unreachable' && error.cause instanceof LicenseRequestError) return classifyFailure(error.cause);
  }
  if (error instanceof ResponseMismatchError || error instanceof RevocationFeedError || isArtifactError(error)) return { kind: 'refused' };
  // Anything else (a bug, a platform failure) is not evidence against the license: retry.
  return { kind: 'unreachable', retryAfterSeconds: undefined };
}

/** What the stored artifacts allow at a time, before asking the server. */
export interface Standing {
  readonly state: 'active' | 'grace' | 'locked';
  /** Why it is locked: `expired` (the license's expiry passed) or `grace_over`. */
  readonly reason?: 'expired' | 'grace_over';
  /** When to validate next (unix seconds, server time as the artifact states it). */
  readonly refreshAt: number;
  /** The end of the grace window (unix seconds). */
  readonly graceEndsAt: number;
}

/**
 * Judges the stored credential and last ticket at `now`, offline: the newer of the two (the ticket, once
 * there is one) says when to validate (`refreshAfter`) and how long the device may go on without the
 * server after that (`graceSeconds`); an expiry in either ends everything.
 *
 * @param credential - The verified machine credential.
 * @param ticket - The last verified ticket, if any.
 * @param now - Unix seconds.
 * @returns The standing.
 * @example
 * ```ts
 * const { state, refreshAt } = standingAt(credential, ticket, unixSeconds(clock));
 * ```
 */
export function standingAt(credential: MachineCredential, ticket: ValidationTicket | undefined, now: number): Standing {
  const basis = ticket ?? { refreshAfter: credential.refreshAfter, graceSeconds: credential.graceSeconds, expiresAt: credential.expiresAt };
  const refreshAt = basis.refreshAfter;
  const graceEndsAt = basis.refreshAfter + basis.graceSeconds;
  const expiresAt = basis.expiresAt ?? credential.expiresAt;
  if (expiresAt !== undefined && now >= expiresAt) return { state: 'locked', reason: 'expired', refreshAt, graceEndsAt };
  if (now >= graceEndsAt) return { state: 'locked', reason: 'grace_over', refreshAt, graceEndsAt };
  if (now < refreshAt) return { state: 'active', refreshAt, graceEndsAt };
  return { state: 'grace', refreshAt, graceEndsAt };
}

/**
 * Delay before retrying an unreachable server: exponential from 5 s (×2 per failure, at most 15 min),
 * with "equal jitter" (half fixed, half random) so a fleet that lost the server at once does not come
 * back at once; never sooner than the server's `Retry-After`, which counts for at most an hour (a
 * `Retry-After` of years, from a proxy or a fake server, must not park the client past its grace end).
 *
 * @param failures - Consecutive failures so far (1 for the first).
 * @param random - A uniform number in [0, 1).
 * @param retryAfterSeconds - The server's `Retry-After`, if it sent one.
 * @returns Milliseconds to wait.
 * @example
 * ```ts
 * retryDelayMs(3, Math.random(), undefined); // 10 000–20 000
 * ```
 */
export function retryDelayMs(failures: number, random: number, retryAfterSeconds: number | undefined): number {
  const ceiling = Math.min(5_000 * 2 ** Math.max(0, failures - 1), 15 * 60_000);
  const jittered = ceiling / 2 + (ceiling / 2) * random;
  return Math.max(jittered, Math.min(retryAfterSeconds ?? 0, maxRetryAfterSeconds) * 1000);
}

/** The longest `Retry-After` the client honours (seconds). */
export const maxRetryAfterSeconds = 3_600;

/**
 * Delay before validating again while tickets keep saying `refresh_now` (a release marked
 * `force_upgrade`): a minute after the first, doubling while it repeats, never later than the ticket's
 * own refresh, and never sooner than a minute (a fleet on that build must not loop on the server).
 *
 * @param streak - Consecutive tickets with `refresh_now` (1 for the first).
 * @param regularMs - The delay the ticket's `refresh_after` gives.
 * @returns Milliseconds to wait.
 * @example
 * ```ts
 * upgradeRefreshDelayMs(3, 3_600_000); // 240 000
 * ```
 */
export function upgradeRefreshDelayMs(streak: number, regularMs: number): number {
  return Math.max(60_000, Math.min(60_000 * 2 ** Math.max(0, Math.min(streak, 30) - 1), regularMs));
}

/**
 * Delay until the next scheduled validation: until `refreshAt` measured from the server's time in the
 * artifact (so a device clock that is off does not shift it), less up to 10 % of the wait at random to
 * spread a fleet, and at least 1 s.
 *
 * @param refreshAt - The artifact's `refreshAfter` (server unix seconds).
 * @param serverTime - The artifact's own server time (unix seconds).
 * @param random - A uniform number in [0, 1).
 * @returns Milliseconds to wait.
 * @example
 * ```ts
 * refreshDelayMs(ticket.refreshAfter, ticket.serverTime, Math.random());
 * ```
 */
export function refreshDelayMs(refreshAt: number, serverTime: number, random: number): number {
  const waitMs = Math.max(0, refreshAt - serverTime) * 1000;
  return Math.max(1_000, waitMs - waitMs * 0.1 * random);
}
