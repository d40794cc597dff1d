import type { SqlClient } from '../../storage/sql-client';

/**
 * Listener of release changes: told which product's releases or security floor changed, or `undefined`
 * when it cannot be known (a lost notice connection): every product then counts as changed.
 */
export type ReleaseChangeListener = (productId: string | undefined) => void;

/**
 * The in-process event "a product's releases or security floor changed": release gates subscribe (to
 * drop their cached judgements); the release routes of this instance publish after their writes, and
 * the server's notice listener publishes what other instances changed ({@link applyReleaseChangeNotice}).
 */
export interface ReleaseChanges {
  /** Adds a listener; the returned function removes it. Listeners must not throw. */
  subscribe(listener: ReleaseChangeListener): () => void;
  /** `undefined`: every product may have changed. */
  publish(productId: string | undefined): void;
}

/**
 * A new, empty release-change channel (what {@link releaseChangesOf} keeps one of per database handle;
 * tests build one per simulated instance).
 *
 * @returns The channel.
 * @example
 * ```ts
 * import { createReleaseChanges, createSqlReleaseGate } from '@tollgate/core/license';
 * const gate = createSqlReleaseGate(sql, { changes: createReleaseChanges() });
 * ```
 */
export function createReleaseChanges(): ReleaseChanges {
  const listeners = new Set<ReleaseChangeListener>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(productId) {
      for (const listener of listeners) listener(productId);
    },
  };
}

const channels = new WeakMap<SqlClient, ReleaseChanges>();

/**
 * The release-change channel of a database handle. Keyed by the handle itself, so a gate and the
 * Admin API built over the same `SqlClient` (as the server builds them) meet without further wiring.
 *
 * @param sql - The database (not a transaction).
 * @returns Its channel, created on first use.
 * @example
 * ```ts
 * import { releaseChangesOf } from '@tollgate/core/license';
 * const stop = releaseChangesOf(sql).subscribe((productId) => console.log('releases changed', productId ?? 'all'));
 * ```
 */
export function releaseChangesOf(sql: SqlClient): ReleaseChanges {
  let channel = channels.get(sql);
  if (channel === undefined) {
    channel = createReleaseChanges();
    channels.set(sql, channel);
  }
  return channel;
}

/**
 * The PostgreSQL channel license migration 009's triggers notify at the commit of every change to
 * `license_releases` or to a product's security floor, with the product id as payload.
 */
export const releaseChangeChannel = 'tollgate_license_releases';

const productIdPattern = /^[0-9a-f]{32}$/;

/**
 * Hands a notice heard on {@link releaseChangeChannel} (or the listener's own `'reconnected'`, after
 * notices may have been lost) to a release-change channel: a product id drops that product's cached
 * judgements, anything else drops every product's, which is always safe.
 *
 * @param changes - The channel the gates listen on (`releaseChangesOf(sql)` on the server).
 * @param payload - The notice payload.
 * @example
 * ```ts
 * import { applyReleaseChangeNotice, releaseChangeChannel, releaseChangesOf } from '@tollgate/core/license';
 * client.on('notification', (m) => { if (m.channel === releaseChangeChannel) applyReleaseChangeNotice(releaseChangesOf(sql), m.payload ?? ''); });
 * ```
 */
export function applyReleaseChangeNotice(changes: ReleaseChanges, payload: string): void {
  changes.publish(productIdPattern.test(payload) ? payload : undefined);
}

const fenceKey = (productId: string) => `license_releases:${productId}`;

/**
 * Publishes a release change twice: now (so a read that follows the Admin answer on this instance
 * never meets the old state in a cache) and again once the transaction has ended. The second notice is
 * what a read racing the commit needs: it may have cached the old state between the first notice and
 * the commit. The transaction holds a shared, transaction-scoped advisory lock on the product; the
 * notice waits for an exclusive one on the database itself, which it gets only after every such
 * transaction has committed or rolled back (on PGlite, after the transaction, like every outside
 * statement). A notice after a rollback only empties a cache, which is harmless. Nothing awaits it.
 *
 * @param tx - The mutation's transaction.
 * @param sql - The database itself (the handle the channel is keyed by).
 * @param productId - The product whose releases changed.
 * @example
 * ```ts
 * import { announceReleaseChange } from '@tollgate/core/license';
 * await announceReleaseChange(call.sql, deps.sql, release.productId);
 * ```
 */
export async function announceReleaseChange(tx: SqlClient, sql: SqlClient, productId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', [fenceKey(productId)]);
  const channel = releaseChangesOf(sql);
  channel.publish(productId);
  const publish = () => channel.publish(productId);
  void sql.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [fenceKey(productId)]).then(publish, publish);
}
