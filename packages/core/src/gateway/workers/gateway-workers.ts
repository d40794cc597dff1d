import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import type { SettlementRecovery } from '../payments/recovery';
import type { GatewayKeys } from '../secrets';
import type { MerchantStore } from '../store/merchant-store';
import { startHousekeeping } from './housekeeping';
import { startNotificationWorker, type NotificationWorkerOptions } from './notification-worker';
import { startRecoveryWorker } from './recovery-worker';

/**
 * Where the gateway reports: payment outcomes, worker retries and failures, unexpected errors. A pino
 * logger fits. Lines carry ids, hosts and reasons only, never keys, signatures or bodies.
 */
export interface GatewayLogger {
  debug(object: object, message?: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** Tuning of the background workers `createGateway` runs; every part has defaults. */
export interface GatewayWorkerOptions {
  /** Settlement recovery of pending payments: idle poll (default 1 000 ms), sweep interval (default 30 000 ms), concurrency (2). */
  readonly recovery?: { readonly pollIntervalMs?: number; readonly sweepIntervalMs?: number; readonly concurrency?: number };
  /**
   * Merchant notification delivery. It needs a transport: on Node, `createNodeNotificationTransport()`
   * from `@tollgate/core/node`. `false` when another process of the deployment delivers them. Left out,
   * this process delivers none and says so when the workers start.
   */
  readonly notifications?: false | Omit<NotificationWorkerOptions, 'sql' | 'stores' | 'keys' | 'clock' | 'logger'>;
  /** Deletion of expired registration challenges and idle rate-limit state; interval default 10 minutes. */
  readonly housekeeping?: { readonly intervalMs?: number };
}

/** The background work the gateway's guarantees depend on. */
export interface GatewayWorkers {
  /** Starts every worker (once; a second call does nothing). */
  start(): void;
  /** Stops them and waits for work in flight to record its outcome; the workers may be started again. */
  stop(): Promise<void>;
  /** Whether the workers run in this process. */
  readonly running: boolean;
}

/** What {@link createGatewayWorkers} runs over. */
export interface GatewayWorkersDeps {
  readonly sql: SqlClient;
  readonly stores: { readonly merchants: Pick<MerchantStore, 'getMerchant' | 'deleteExpiredChallenges'> };
  readonly rateLimiter: Pick<RateLimiter, 'prune'>;
  readonly keys: Pick<GatewayKeys, 'notifyRoot'>;
  readonly clock: Clock;
  readonly logger: GatewayLogger;
  /** The payments' recovery (`undefined` without payments: nothing can be pending then). */
  readonly recovery: Pick<SettlementRecovery, 'runJob' | 'sweepAbandoned' | 'sweepStranded'> | undefined;
  readonly options?: GatewayWorkerOptions;
}

/**
 * The gateway's workers as one unit: settlement recovery (pending payments finished from chain evidence,
 * abandoned claims taken over), merchant notification delivery and housekeeping. Every instance of a
 * deployment may run them: jobs are claimed once (`SKIP LOCKED`) and housekeeping is idempotent.
 *
 * @param deps - Database, stores, limiter, keys, clock, logger, the payments' recovery and tuning.
 * @returns `start()`, `stop()` and `running`.
 * @example
 * ```ts
 * import { createGatewayWorkers } from '@tollgate/core/gateway';
 * const workers = createGatewayWorkers({ sql, stores, rateLimiter, keys, clock, logger, recovery: payments.recovery });
 * workers.start();
 * await workers.stop();
 * ```
 */
export function createGatewayWorkers(deps: GatewayWorkersDeps): GatewayWorkers {
  let stops: (() => Promise<void>)[] | undefined;
  const { sql, stores, keys, clock, logger, options = {} } = deps;
  return {
    start() {
      if (stops !== undefined) return;
      const recovery = deps.recovery && startRecoveryWorker({ sql, recovery: deps.recovery, clock, logger, ...options.recovery });
      const notifications = options.notifications ? startNotificationWorker({ sql, stores, keys, clock, logger, ...options.notifications }) : undefined;
      if (options.notifications === undefined) {
        logger.warn({}, 'merchant notifications are not delivered by this process (no notification transport given); they wait in the queue until a process with one runs');
      }
      const housekeeping = startHousekeeping({ stores, rateLimiter: deps.rateLimiter, clock, logger, ...options.housekeeping });
      // Notifications stop first: a recovery in flight may still enqueue one, which then waits for the next start.
      stops = [...(notifications ? [() => notifications.stop()] : []), ...(recovery ? [() => recovery.stop()] : []), () => housekeeping.stop()];
    },
    async stop() {
      const running = stops;
      stops = undefined;
      for (const stop of running ?? []) await stop();
    },
    get running() {
      return stops !== undefined;
    },
  };
}
