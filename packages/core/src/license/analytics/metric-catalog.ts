/** Dimensions of the detail-event metrics (columns of the exact rollups and sketches). */
export const eventDimensions = Object.freeze(['product_id', 'policy_id', 'tier', 'release_id', 'platform'] as const);

/** A dimension a metric can be grouped by. */
export type MetricDimension = (typeof eventDimensions)[number] | 'duration_bucket' | 'feature';

/** Where a metric's values come from, and how they combine over days and groups. */
export type MetricSource =
  | { readonly table: 'events'; readonly kind: 'activation' | 'check_in' }
  | { readonly table: 'event_sketches'; readonly sketch: 'devices' | 'licenses' }
  | { readonly table: 't1'; readonly measure: 'blocks' | 'sessions' | 'days_active' | 'session_duration' | 'feature_hits' }
  | { readonly table: 't1_sketches' };

/** One metric of the catalog (GET /v1/admin/analytics/definitions). */
export interface MetricDefinition {
  readonly id: string;
  readonly unit: string;
  readonly description: string;
  /** `sum` adds exact counts; `distinct` merges HyperLogLog sketches (an estimate, ±0.81 % standard error). */
  readonly aggregation: 'sum' | 'distinct';
  readonly dimensions: readonly MetricDimension[];
  readonly source: MetricSource;
}

const t1Dimensions = ['product_id'] as const;

/**
 * The metric catalog: what `/analytics/metrics` answers and subscriptions may ask for. Every bucket of
 * every metric is suppressed (value `null`, `suppressed: true`) when fewer than the k-anonymity
 * threshold of distinct devices stand behind it.
 *
 * @example
 * ```ts
 * import { analyticsMetricCatalog } from '@tollgate/core/license';
 * const ids = analyticsMetricCatalog.map((metric) => metric.id);
 * ```
 */
export const analyticsMetricCatalog: readonly MetricDefinition[] = Object.freeze([
  { id: 'activations', unit: 'events', aggregation: 'sum', dimensions: eventDimensions, source: { table: 'events', kind: 'activation' }, description: 'Successful activations (new seats and re-activations), online and offline.' },
  { id: 'check_ins', unit: 'events', aggregation: 'sum', dimensions: eventDimensions, source: { table: 'events', kind: 'check_in' }, description: 'Successful check-ins: authenticated validations recorded on an active machine.' },
  { id: 'active_devices', unit: 'devices', aggregation: 'distinct', dimensions: eventDimensions, source: { table: 'event_sketches', sketch: 'devices' }, description: 'Distinct devices with an activation or check-in (HyperLogLog estimate).' },
  { id: 'active_licenses', unit: 'licenses', aggregation: 'distinct', dimensions: eventDimensions, source: { table: 'event_sketches', sketch: 'licenses' }, description: 'Distinct licenses with an activation or check-in (HyperLogLog estimate).' },
  { id: 't1_reports', unit: 'blocks', aggregation: 'sum', dimensions: t1Dimensions, source: { table: 't1', measure: 'blocks' }, description: 'T1 telemetry blocks accepted (both gates passed).' },
  { id: 't1_sessions', unit: 'sessions', aggregation: 'sum', dimensions: t1Dimensions, source: { table: 't1', measure: 'sessions' }, description: 'Sessions reported in T1 blocks (after clipping to 10,000 per block).' },
  { id: 't1_days_active', unit: 'device-days', aggregation: 'sum', dimensions: t1Dimensions, source: { table: 't1', measure: 'days_active' }, description: 'Sum of the active days reported in T1 blocks (0 to 28 each).' },
  { id: 't1_session_durations', unit: 'sessions', aggregation: 'sum', dimensions: ['product_id', 'duration_bucket'], source: { table: 't1', measure: 'session_duration' }, description: 'Sessions by duration bucket: lt_5m, lt_30m, lt_2h, ge_2h.' },
  { id: 't1_feature_hits', unit: 'hits', aggregation: 'sum', dimensions: ['product_id', 'feature'], source: { table: 't1', measure: 'feature_hits' }, description: 'Feature hits reported in T1 blocks, by allow-listed feature id.' },
  { id: 't1_reporting_devices', unit: 'devices', aggregation: 'distinct', dimensions: t1Dimensions, source: { table: 't1_sketches' }, description: 'Distinct devices that sent a T1 block (HyperLogLog estimate).' },
] satisfies MetricDefinition[]);

/** The catalog by id. */
export const analyticsMetricsById: ReadonlyMap<string, MetricDefinition> = new Map(analyticsMetricCatalog.map((metric) => [metric.id, metric]));
