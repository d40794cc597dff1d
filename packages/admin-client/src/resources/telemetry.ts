import * as v from 'valibot';
import type { AdminTransport, DestructiveOptions, ReadOptions } from '../transport-types';

/** The answer of `GET /telemetry/counters`: operational counters per UTC day and product, and their totals. */
export const TelemetryCountersSchema = v.looseObject({
  from: v.string(),
  to: v.string(),
  product_id: v.nullable(v.string()),
  /** Counter name (`t1.stored`, `t1.no_consent`, …) → total over the range. */
  totals: v.record(v.string(), v.number()),
  days: v.array(v.looseObject({ day: v.string(), product_id: v.string(), counter: v.string(), count: v.number() })),
});
/** The answer of `telemetry.counters()`. */
export type TelemetryCounters = v.InferOutput<typeof TelemetryCountersSchema>;

const purgeEntries = { cutoff: v.string(), before: v.nullable(v.string()), retention_days: v.number() };

/** The answer of `POST /telemetry/purge`: narrow on `dry_run`. */
export const TelemetryPurgeResultSchema = v.variant('dry_run', [
  v.looseObject({ dry_run: v.literal(true), ...purgeEntries, raw_records: v.number(), rollup_rows: v.number() }),
  v.looseObject({ dry_run: v.literal(false), ...purgeEntries, deleted_raw_records: v.number(), deleted_rollup_rows: v.number(), journaled: v.boolean() }),
]);
/** The answer of `telemetry.purge()`. */
export type TelemetryPurgeResult = v.InferOutput<typeof TelemetryPurgeResultSchema>;

/** The range of `telemetry.counters()`: default the last 30 days, at most 366. */
export interface TelemetryCountersQuery {
  /** `YYYY-MM-DD`, inclusive. */
  readonly from?: string;
  readonly to?: string;
  readonly productId?: string;
}

/** What `telemetry.purge()` removes beyond the retention window. */
export interface TelemetryPurgeInput {
  /** `YYYY-MM-DD`, today or earlier: also removes the rollups of days before it (and raw rows, when later than the cutoff). */
  readonly before?: string;
}

/** The `telemetry` group. */
export interface TelemetryResource {
  /** `GET /telemetry/counters` (scope `analytics:r`). */
  counters(query?: TelemetryCountersQuery, options?: ReadOptions): Promise<TelemetryCounters>;
  /**
   * `POST /telemetry/purge` (scope `dsr:rw`; destructive: a dry run unless `dryRun: false`).
   *
   * @example
   * ```ts
   * const preview = await admin.telemetry.purge({ before: '2025-01-01' });
   * if (preview.dry_run) console.log(preview.raw_records, preview.rollup_rows);
   * ```
   */
  purge(input?: TelemetryPurgeInput, options?: DestructiveOptions): Promise<TelemetryPurgeResult>;
}

/**
 * Builds the `telemetry` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const { totals } = await admin.telemetry.counters({ from: '2025-03-01', to: '2025-03-31' });
 * ```
 */
export function createTelemetryResource(transport: AdminTransport): TelemetryResource {
  return {
    counters: async (query = {}, options) =>
      (
        await transport.request({
          method: 'GET',
          path: '/telemetry/counters',
          kind: 'read',
          query: { from: query.from, to: query.to, product_id: query.productId },
          schema: TelemetryCountersSchema,
          options,
        })
      ).body,
    purge: async (input, options) =>
      (
        await transport.request({
          method: 'POST',
          path: '/telemetry/purge',
          kind: 'destructive',
          ...(input?.before === undefined ? {} : { body: { before: input.before } }),
          schema: TelemetryPurgeResultSchema,
          options,
        })
      ).body,
  };
}
