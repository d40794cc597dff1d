import type { ValidationTicket } from '@tollgate/core/license';
import type { StoredLicense } from './stored-license';
import { usageAfterTicket, withUsage } from './usage-telemetry';

/**
 * The record after a validation ticket verified: the ticket envelope, the clock mark reset to server
 * time (or the device's, if later), the highest revocation epoch and security floor seen, the usage
 * window the ticket leaves, and no refusal (a successful validation lifts it).
 *
 * @param stored - The record before the answer.
 * @param ticket - The verified ticket.
 * @param envelope - Its envelope, as the server sent it.
 * @param sentUsage - Whether the request carried usage.
 * @param nowSeconds - The device clock (unix seconds).
 * @returns The new record.
 * @example
 * ```ts
 * loaded.stored = recordAfterTicket(loaded.stored, ticket, envelope, outgoing !== undefined, now());
 * ```
 */
export function recordAfterTicket(stored: StoredLicense, ticket: ValidationTicket, envelope: Uint8Array, sentUsage: boolean, nowSeconds: number): StoredLicense {
  const { refusedAt, ...kept } = stored;
  void refusedAt;
  return {
    ...withUsage(kept, usageAfterTicket(stored.usage, stored.consentVersion, ticket, sentUsage)),
    ticket: envelope,
    // Server time is authoritative: a successful validation resets the mark to it (and to the device's time, if later).
    clockMark: Math.max(ticket.serverTime, nowSeconds),
    knownRevocationEpoch: Math.max(stored.knownRevocationEpoch, ticket.revocationEpoch),
    knownSecurityFloor: Math.max(stored.knownSecurityFloor, ticket.securityFloor),
  };
}
