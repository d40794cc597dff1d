import type pg from 'pg';
import type { LicenseChangeFeed, LicenseChangeFeedOptions } from '../license/service/license-change-feed';

/** The PostgreSQL channel of trust-chain change notices (migration 012 sends them at commit). */
export const trustChangeChannel = 'tollgate_license_trust';

/** Options of {@link startTrustChangeListener}. */
export interface TrustChangeListenerOptions extends LicenseChangeFeedOptions {
  /** The PostgreSQL server the instances share (`LICENSE_DATABASE_URL`). */
  connectionString: string;
  /** First delay before reconnecting after a lost connection; doubles up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  /** Longest delay between reconnection attempts (30 s by default, the keyset refresh period). */
  maxReconnectDelayMs?: number;
  /**
   * Other channels on the same connection, e.g. release changes (`releaseChangeChannel` with
   * `applyReleaseChangeNotice`): each gets its notices, and `'reconnected'` after a lost connection.
   */
  alsoListen?: readonly { readonly channel: string; apply(payload: string): void }[];
  /** Called after each notice was applied (tests wait on it instead of on time). */
  onNotice?: (notice: string) => void;
}

/** A running listener. */
export interface TrustChangeListener {
  /** Resolves once the first `LISTEN` is in place (rejects when the first connection fails). */
  readonly ready: Promise<void>;
  /** Stops listening and closes the connection. */
  close(): Promise<void>;
}

/**
 * Listens on PostgreSQL for trust-chain change notices (`LISTEN tollgate_license_trust` on a dedicated
 * connection, outside the pool) and hands each one to `trust.applyChangeNotice`, so an epoch revoked
 * by another instance or the CLI stops signing here as soon as the revoking transaction commits, and
 * the keyset follows new epochs and feed heads without waiting for the periodic refresh.
 *
 * The periodic refresh stays the fallback: when the connection drops, the listener logs a warning,
 * reconnects with a doubling delay, and after every reconnection asks for a rebuild (notices sent while
 * it was away are lost). Between a commit and its notice there is one network hop; signers also refuse
 * outside their window on their own. PGlite serves one process, whose own changes already rebuild its
 * trust state, so only PostgreSQL deployments need this.
 *
 * @param options - Connection, trust state, logger, reconnection delays.
 * @returns The listener; await `ready` to know the first `LISTEN` is in place.
 *
 * @example
 * ```ts
 * import { startTrustChangeListener } from '@tollgate/core/node';
 * const listener = startTrustChangeListener({ connectionString: config.databaseUrl, trust, logger });
 * await listener.ready;
 * // on shutdown
 * await listener.close();
 * ```
 */
export function startTrustChangeListener(options: TrustChangeListenerOptions): TrustChangeListener {
  const baseDelay = options.reconnectDelayMs ?? 500;
  const maxDelay = options.maxReconnectDelayMs ?? 30_000;
  let client: pg.Client | undefined;
  let closed = false;
  let delay = baseDelay;
  let timer: NodeJS.Timeout | undefined;
  const others = options.alsoListen ?? [];
  // Channel names are interpolated into LISTEN: only plain identifiers are accepted.
  for (const other of others) if (!/^[a-z_][a-z0-9_]{0,62}$/.test(other.channel)) throw new TypeError(`Not a channel name: ${other.channel}`);

  const deliver = (notice: string) => {
    options.trust.applyChangeNotice(notice);
    options.onNotice?.(notice);
  };

  const connect = async (reconnecting: boolean): Promise<void> => {
    // Loaded on first use: `pg` is an optional peer of @tollgate/core, needed only where this listener runs.
    const { default: driver } = await import('pg');
    const next = new driver.Client({ connectionString: options.connectionString });
    // A lost connection surfaces as 'error' and/or 'end'; either one schedules one reconnection.
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost || closed) return;
      lost = true;
      options.logger.warn({ err: error }, 'trust change notices interrupted; reconnecting (the periodic keyset refresh covers the gap)');
      next.end().catch(() => undefined);
      schedule();
    };
    next.on('error', onLost);
    next.on('end', () => onLost());
    next.on('notification', (message) => {
      if (message.channel === trustChangeChannel) deliver(message.payload ?? '');
      else others.find((other) => other.channel === message.channel)?.apply(message.payload ?? '');
    });
    try {
      await next.connect();
      for (const channel of [trustChangeChannel, ...others.map((other) => other.channel)]) await next.query(`LISTEN ${channel}`);
    } catch (error) {
      lost = true;
      await next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    delay = baseDelay;
    if (reconnecting) {
      options.logger.info({}, 'trust change notices resumed');
      // Whatever changed while the connection was down sent notices nobody heard.
      deliver('reconnected');
      for (const other of others) other.apply('reconnected');
    }
  };

  const schedule = () => {
    if (closed) return;
    client = undefined;
    timer = setTimeout(() => {
      connect(true).catch((error: unknown) => {
        options.logger.warn({ err: error }, 'trust change listener could not reconnect; retrying');
        delay = Math.min(delay * 2, maxDelay);
        schedule();
      });
    }, delay);
    timer.unref();
  };

  const ready = connect(false);
  // `ready` reports the first failure to whoever awaits it; retrying keeps the listener alive meanwhile.
  ready.catch((error: unknown) => {
    options.logger.warn({ err: error }, 'trust change listener could not connect; retrying');
    schedule();
  });

  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}

/**
 * The PostgreSQL change feed of `createLicenseService`: a {@link startTrustChangeListener} on
 * `connectionString` (`LISTEN` on a dedicated connection). Pass it as `listenForChanges` when several
 * instances share one PostgreSQL server; PGlite needs none.
 *
 * @param connectionString - The PostgreSQL server the instances share.
 * @returns The feed.
 * @example
 * ```ts
 * import { createLicenseService } from '@tollgate/core';
 * import { pgLicenseChangeFeed } from '@tollgate/core/node';
 * const service = createLicenseService({ sql, clock, masterKey, pinnedRoots, logger, listenForChanges: pgLicenseChangeFeed(process.env.DATABASE_URL!) });
 * ```
 */
export function pgLicenseChangeFeed(connectionString: string): LicenseChangeFeed {
  return (options) => startTrustChangeListener({ connectionString, ...options });
}
