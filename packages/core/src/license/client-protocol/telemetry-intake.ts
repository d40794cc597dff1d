import type { TelemetryBlock } from '../requests/telemetry';
import { counterIncrementSql, randomCounterShard, utcDayOf, type TelemetryCounterName } from '../telemetry/telemetry-counters';
import { deriveTelemetryPseudonymKey, telemetrySubject } from '../telemetry/telemetry-pseudonym';
import type { ClientProtocolNotice, ClientProtocolDeps } from './client-protocol-deps';
import type { SessionMachine } from './session-store';

/** The spec's field caps of a telemetry block ("Telemetry block" table). */
export const telemetryFieldCaps = Object.freeze({ sessionCount: 10_000, features: 64, featureIdChars: 128, featureHits: 10_000, daysActive: 28 });

/** What clipping changed in a block: the anomaly names the operational counters count. */
export type TelemetryAnomaly = 'session_count_clipped' | 'session_duration_clipped' | 'feature_key_dropped' | 'feature_hits_clipped' | 'days_active_clipped';

const anomalyNames: readonly TelemetryAnomaly[] = ['session_count_clipped', 'session_duration_clipped', 'feature_key_dropped', 'feature_hits_clipped', 'days_active_clipped'];

/** A gate that dropped a block (spec rule 1), as its counter names it. */
export type TelemetryGate = 't1.tier_gate' | 't1.no_consent';

/** Control characters: an id holding one is no feature name, and PostgreSQL's jsonb refuses `\u0000`. */
const controlCharacter = /[\u0000-\u001f\u007f]/;

/**
 * Clips a decoded block to the spec's field caps instead of refusing it (a slightly-off client never
 * loses its validation, nor its whole block): `session_count` to 10,000, `days_active` to 28, each
 * feature's hits to 10,000; each histogram bucket to the (clipped) session count and, when the buckets
 * still add up to more sessions than the block reports, all of them scaled down (rounding down) so they
 * sum to at most `session_count` (`session_duration_clipped`): no stored number can exceed 10,000, so
 * the rollup's sums cannot overflow. Feature ids longer than 128 characters or holding control
 * characters, and the features after the first 64 in the block's canonical key order, are dropped (the
 * catalog allow-list is applied when storing, see {@link storeTelemetryBlock}). Each kind of change is
 * reported once.
 *
 * @param block - A block that passed the layout and 512-byte checks.
 * @returns The clipped block and the anomalies (empty when nothing changed).
 * @example
 * ```ts
 * import { clipTelemetryBlock } from './telemetry-intake';
 * const { block, anomalies } = clipTelemetryBlock(decoded); // anomalies: ['session_count_clipped']
 * ```
 */
export function clipTelemetryBlock(block: TelemetryBlock): { block: TelemetryBlock; anomalies: TelemetryAnomaly[] } {
  const anomalies = new Set<TelemetryAnomaly>();
  const caps = telemetryFieldCaps;
  const featureHits = new Map<string, number>();
  for (const [id, hits] of block.featureHits) {
    // Characters, not bytes: the cap is written in characters ("128-character ids").
    if ([...id].length > caps.featureIdChars || controlCharacter.test(id) || featureHits.size === caps.features) {
      anomalies.add('feature_key_dropped');
      continue;
    }
    if (hits > caps.featureHits) anomalies.add('feature_hits_clipped');
    featureHits.set(id, Math.min(hits, caps.featureHits));
  }
  if (block.sessionCount > caps.sessionCount) anomalies.add('session_count_clipped');
  if (block.daysActive > caps.daysActive) anomalies.add('days_active_clipped');
  const sessionCount = Math.min(block.sessionCount, caps.sessionCount);
  const sessionDurationHistogram = clipHistogram(block.sessionDurationHistogram, sessionCount);
  if (sessionDurationHistogram.some((bucket, index) => bucket !== block.sessionDurationHistogram[index])) anomalies.add('session_duration_clipped');
  return {
    block: { ...block, sessionCount, sessionDurationHistogram, daysActive: Math.min(block.daysActive, caps.daysActive), featureHits },
    anomalies: [...anomalies],
  };
}

/**
 * Each bucket to at most `sessions`, then, if they still sum past it, every bucket scaled by
 * `sessions / sum` rounding down (the shape is kept, the sum ends at most `sessions`). The products
 * stay below 10,000², exact in a double.
 */
function clipHistogram(buckets: readonly number[], sessions: number): number[] {
  const capped = buckets.map((bucket) => Math.min(bucket, sessions));
  const sum = capped.reduce((total, bucket) => total + bucket, 0);
  return sum <= sessions ? capped : capped.map((bucket) => Math.floor((bucket * sessions) / sum));
}

/**
 * The two independent gates of spec rule 1, each reported on its own (a block failing both counts in
 * both counters, so each counter answers "how many blocks did this gate stop").
 *
 * @param policyTelemetry - The policy's `telemetry` setting.
 * @param block - The decoded block.
 * @returns The gates that drop the block (empty: it passes).
 */
export function telemetryGates(policyTelemetry: 'off' | 't1', block: Pick<TelemetryBlock, 'consentVersion'>): TelemetryGate[] {
  const dropped: TelemetryGate[] = [];
  if (policyTelemetry !== 't1') dropped.push('t1.tier_gate');
  if (!(block.consentVersion > 0)) dropped.push('t1.no_consent');
  return dropped;
}

/**
 * Stores the block and counts it, in one statement: the raw row, keyed by the machine's pseudonym, and
 * `t1.stored` plus the anomalies commit together or not at all. The row is written only while the
 * machine still exists, under `FOR KEY SHARE` on its row: an erasure (which locks the machine `FOR
 * UPDATE`) either waits for this statement, and its cascade then deletes the row, or runs first, and
 * then nothing is written, so no block outlives the machine's erasure (as the foreign key of a plain
 * `machine_id` column would guarantee).
 *
 * Two rules ride in the same statement, so they cost no round trip and see the committed state:
 * - the allow-list: only feature ids of the product's catalog (`license_catalog_items`, kind `feature`)
 *   are kept; any other id is dropped and counted `feature_key_dropped`. Read in the statement, not
 *   cached: a feature added to the catalog counts from its next block on, on every instance.
 * - one block per machine and UTC day: `received_at` is the day (migration 018's unique index on
 *   subject and day); a second block of the day is not stored (`ON CONFLICT DO NOTHING`) and counted
 *   `t1.duplicate_window`.
 * `RETURNING counter` tells the caller which counters moved, hence what happened.
 */
const storeBlockSql = `WITH machine AS (SELECT 1 FROM license_machines WHERE machine_id = $6 FOR KEY SHARE),
  sent AS (SELECT key, value FROM jsonb_each($15::jsonb)),
  listed AS (
    SELECT sent.key, sent.value FROM sent
    WHERE EXISTS (SELECT 1 FROM license_catalog_items c WHERE c.product_id = $2 AND c.kind = 'feature' AND c.item_id = sent.key)
  ),
  stored AS (
    INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count,
      duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
    SELECT $1, $2, $7, $8, $9, $10, $11, $12, $13, $14, COALESCE((SELECT jsonb_object_agg(key, value) FROM listed), '{}'::jsonb), $16, $17 FROM machine
    ON CONFLICT DO NOTHING
    RETURNING 1
  ),
  counted AS (
    SELECT unnest($5::text[]) AS name WHERE EXISTS (SELECT 1 FROM stored)
    UNION SELECT 'feature_key_dropped' WHERE EXISTS (SELECT 1 FROM stored) AND (SELECT count(*) FROM listed) < (SELECT count(*) FROM sent)
    UNION SELECT 't1.duplicate_window' WHERE EXISTS (SELECT 1 FROM machine) AND NOT EXISTS (SELECT 1 FROM stored)
  )
  INSERT INTO license_telemetry_counters (vendor_id, product_id, counter, day, shard, count)
  SELECT $1, $2, name, $3::date, $4, 1 FROM counted ORDER BY name
  ON CONFLICT (vendor_id, product_id, counter, day, shard) DO UPDATE SET count = license_telemetry_counters.count + 1
  RETURNING counter`;

/**
 * The UTC day an instant falls in, as its midnight: what `received_at` holds. A raw row then carries no
 * time of day, so it cannot be joined to `license_machines.last_validated_at` (or any event time) to
 * name its machine; rollups and the purge work on UTC days anyway.
 *
 * @param at - The validation's time.
 * @returns Midnight UTC of its day.
 * @example
 * ```ts
 * import { telemetryReceivedDay } from '@tollgate/core/license';
 * telemetryReceivedDay(new Date('2026-05-01T17:42:09Z')).toISOString(); // '2026-05-01T00:00:00.000Z'
 * ```
 */
export function telemetryReceivedDay(at: Date): Date {
  return new Date(`${utcDayOf(at)}T00:00:00.000Z`);
}

/**
 * The window marker a ticket carries (key 16) when the policy permits telemetry: the UTC day the server
 * would file a block under now, in unix seconds. A device passes it through as `window_start` and sends a
 * window's block once a later ticket names a later day, so its block is never the day's second
 * (`t1.duplicate_window`, dropped).
 *
 * @param nowSeconds - The validation's time (unix seconds).
 * @returns Midnight UTC of that day, in unix seconds.
 * @example
 * ```ts
 * import { telemetryWindowOf } from '@tollgate/core/license';
 * telemetryWindowOf(Date.parse('2026-05-01T17:42:09Z') / 1000); // 1777593600 (2026-05-01T00:00:00Z)
 * ```
 */
export function telemetryWindowOf(nowSeconds: number): number {
  return telemetryReceivedDay(new Date(nowSeconds * 1000)).getTime() / 1000;
}

/** What the intake did with a block. */
export interface TelemetryIntakeOutcome {
  readonly stored: boolean;
  /** It passed the gates but the machine already has a block for this UTC day (`t1.duplicate_window`). */
  readonly duplicate: boolean;
  /** The gates that dropped it (empty when it passed both). */
  readonly dropped: readonly TelemetryGate[];
  /** What clipping changed (only for a block that passed the gates). */
  readonly anomalies: readonly TelemetryAnomaly[];
}

/**
 * The intake of a validate's telemetry block (spec "Telemetry block" rules 1–3). The two gates first:
 * the machine's policy must permit telemetry (`telemetry: "t1"`) and `consent_version` must be > 0; a
 * dropped block is only counted (`t1.tier_gate`, `t1.no_consent`), nothing of it is kept. A block that
 * passes is clipped to the field caps, its feature ids filtered through the product catalog, and stored
 * under the machine's pseudonym (no machine or license id, no address, only the UTC day of receipt; at
 * most one block per machine and day), counted as `t1.stored` plus one count per clip anomaly. The
 * caller stores only blocks from the device the credential was issued to (same fingerprint). Counters are durable rows
 * written by the same statement as the block (see migration 018). Best effort by design: a failure is
 * reported through `notify` (`telemetry_not_stored`) and never fails the validation it rode on.
 *
 * @param deps - The database, the master key (pseudonym subkey) and `notify`.
 * @param machine - The validated machine and its policy.
 * @param block - The decoded block.
 * @param receivedAt - The validation's time (stored as its UTC day).
 * @returns What happened to the block.
 * @example
 * ```ts
 * import { storeTelemetryBlock } from '@tollgate/core/license';
 * const { stored, duplicate, dropped, anomalies } = await storeTelemetryBlock(context, machine, telemetry, new Date());
 * ```
 */
export async function storeTelemetryBlock(
  deps: Pick<ClientProtocolDeps, 'sql' | 'masterKey'> & { notify?: (notice: ClientProtocolNotice) => void },
  machine: Pick<SessionMachine, 'vendorId' | 'productId' | 'machineId'> & { readonly policy: { readonly telemetry: 'off' | 't1' } },
  block: TelemetryBlock,
  receivedAt: Date,
): Promise<TelemetryIntakeOutcome> {
  const dropped = telemetryGates(machine.policy.telemetry, block);
  const counted = [machine.vendorId, machine.productId, utcDayOf(receivedAt), randomCounterShard()];
  try {
    if (dropped.length > 0) {
      await deps.sql.query(counterIncrementSql, [...counted, [...dropped].sort()]);
      return { stored: false, duplicate: false, dropped, anomalies: [] };
    }
    const { block: clipped, anomalies } = clipTelemetryBlock(block);
    const names: TelemetryCounterName[] = ['t1.stored', ...anomalies];
    const [under5m, under30m, under2h, over2h] = clipped.sessionDurationHistogram;
    const { rows } = await deps.sql.query<{ counter: string }>(storeBlockSql, [
      ...counted,
      names.sort(),
      machine.machineId,
      telemetrySubject(deriveTelemetryPseudonymKey(deps.masterKey), machine.machineId),
      clipped.consentVersion,
      clipped.windowStart,
      clipped.sessionCount,
      under5m,
      under30m,
      under2h,
      over2h,
      JSON.stringify(Object.fromEntries(clipped.featureHits)),
      clipped.daysActive,
      telemetryReceivedDay(receivedAt),
    ]);
    const moved = new Set(rows.map((row) => row.counter));
    const stored = moved.has('t1.stored');
    return { stored, duplicate: moved.has('t1.duplicate_window'), dropped, anomalies: stored ? anomalyNames.filter((name) => moved.has(name)) : [] };
  } catch (error) {
    deps.notify?.({ kind: 'telemetry_not_stored', machineId: machine.machineId, error });
    return { stored: false, duplicate: false, dropped, anomalies: [] };
  }
}
