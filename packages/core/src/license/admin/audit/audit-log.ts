import type { SqlClient } from '../../../storage/sql-client';

/** One mutation as the Admin API reports it to the audit log. */
export interface AuditEventInput {
  /** The vendor whose chain the event joins: each vendor has its own chain and head. */
  readonly vendorId: string;
  /** Who did it: an Admin token id (32 hex), or `cli:<command>` for the bootstrap CLI. */
  readonly actor: string;
  /** What was done, `resource.verb` (e.g. `license.revoke`, `policy.create`). */
  readonly action: string;
  /** The kind of the target (`license`, `machine`, `policy`, …). */
  readonly targetType: string;
  /** The target's id. */
  readonly targetId: string;
  /**
   * What changed, as plain JSON. Strings under secret-like names (password, key, token, secret…) are
   * redacted before hashing (`redactAuditSummary`); booleans, numbers and null are kept.
   */
  readonly summary: Readonly<Record<string, unknown>>;
}

/** An event as stored and listed. */
export interface AuditEvent {
  /** Position in the vendor's chain, from 1. */
  readonly seq: number;
  readonly vendorId: string;
  readonly actor: string;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string;
  /** The redacted summary that was hashed. */
  readonly summary: Readonly<Record<string, unknown>>;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Hash of the previous event (64 hex; all zeros for seq 1). */
  readonly prevHash: string;
  /**
   * SHA-256 over the length-prefixed canonical encoding of this event and `prevHash` (64 hex): see
   * `auditEventHash`, with which anyone can recompute it from a listed event (`auditChainLink`).
   */
  readonly hash: string;
}

/** The answer of `POST /v1/admin/audit/verify`. */
export interface AuditVerification {
  readonly verified: boolean;
  /** Events checked (at most 10,000). */
  readonly event_count: number;
  /** Stored hash of the last checked event (null when no event was checked). */
  readonly head: string | null;
  /**
   * The first seq at which the chain is not intact (null when verified): the event there changed, its
   * link or hash does not match, it is missing or renumbered, or it disagrees with the vendor's head.
   * A changed hash is reported at its own event. `verifyAuditChain` states the rule exactly.
   */
  readonly first_broken: number | null;
}

/**
 * The audit log port: one hash chain per vendor.
 *
 * Atomicity: `append` runs inside the caller's transaction `tx`, so an event commits exactly when the
 * mutation it describes commits. The vendor's head is taken with a row lock for the rest of that
 * transaction: concurrent writers of one vendor queue behind it and the chain never forks (two events
 * with one `seq` or one `prevHash` are impossible).
 */
export interface AuditLog {
  /** Appends an event in `tx` (see the port's atomicity). */
  append(tx: SqlClient, event: AuditEventInput, at: number): Promise<AuditEvent>;
  /** The vendor's events, newest first, optionally for one target; `cursor` from a previous page. */
  list(vendorId: string, options: { targetType?: string; targetId?: string; cursor?: string; limit: number }): Promise<{ events: AuditEvent[]; nextCursor: string | null }>;
  /**
   * Recomputes the vendor's chain from seq `fromSeq` (default 1), at most `limit` events (clamped to
   * 1..10,000), from one consistent snapshot, so appends committing meanwhile never look like a break.
   */
  verify(vendorId: string, options?: { fromSeq?: number; limit?: number }): Promise<AuditVerification>;
}
