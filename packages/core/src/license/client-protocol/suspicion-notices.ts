import type { SuspicionSignal } from '../suspicion/suspicion-signals';
import type { ClientProtocolDeps } from './client-protocol-deps';

/** Refusals that are also suspicion signals, tagged where they are thrown (never part of the wire answer). */
const tagged = new WeakMap<object, SuspicionSignal>();

/**
 * Tags a refusal as suspicious (a forged proof, a replayed nonce, a license out of seats): the route
 * layer reports it after the refusal was decided, so the answer stays as generic as the spec wants and
 * the request path never waits for the suspicion ledger.
 *
 * @param error - The refusal to throw.
 * @param signal - What it says about whom.
 * @returns `error`, tagged.
 * @example
 * ```ts
 * import { refusedCredential, suspiciousRefusal } from '@tollgate/core/license';
 * throw suspiciousRefusal(refusedCredential(401), { productId, kind: 'nonce_replay' });
 * ```
 */
export function suspiciousRefusal<E extends Error>(error: E, signal: SuspicionSignal): E {
  tagged.set(error, signal);
  return error;
}

/**
 * The suspicion signal a refusal was tagged with by {@link suspiciousRefusal}, if any.
 *
 * @param error - Anything thrown.
 * @returns The signal, or `undefined`.
 * @example
 * ```ts
 * import { suspicionOfRefusal } from '@tollgate/core/license';
 * const signal = suspicionOfRefusal(error);
 * ```
 */
export function suspicionOfRefusal(error: unknown): SuspicionSignal | undefined {
  return typeof error === 'object' && error !== null ? tagged.get(error) : undefined;
}

/**
 * Tells the deployment about a suspicious event (notice `suspicious`), which the license server records
 * in the suspicion ledger off the request path.
 *
 * @param deps - Where notices go.
 * @param signal - The event.
 * @example
 * ```ts
 * import { reportSuspicion } from '@tollgate/core/license';
 * reportSuspicion(context, { productId, licenseId, kind: 'offline_burst' });
 * ```
 */
export function reportSuspicion(deps: Pick<ClientProtocolDeps, 'notify'>, signal: SuspicionSignal): void {
  deps.notify?.({ kind: 'suspicious', signal });
}
