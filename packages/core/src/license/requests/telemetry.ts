import * as v from 'valibot';
import { encodeCanonical } from '../../cbor';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { textSchema, uintSchema } from '../schemas';

/**
 * Largest canonical encoding of a telemetry block, in bytes (the spec's cap).
 *
 * @example
 * ```ts
 * import { encodeCanonical } from '@tollgate/core/cbor';
 * import { maxTelemetryBlockBytes } from '@tollgate/core/license';
 * const fits = encodeCanonical(block).length <= maxTelemetryBlockBytes;
 * ```
 */
export const maxTelemetryBlockBytes = 512;

/**
 * The optional, privacy-gated usage block at key 11 of a ValidateRequest. The decoder checks shapes and
 * the 512-byte cap; the field caps of the spec (10,000 sessions, 64 features of at most 128 characters,
 * 10,000 hits, 0–28 active days) are *clipped* by the server and counted as anomalies, not refused,
 * so a slightly-off client never loses its validation.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | consentVersion | uint, 0 = no consent (the block is then dropped) |
 * | 1 | windowStart | uint, server-supplied marker, passed through |
 * | 2 | sessionCount | uint |
 * | 3 | sessionDurationHistogram | array of 4 uint: < 5 min, < 30 min, < 2 h, ≥ 2 h |
 * | 4 | featureHits | map text → uint |
 * | 5 | daysActive | uint |
 */
export interface TelemetryBlock {
  consentVersion: number;
  windowStart: number;
  sessionCount: number;
  sessionDurationHistogram: number[];
  featureHits: Map<string, number>;
  daysActive: number;
}

/** Layout of {@link TelemetryBlock}, including the 512-byte cap on its canonical encoding. */
export const telemetryBlockSpec: CborRecordSpec<TelemetryBlock> = cborRecord(
  'TelemetryBlock',
  {
    consentVersion: field(0, uintSchema),
    windowStart: field(1, uintSchema),
    sessionCount: field(2, uintSchema),
    sessionDurationHistogram: field(3, v.pipe(v.array(uintSchema), v.length(4, 'expected 4 histogram buckets'))),
    featureHits: field(4, v.map(textSchema(1, 512), uintSchema)),
    daysActive: field(5, uintSchema),
  },
  // Canonical re-encoding is byte-exact, so this measures the block exactly as it was sent.
  (block) => (encodeCanonical(telemetryBlockSpec.toCbor(block)).length <= maxTelemetryBlockBytes ? undefined : `at most ${maxTelemetryBlockBytes} bytes`),
);
