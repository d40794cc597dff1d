import type { KillOrder } from '@tollgate/core/license';
import type { LicenseState } from './license-state';

/** A state change, with why it happened. */
export interface StateChange {
  readonly state: LicenseState;
  readonly previous: LicenseState;
  /**
   * Why, when it is not obvious: `refresh_due`, `clock_set_back`, `server_unreachable`, `expired`,
   * `grace_over`, `refused`, `verification_failed`, `verification_unavailable` (the stored license could
   * not be checked yet, e.g. the revocation feed is out of reach: retried on backoff),
   * `needs_reactivation`, `version_out_of_scope`, `upgrade_required`, `activation_failed`, `deactivated`,
   * `storage_unreadable`, `offline_answer_pending`, `kill_<reason>`.
   */
  readonly reason?: string | undefined;
  /** The vendor demands an upgrade of this build (the ticket says `refresh_now`); the license still works. */
  readonly upgradeRequired?: true;
  /** The end of the grace window (unix seconds), in `grace` and `needs_revalidation`. */
  readonly graceEndsAt?: number;
  /** The kill order, in `revoked`. */
  readonly killOrder?: KillOrder;
  /** The failure behind the change, if one was. */
  readonly error?: unknown;
}

/** What a license client tells the app. */
export interface LicenseClientEventMap {
  state: StateChange;
  kill: KillOrder;
  /** A failure that changed nothing the app must act on (a heartbeat that did not get through, an unreadable record). */
  error: unknown;
}

/** Subscribing to a license client's events. */
export interface LicenseClientEvents {
  /**
   * Calls `listener` on every `event`; returns the function that unsubscribes it. A listener that throws
   * is ignored (the client never fails because of one).
   */
  on<Event extends keyof LicenseClientEventMap>(event: Event, listener: (value: LicenseClientEventMap[Event]) => void): () => void;
}

/**
 * A tiny typed emitter (no Node `EventEmitter`, so the SDK stays browser-safe).
 *
 * @returns `on` for the app and `emit` for the client.
 * @example
 * ```ts
 * const events = createClientEvents();
 * events.on('kill', (order) => shutDown(order.userMessage));
 * ```
 */
export function createClientEvents(): LicenseClientEvents & { emit<Event extends keyof LicenseClientEventMap>(event: Event, value: LicenseClientEventMap[Event]): void } {
  const listeners = new Map<keyof LicenseClientEventMap, Set<(value: never) => void>>();
  return {
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (value: never) => void);
      return () => void set.delete(listener as (value: never) => void);
    },
    emit(event, value) {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          (listener as (value: unknown) => void)(value);
        } catch {
          // A listener's failure is the app's; the client goes on.
        }
      }
    },
  };
}
