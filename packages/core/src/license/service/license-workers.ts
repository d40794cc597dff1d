import { applyReleaseChangeNotice, releaseChangeChannel, releaseChangesOf } from '../releases/release-changes';
import { deriveLicenseSubkey, licenseSubkeyLabels } from '../admin/admin-keys';
import type { Clock } from '../../time/clock';
import type { IdempotencyJournal } from '../admin/idempotency-journal';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { ReclaimedSeat } from '../client-protocol/seat-reclaim';
import type { SqlClient } from '../../storage/sql-client';
import type { AuditLog } from '../admin/audit/audit-log';
import { startAuditAnchorJob } from './jobs/audit-anchor-job';
import { startClientProtocolPurgeJob } from './jobs/client-protocol-purge-job';
import { startIdempotencyPurgeJob } from './jobs/idempotency-purge-job';
import { startSeatReclaimJob, type SeatReclaimJob } from './jobs/seat-reclaim-job';
import { startSuspicionAlertJob } from './jobs/suspicion-alert-job';
import type { LicenseChangeFeed } from './license-change-feed';
import type { LicenseCrypto } from './license-crypto';
import type { LicenseNetwork } from './license-network';
import type { LicenseLogSink } from './logger';
import type { LicenseModule } from './modules/license-module';
import type { LicenseServiceOptions, LicenseServiceOverrides } from './service-options';
import type { LicenseTrust } from './trust/license-trust';

/**
 * The background jobs of a license service.
 *
 * @example
 * ```ts
 * const service = createLicenseService(deps);
 * await service.workers.start();
 * await service.workers.stop();
 * ```
 */
export interface LicenseWorkers {
  /**
   * Starts every job (idempotent): the change feed (awaited until it listens or its first connection
   * failed; it keeps retrying), idempotency and client-protocol purges, seat reclaim, audit anchors,
   * suspicion alerts, billing events, telemetry retention, analytics rollup and metric deliveries.
   */
  start(): Promise<void>;
  /** Stops every job and waits for the rounds in flight (idempotent; `start()` may follow). */
  stop(): Promise<void>;
  /** Whether the jobs run. */
  readonly running: boolean;
}

/**
 * What {@link createLicenseWorkers} starts the jobs with.
 *
 * @example
 * ```ts
 * const workers = createLicenseWorkers({ sql, clock, masterKey, logger, crypto, network, listenForChanges, options, overrides, trust, audit, journal, rateLimiter, purges: [], modules: [] });
 * ```
 */
export interface LicenseWorkerDeps {
  readonly sql: SqlClient;
  readonly clock: Clock;
  readonly masterKey: Uint8Array;
  readonly logger: LicenseLogSink;
  readonly crypto: LicenseCrypto;
  readonly network: LicenseNetwork | undefined;
  readonly listenForChanges: LicenseChangeFeed | undefined;
  readonly options: LicenseServiceOptions;
  readonly overrides: LicenseServiceOverrides;
  readonly trust: LicenseTrust;
  readonly audit: AuditLog;
  readonly journal: IdempotencyJournal;
  readonly rateLimiter: RateLimiter;
  /** More purges of the client-protocol purge round (account sessions, suspicion signals). */
  readonly purges: readonly (() => Promise<unknown>)[];
  readonly modules: readonly LicenseModule[];
}

/**
 * The workers and the seat reclaim entry point of the service (a round now, jobs running or not).
 *
 * @example
 * ```ts
 * const handle: LicenseWorkersHandle = createLicenseWorkers(deps);
 * const reclaimed = await handle.seatReclaim.runOnce();
 * ```
 */
export interface LicenseWorkersHandle extends LicenseWorkers {
  readonly seatReclaim: Pick<SeatReclaimJob, 'runOnce'>;
}

/**
 * The background jobs of `createLicenseService`, started by `start()` and stopped by `stop()`.
 *
 * @param deps - What the jobs run on.
 * @returns The workers.
 * @example
 * ```ts
 * const workers = createLicenseWorkers(deps);
 * await workers.start();
 * await workers.stop();
 * ```
 */
export function createLicenseWorkers(deps: LicenseWorkerDeps): LicenseWorkersHandle {
  const { sql, clock, logger, options, overrides, trust } = deps;
  let running: { close(): Promise<void> }[] | undefined;
  let seatJob: SeatReclaimJob | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const startSeatReclaim = () => startSeatReclaimJob({ sql, audit: deps.audit, clock, logger, intervalMs: options.seatReclaimSeconds * 1000 });

  const start = async (): Promise<void> => {
    const jobs: { close(): Promise<void> }[] = [];
    // An instance that answers requests must already hear its peers: a change committed between the start
    // and a late LISTEN would otherwise wait for the periodic refresh. A failed first connection does not
    // stop the start (the feed keeps retrying and the refresh covers the gap).
    const feed = deps.listenForChanges?.({
      trust,
      logger,
      alsoListen: [{ channel: releaseChangeChannel, apply: (payload) => applyReleaseChangeNotice(releaseChangesOf(sql), payload) }],
    });
    if (feed !== undefined) {
      jobs.push(feed);
      await feed.ready.catch(() => undefined);
    }
    try {
      startJobs(jobs);
    } catch (error) {
      // A job that refuses its settings (an interval out of range) must not leave the others running.
      seatJob = undefined;
      await closeAll(jobs, feed);
      throw error;
    }
    running = jobs;
  };

  const startJobs = (jobs: { close(): Promise<void> }[]): void => {
    // One push per job: a job that throws while starting leaves every earlier one in `jobs`, to be closed.
    seatJob = startSeatReclaim();
    jobs.push(seatJob);
    jobs.push(startIdempotencyPurgeJob({ journal: deps.journal, clock, logger }));
    jobs.push(startAuditAnchorJob({ sql, trust, clock, logger, intervalMs: options.auditAnchorSeconds * 1000, crypto: deps.crypto }));
    jobs.push(startClientProtocolPurgeJob({ sql, clock, logger, rateLimiter: deps.rateLimiter, extra: deps.purges }));
    const alerts = overrides.alerts ?? {};
    const transport = alerts.transport ?? deps.network?.createTransport(alerts.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {});
    if (transport === undefined) logger.warn({}, 'no network given: suspicion alerts and metric subscriptions are not delivered');
    else jobs.push(startSuspicionAlertJob({ sql, signingRoot: deriveLicenseSubkey(deps.masterKey, licenseSubkeyLabels.alertSigning), clock, logger, ...alerts, transport }));
    for (const module of deps.modules) for (const worker of module.workers ?? []) jobs.push(worker.start());
  };

  // The change feed goes last, as `tollgate-license` always stopped it after the jobs.
  const closeAll = async (jobs: readonly { close(): Promise<void> }[], feed: { close(): Promise<void> } | undefined): Promise<void> => {
    await Promise.all(jobs.filter((job) => job !== feed).map((job) => job.close()));
    await feed?.close();
  };

  const workers: LicenseWorkersHandle = {
    get running() {
      return running !== undefined;
    },
    async start() {
      await stopping;
      if (running === undefined) await (starting ??= start().finally(() => (starting = undefined)));
    },
    async stop() {
      await starting;
      const jobs = running;
      if (jobs === undefined) return stopping;
      running = undefined;
      seatJob = undefined;
      stopping = closeAll(jobs, deps.listenForChanges === undefined ? undefined : jobs[0]).finally(() => (stopping = undefined));
      return stopping;
    },
    seatReclaim: {
      async runOnce(): Promise<ReclaimedSeat[]> {
        if (seatJob !== undefined) return seatJob.runOnce();
        const once = startSeatReclaim();
        try {
          return await once.runOnce();
        } finally {
          await once.close();
        }
      },
    },
  };
  return workers;
}
