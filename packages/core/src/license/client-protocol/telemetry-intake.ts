import { encodeRecord } from '../record-codec';
import { telemetryBlockSpec, type TelemetryBlock } from '../requests/telemetry';
import type { ClientProtocolNotice, ClientProtocolDeps } from './client-protocol-deps';
import type { SessionMachine } from './session-store';

/** The spec's field caps of a telemetry block ("Telemetry block" table). */
export const telemetryFieldCaps = Object.freeze({ sessionCount: 10_000, features: 64, featureIdChars: 128, featureHits: 10_000, daysActive: 28 });

/** What clipping changed in a block: the anomaly names the telemetry rollups count. */
export type TelemetryAnomaly = 'session_count_clipped' | 'feature_key_dropped' | 'feature_hits_clipped' | 'days_active_clipped';

/**
 * Clips a decoded block to the spec's field caps instead of refusing it (a slightly-off client never
 * loses its validation, nor its whole block): `session_count` to 10,000, `days_active` to 28, each
 * feature's hits to 10,000; feature ids longer than 128 characters, and the features after the first
 * 64 in the block's canonical key order, are dropped. Each kind of change is reported once.
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
    if ([...id].length > caps.featureIdChars || featureHits.size === caps.features) {
      anomalies.add('feature_key_dropped');
      continue;
    }
    if (hits > caps.featureHits) anomalies.add('feature_hits_clipped');
    featureHits.set(id, Math.min(hits, caps.featureHits));
  }
  if (block.sessionCount > caps.sessionCount) anomalies.add('session_count_clipped');
  if (block.daysActive > caps.daysActive) anomalies.add('days_active_clipped');
  return {
    block: { ...block, sessionCount: Math.min(block.sessionCount, caps.sessionCount), daysActive: Math.min(block.daysActive, caps.daysActive), featureHits },
    anomalies: [...anomalies],
  };
}

/**
 * Stores a telemetry block that passed both gates (the caller checked the policy's `telemetry: "t1"` and
 * `consent_version > 0`), clipped to the field caps, as its canonical CBOR for the telemetry rollups to
 * read. Best effort by design: a failure is reported through `notify` (`telemetry_not_stored`) and never
 * fails the validation it rode on (spec: validation never fails because of telemetry).
 *
 * @param deps - The database.
 * @param machine - The validated machine.
 * @param block - The decoded block.
 * @param receivedAt - The validation's time.
 * @returns Whether the block was stored, and what clipping changed.
 * @example
 * ```ts
 * import { storeTelemetryBlock } from '@tollgate/core';
 * const { stored, anomalies } = await storeTelemetryBlock(context, machine, telemetry, new Date());
 * ```
 */
export async function storeTelemetryBlock(
  deps: Pick<ClientProtocolDeps, 'sql'> & { notify?: (notice: ClientProtocolNotice) => void },
  machine: Pick<SessionMachine, 'vendorId' | 'productId' | 'machineId'>,
  block: TelemetryBlock,
  receivedAt: Date,
): Promise<{ stored: boolean; anomalies: TelemetryAnomaly[] }> {
  const clipped = clipTelemetryBlock(block);
  try {
    await deps.sql.query('INSERT INTO license_telemetry_raw (vendor_id, product_id, machine_id, consent_version, block, received_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      machine.vendorId,
      machine.productId,
      machine.machineId,
      clipped.block.consentVersion,
      encodeRecord(telemetryBlockSpec, clipped.block),
      receivedAt,
    ]);
    return { stored: true, anomalies: clipped.anomalies };
  } catch (error) {
    deps.notify?.({ kind: 'telemetry_not_stored', machineId: machine.machineId, error });
    return { stored: false, anomalies: clipped.anomalies };
  }
}
