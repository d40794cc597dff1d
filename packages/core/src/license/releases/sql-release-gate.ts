import { hexEncode } from '../../crypto/hex';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock, type Clock } from '../../time/clock';
import { releaseChangesOf, type ReleaseChanges } from './release-changes';
import type { CompromiseAction, ReleaseGate, ReleaseJudgement, ReleaseState } from './release-gate';
import { ReleaseJudgementCache } from './release-judgement-cache';
import { releaseStatusOf } from './release-record';

/** Options of {@link createSqlReleaseGate}. */
export interface SqlReleaseGateOptions {
  /**
   * How long an answer is reused without a query, in milliseconds (default 2000; `0` turns the cache
   * off). Changes made through this instance's Admin API are seen at once; changes made on another
   * instance at once when the server relays the PostgreSQL notices ({@link applyReleaseChangeNotice}),
   * else after at most this long.
   */
  readonly cacheTtlMs?: number;
  /** Products whose answers are kept (default 1000) and lookups kept per product (default 4096). */
  readonly maxCachedProducts?: number;
  readonly maxCachedLookupsPerProduct?: number;
  /** Time source of the TTL (the wall clock by default). */
  readonly clock?: Clock;
  /** Where release changes are announced (the database handle's channel by default: `releaseChangesOf(sql)`). */
  readonly changes?: ReleaseChanges;
}

/** The SQL {@link ReleaseGate}, with `close()` to stop listening for release changes. */
export interface SqlReleaseGate extends ReleaseGate {
  close(): void;
}

/** Default TTL of the gate's answers: the staleness bound across instances. */
export const defaultReleaseGateTtlMs = 2000;

type JudgeRow = {
  security_floor: number;
  gated: boolean;
  release_id: string | null;
  build_fingerprint: string | null;
  variant_id: string;
  app_version: string;
  channel: string;
  state: ReleaseState;
  compromise_action: CompromiseAction | null;
};

// One statement, three index probes: the product's primary key, the release by primary key or by
// (product, build fingerprint), and whether the product has any release at all.
const judgeSql = (match: string) =>
  `SELECT p.security_floor,
          EXISTS (SELECT 1 FROM license_releases g WHERE g.product_id = p.product_id) AS gated,
          r.release_id, r.build_fingerprint, r.variant_id, r.app_version, r.channel, r.state, r.compromise_action
   FROM license_products p
   LEFT JOIN license_releases r ON r.product_id = p.product_id AND ${match}
   WHERE p.product_id = $1`;
const byReleaseId = judgeSql('r.release_id = $2');
const byFingerprint = judgeSql('r.build_fingerprint = $2');
const productOnly = judgeSql('false');

function judgementOf(row: JudgeRow | undefined, buildFingerprint: string | undefined): ReleaseJudgement {
  if (row === undefined) return { kind: 'unknown', gated: false };
  // The release id wins, but a build that names a release and reports another build's fingerprint is not that release.
  if (row.release_id === null || (buildFingerprint !== undefined && row.build_fingerprint !== buildFingerprint)) return { kind: 'unknown', gated: row.gated };
  return {
    kind: 'known',
    releaseId: row.release_id,
    variantId: row.variant_id,
    appVersion: row.app_version,
    channel: row.channel,
    state: row.state,
    compromiseAction: row.compromise_action,
    releaseStatus: releaseStatusOf(row.state),
    forceUpgrade: row.state === 'compromised' && row.compromise_action === 'force_upgrade',
    securityFloor: Number(row.security_floor),
  };
}

/**
 * The {@link ReleaseGate} over the release registry (license migration 009): one indexed statement per
 * judgement, answers cached per product for `cacheTtlMs`. The cache is dropped for a product when its
 * releases change through the Admin API of this process (announced on `releaseChangesOf(sql)` right away
 * and again after commit), so this instance never serves a state older than its own last change. A
 * change made on another instance (or by any other statement) reaches it through the PostgreSQL notice
 * of license migration 009 once the server relays it onto the same channel
 * ({@link applyReleaseChangeNotice}); without the relay, or while its connection is down, answers are
 * at most `cacheTtlMs` old. A product the service does not know is judged
 * `unknown` and not gated, with floor 0.
 *
 * @param sql - The database itself (the same handle the Admin API was built over, so changes reach the cache).
 * @param options - TTL, bounds, clock, change channel.
 * @returns The gate; `close()` stops listening for changes.
 * @example
 * ```ts
 * import { createSqlReleaseGate } from '@tollgate/core/license';
 * const gate = createSqlReleaseGate(sql);
 * const judgement = await gate.judge({ productId, buildFingerprint: clientInfo.buildFingerprint, releaseId: clientInfo.releaseId });
 * const refuse = judgement.kind === 'unknown' ? judgement.gated : judgement.compromiseAction === 'revoke';
 * ```
 */
export function createSqlReleaseGate(sql: SqlClient, options: SqlReleaseGateOptions = {}): SqlReleaseGate {
  const clock = options.clock ?? systemClock;
  const cache = new ReleaseJudgementCache({
    ttlMs: options.cacheTtlMs ?? defaultReleaseGateTtlMs,
    maxProducts: options.maxCachedProducts ?? 1000,
    maxPerProduct: options.maxCachedLookupsPerProduct ?? 4096,
  });
  const stopListening = (options.changes ?? releaseChangesOf(sql)).subscribe((productId) => cache.invalidate(productId));

  return {
    async judge(input) {
      const releaseId = input.releaseId === undefined ? undefined : hexEncode(input.releaseId);
      const fingerprint = input.buildFingerprint === undefined ? undefined : hexEncode(input.buildFingerprint);
      const lookupKey = `${releaseId ?? ''}/${fingerprint ?? ''}`;
      const cached = cache.judgement(input.productId, lookupKey, clock.now());
      if (cached !== undefined) return cached;

      const ticket = cache.ticket();
      const { rows } =
        releaseId !== undefined
          ? await sql.query<JudgeRow>(byReleaseId, [input.productId, releaseId])
          : fingerprint !== undefined
            ? await sql.query<JudgeRow>(byFingerprint, [input.productId, fingerprint])
            : await sql.query<JudgeRow>(productOnly, [input.productId]);
      const judgement = judgementOf(rows[0], releaseId === undefined ? undefined : fingerprint);
      const now = clock.now();
      cache.storeJudgement(input.productId, lookupKey, judgement, ticket, now);
      cache.storeFloor(input.productId, rows[0] === undefined ? 0 : Number(rows[0].security_floor), ticket, now);
      return judgement;
    },

    async securityFloor(productId) {
      const cached = cache.floor(productId, clock.now());
      if (cached !== undefined) return cached;
      const ticket = cache.ticket();
      const { rows } = await sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1', [productId]);
      const floor = rows[0] === undefined ? 0 : Number(rows[0].security_floor);
      cache.storeFloor(productId, floor, ticket, clock.now());
      return floor;
    },

    close: stopListening,
  };
}
