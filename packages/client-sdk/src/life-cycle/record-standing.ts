import type { MachineCredential, ValidationTicket } from '@tollgate/core/license';
import type { DeviceSession } from '../device-calls';
import { standingAt } from './license-state';
import type { StoredLicense } from './stored-license';

/** A stored license whose credential (and ticket) verified: what the client runs on. */
export interface LoadedLicense {
  stored: StoredLicense;
  credential: MachineCredential;
  ticket: ValidationTicket | undefined;
  session: DeviceSession;
  /** The credential was issued to another device fingerprint than this device's (a copied record). */
  moved: boolean;
}

/** Where a loaded license stands, as the client announces it. */
export interface Judgement {
  readonly state: 'active' | 'needs_revalidation' | 'grace' | 'locked';
  readonly reason?: string;
  readonly graceEndsAt?: number;
  readonly upgradeRequired?: true;
}

/**
 * What the app must be told about a ticket that still lets it run: `version_out_of_scope` (verdict 2,
 * restricted mode) and `upgrade_required` (`refresh_now`: the vendor demands an upgrade of this build).
 *
 * @param ticket - The last verified ticket, if any.
 * @returns The reason and upgrade flag to announce with `active`.
 * @example
 * ```ts
 * setState('active', ticketNotice(ticket));
 * ```
 */
export function ticketNotice(ticket: ValidationTicket | undefined): Pick<Judgement, 'reason' | 'upgradeRequired'> {
  const upgrade = ticket?.refreshNow === true ? { upgradeRequired: true as const } : {};
  if (ticket?.verdict === 2) return { reason: 'version_out_of_scope', ...upgrade };
  return ticket?.refreshNow === true ? { reason: 'upgrade_required', ...upgrade } : {};
}

/**
 * Judges a loaded license offline at `now`, with what the record remembers: a refusal by the server and
 * a verdict-1 ticket (or a credential of another fingerprint) lock until a validation succeeds; then the
 * standing of the ticket (or credential) decides, and a clock set back asks for a validation.
 *
 * @param loaded - The loaded license.
 * @param now - The judged time (unix seconds, the clock guard's).
 * @param clockSetBack - Whether the device clock is behind the mark beyond the tolerance.
 * @param cause - The failure that led here (a validation that did not get through), if any.
 * @returns The state and its details.
 * @example
 * ```ts
 * const { state, reason } = judgeRecord(loaded, judgedNow(), false, undefined);
 * ```
 */
export function judgeRecord(loaded: LoadedLicense, now: number, clockSetBack: boolean, cause: unknown): Judgement {
  if (loaded.stored.refusedAt !== undefined) return { state: 'locked', reason: 'refused' };
  if (loaded.moved || loaded.ticket?.verdict === 1) return { state: 'locked', reason: 'needs_reactivation' };
  const standing = standingAt(loaded.credential, loaded.ticket, now);
  if (standing.state === 'locked') return { state: 'locked', ...(standing.reason === undefined ? {} : { reason: standing.reason }) };
  if (clockSetBack) return { state: 'needs_revalidation', reason: 'clock_set_back' };
  if (standing.state === 'grace') {
    return cause === undefined ? { state: 'needs_revalidation', reason: 'refresh_due', graceEndsAt: standing.graceEndsAt } : { state: 'grace', reason: 'server_unreachable', graceEndsAt: standing.graceEndsAt };
  }
  return { state: 'active', ...ticketNotice(loaded.ticket) };
}

/**
 * When the loaded license stops being usable without any contact: the end of its grace window or its
 * expiry, whichever comes first after `now`.
 *
 * @param loaded - The loaded license.
 * @param now - The judged time (unix seconds).
 * @returns Unix seconds, or `undefined` when both lie behind.
 * @example
 * ```ts
 * const at = standingEnds(loaded, judgedNow());
 * ```
 */
export function standingEnds(loaded: LoadedLicense, now: number): number | undefined {
  const standing = standingAt(loaded.credential, loaded.ticket, now);
  const expiresAt = loaded.ticket?.expiresAt ?? loaded.credential.expiresAt;
  const ends = [standing.graceEndsAt, ...(expiresAt === undefined ? [] : [expiresAt])].filter((at) => at > now);
  return ends.length === 0 ? undefined : Math.min(...ends);
}
