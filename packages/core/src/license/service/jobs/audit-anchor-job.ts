import { anchorAuditHeads, type StoredAuditAnchor } from '../../admin/audit/audit-anchors';
import { pickSigningEpoch, type SigningEpoch } from '../../signing-epochs';
import { unixSeconds, type Clock } from '../../../time/clock';
import type { SqlClient } from '../../../storage/sql-client';
import { nobleLicenseCrypto, type LicenseCrypto } from '../license-crypto';
import type { LicenseLogSink } from '../logger';
import type { LicenseTrust } from '../trust/license-trust';
import { startPeriodicJob, type PeriodicJob } from './periodic-job';

/** Options of {@link startAuditAnchorJob}. */
export interface AuditAnchorJobOptions {
  sql: SqlClient;
  /** Where the global signing epoch comes from (the server's trust state). */
  trust: Pick<LicenseTrust, 'signingEpochs'>;
  clock: Clock;
  logger: LicenseLogSink;
  /** Period between runs (the anchoring interval). */
  intervalMs: number;
  /** Ed25519 of the anchor signatures' self-check (default {@link nobleLicenseCrypto}). */
  crypto?: Pick<LicenseCrypto, 'verify'>;
}

/**
 * What one run did: `anchored` (the anchors it stored, possibly none), `busy` (another instance holds the
 * anchoring lock), `no_signing_epoch` (no global epoch may sign now), `failed` (logged), or `closed`
 * (the job was stopped).
 */
export type AuditAnchorRun =
  | { readonly outcome: 'anchored'; readonly anchors: readonly StoredAuditAnchor[] }
  | { readonly outcome: 'busy' | 'no_signing_epoch' | 'failed' | 'closed' };

/** A running anchor job: `runOnce()` returns what that run did. */
export type AuditAnchorJob = PeriodicJob<AuditAnchorRun>;

// One anchoring instance per database schema at a time: a transaction-scoped advisory lock, released by
// the commit, so a crashed instance never leaves it held.
const lockSql = `SELECT pg_try_advisory_xact_lock(hashtextextended('tollgate_audit_anchor_job:' || current_schema(), 0)) AS locked`;

/**
 * Starts the periodic audit anchoring: every `intervalMs`, one instance (a PostgreSQL advisory lock
 * elects it; the others skip the round) picks a global signing epoch from `trust.signingEpochs()`
 * (`pickSigningEpoch` without a product) and calls `anchorAuditHeads`, which signs the head of every
 * vendor whose audit chain moved since its last anchor. Failures (no global epoch, database errors) are
 * logged and the next round tries again: the job never crashes the server. The timer does not keep the
 * process alive.
 *
 * @param options - Database, trust state, clock, logger, interval.
 * @returns The job: `runOnce()` for an immediate round, `close()` to stop.
 * @example
 * ```ts
 * import { startAuditAnchorJob } from '@tollgate/core/license';
 * const job = startAuditAnchorJob({ sql, trust, clock: systemClock, logger, intervalMs: 3_600_000 });
 * await job.close();
 * ```
 */
export function startAuditAnchorJob(options: AuditAnchorJobOptions): AuditAnchorJob {
  const { sql, trust, clock, logger } = options;
  if (!Number.isSafeInteger(options.intervalMs) || options.intervalMs < 1) throw new TypeError('intervalMs must be a positive whole number of milliseconds.');
  return startPeriodicJob<AuditAnchorRun>(options.intervalMs, { outcome: 'closed' }, async () => {
    let signing: SigningEpoch;
    try {
      signing = pickSigningEpoch(trust.signingEpochs(), { now: unixSeconds(clock) });
    } catch (error) {
      logger.warn({ err: error }, 'audit anchoring skipped: no global epoch may sign now');
      return { outcome: 'no_signing_epoch' };
    }
    try {
      return await sql.transaction(async (tx) => {
        const { rows } = await tx.query<{ locked: boolean }>(lockSql);
        if (rows[0]?.locked !== true) return { outcome: 'busy' } as const;
        const anchors = await anchorAuditHeads(tx, signing.signer, { clock, verify: (options.crypto ?? nobleLicenseCrypto).verify });
        if (anchors.length > 0) logger.info({ anchors: anchors.length, epochId: signing.epoch.epochIdHex }, 'audit heads anchored');
        return { outcome: 'anchored', anchors } as const;
      });
    } catch (error) {
      logger.error({ err: error }, 'audit anchoring failed; retrying next round');
      return { outcome: 'failed' };
    }
  });
}
