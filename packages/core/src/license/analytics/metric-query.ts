import { AdminError } from '../../errors/admin';
import type { SqlClient, SqlParam } from '../../storage/sql-client';
import { addDays, bucketStartOf, daysBetween, isAnalyticsDay, type MetricGranularity } from './analytics-days';
import { analyticsMetricsById, type MetricDefinition, type MetricDimension } from './metric-catalog';
import { HyperLogLog } from './hll';

/** A validated metric query (see {@link parseMetricQuery}). */
export interface MetricQuery {
  readonly ids: readonly string[];
  /** First UTC day, inclusive. */
  readonly from: string;
  /** Last UTC day, inclusive. */
  readonly to: string;
  readonly granularity: MetricGranularity;
  readonly groupBy: readonly MetricDimension[];
}

/** Bounds of a metric query. */
export interface MetricQueryLimits {
  /** Longest range in days (`to - from + 1`). */
  readonly maxDays: number;
  /** Most series (distinct groups) one metric may answer. */
  readonly maxSeries: number;
}

/** Default bounds: 400 days, 500 series per metric. */
export const defaultMetricQueryLimits: MetricQueryLimits = Object.freeze({ maxDays: 400, maxSeries: 500 });

const maxMetricIds = 10;
const maxGroupBy = 3;

function listOf(value: unknown, field: string): string[] {
  if (value === undefined || value === '') return [];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (items === undefined || items.some((item) => typeof item !== 'string')) throw new AdminError('invalid_request', `Invalid request. ${field}: a comma-separated list.`);
  return (items as string[]).map((item) => item.trim()).filter((item) => item.length > 0);
}

function refuse(message: string): never {
  throw new AdminError('invalid_request', `Invalid request. ${message}`);
}

/**
 * Validates a metric query shaped like the route's query string: `ids` (comma-separated or an array, 1 to
 * 10 catalog ids), `from` and `to` (`YYYY-MM-DD`, inclusive, at most `maxDays` apart), `granularity`
 * (`day` by default, `week` buckets start on Monday, `month` on the 1st) and `group_by` (up to 3
 * dimensions every requested metric has).
 *
 * @param input - The query.
 * @param limits - The bounds (defaults: {@link defaultMetricQueryLimits}).
 * @returns The query.
 * @throws AdminError `invalid_request` naming the field.
 * @example
 * ```ts
 * import { parseMetricQuery } from '@tollgate/core/license';
 * const query = parseMetricQuery({ ids: 'activations,active_devices', from: '2025-03-01', to: '2025-03-31', granularity: 'week', group_by: 'tier' });
 * ```
 */
export function parseMetricQuery(input: Readonly<Record<string, unknown>>, limits: Pick<MetricQueryLimits, 'maxDays'> = defaultMetricQueryLimits): MetricQuery {
  const known = new Set(['ids', 'from', 'to', 'granularity', 'group_by']);
  const unknown = Object.keys(input).filter((key) => !known.has(key));
  if (unknown.length > 0) refuse(`${unknown[0]}: not a parameter of a metric query (ids, from, to, granularity, group_by).`);
  const ids = [...new Set(listOf(input.ids, 'ids'))];
  if (ids.length === 0 || ids.length > maxMetricIds) refuse(`ids: 1 to ${maxMetricIds} metric ids (GET /v1/admin/analytics/definitions lists them).`);
  const unknownId = ids.find((id) => !analyticsMetricsById.has(id));
  if (unknownId !== undefined) refuse(`ids: unknown metric "${unknownId.slice(0, 64)}".`);
  if (!isAnalyticsDay(input.from)) refuse('from: a day as YYYY-MM-DD.');
  if (!isAnalyticsDay(input.to)) refuse('to: a day as YYYY-MM-DD.');
  const span = daysBetween(input.from, input.to);
  if (span < 0) refuse('to: on or after from.');
  if (span + 1 > limits.maxDays) refuse(`to: at most ${limits.maxDays} days after from (inclusive).`);
  const granularity = input.granularity ?? 'day';
  if (granularity !== 'day' && granularity !== 'week' && granularity !== 'month') refuse('granularity: day, week or month.');
  const groupBy = [...new Set(listOf(input.group_by, 'group_by'))];
  if (groupBy.length > maxGroupBy) refuse(`group_by: at most ${maxGroupBy} dimensions.`);
  for (const dimension of groupBy) {
    const without = ids.find((id) => !analyticsMetricsById.get(id)!.dimensions.includes(dimension as MetricDimension));
    if (without !== undefined) refuse(`group_by: metric "${without}" has no dimension "${dimension.slice(0, 64)}" (its dimensions: ${analyticsMetricsById.get(without)!.dimensions.join(', ')}).`);
  }
  return { ids, from: input.from, to: input.to, granularity, groupBy: groupBy as MetricDimension[] };
}

/** One point of a series: the bucket's first day and its value, or `null` when suppressed. */
export interface MetricPoint {
  readonly start: string;
  readonly value: number | null;
  readonly suppressed: boolean;
}

/** One metric for one group. */
export interface MetricSeries {
  readonly metric: string;
  readonly unit: string;
  /** The group's dimension values (`null`: none, e.g. a device on no registered release); `{}` without `group_by`. */
  readonly group: Readonly<Record<string, string | null>>;
  readonly points: readonly MetricPoint[];
}

/** The answer of a metric query (the body of GET /v1/admin/analytics/metrics, without `ok`). */
export interface MetricSeriesAnswer {
  readonly from: string;
  readonly to: string;
  readonly granularity: MetricGranularity;
  readonly group_by: readonly string[];
  readonly k_anonymity_threshold: number;
  readonly series: readonly MetricSeries[];
}

/**
 * A cell: one rollup row at its finest (one day, every dimension), with how many distinct devices stand
 * behind it and what it contributes. Suppression is decided per cell and every published number is
 * built from shown cells only (so no total, coarser group or longer bucket minus shown ones reveals a
 * suppressed cell).
 */
type Cell = { day: string; group: string[]; devices: number; value?: number; sketch?: Uint8Array };
type Accumulator = { value: number; sketch?: HyperLogLog; shown: boolean };

/** Most rollup rows one metric may read (count rows are small; a sketch row may hold 12 KB). */
export const metricQueryRowCaps = Object.freeze({ counts: 100_000, sketches: 10_000 });

const columnOf: Record<MetricDimension, string> = {
  product_id: 'product_id',
  policy_id: 'policy_id',
  tier: 'tier',
  release_id: 'release_id',
  platform: 'platform',
  duration_bucket: 'key',
  feature: 'key',
};

const eventCellColumns = ['product_id', 'policy_id', 'tier', 'release_id', 'platform'];

function tooMuch(metric: MetricDefinition): never {
  refuse(`from: metric "${metric.id}" covers too many rollup rows for one query; shorten the range.`);
}

async function capped(sql: SqlClient, metric: MetricDefinition, text: string, params: SqlParam[], cap: number): Promise<Record<string, unknown>[]> {
  const { rows } = await sql.query<Record<string, unknown>>(`${text} LIMIT ${cap + 1}`, params);
  if (rows.length > cap) tooMuch(metric);
  return rows;
}

async function cellsOf(sql: SqlClient, vendorId: string, metric: MetricDefinition, query: MetricQuery): Promise<Cell[]> {
  const dims = query.groupBy.map((dimension) => `${columnOf[dimension]} AS g${query.groupBy.indexOf(dimension)}`);
  const select = ["to_char(day, 'YYYY-MM-DD') AS day", ...dims].join(', ');
  const groupOf = (row: Record<string, unknown>) => query.groupBy.map((_, index) => String(row[`g${index}`]));
  const range = [vendorId, query.from, query.to];
  const where = 'vendor_id = $1 AND day BETWEEN $2::date AND $3::date';
  const source = metric.source;
  if (source.table === 'events') {
    const rows = await capped(sql, metric, `SELECT ${select}, events::text AS value, devices FROM license_analytics_daily WHERE ${where} AND kind = $4 ORDER BY day`, [...range, source.kind], metricQueryRowCaps.counts);
    return rows.map((row) => ({ day: String(row.day), group: groupOf(row), value: Number(row.value), devices: Number(row.devices) }));
  }
  if (source.table === 'event_sketches') {
    // A cell is a day and every dimension, both kinds merged: its devices are the union's estimate.
    const rows = await capped(
      sql,
      metric,
      `SELECT ${select}, ${eventCellColumns.map((column) => `${column} AS c_${column}`).join(', ')}, ${source.sketch} AS sketch, devices FROM license_analytics_sketches WHERE ${where} ORDER BY day, ${eventCellColumns.join(', ')}`,
      range,
      metricQueryRowCaps.sketches,
    );
    // Rows come in cell order, so each cell's two sketches are finished before the next one starts.
    const cells: Cell[] = [];
    let current: { key: string; day: string; group: string[]; sketch: HyperLogLog; devices: HyperLogLog } | undefined;
    const finish = () => {
      if (current !== undefined) cells.push({ day: current.day, group: current.group, sketch: current.sketch.toBytes(), devices: current.devices.estimate() });
    };
    for (const row of rows) {
      const key = JSON.stringify([row.day, ...eventCellColumns.map((column) => row[`c_${column}`])]);
      if (current?.key !== key) {
        finish();
        current = { key, day: String(row.day), group: groupOf(row), sketch: new HyperLogLog(), devices: new HyperLogLog() };
      }
      current.sketch.merge(HyperLogLog.fromBytes(row.sketch as Uint8Array));
      current.devices.merge(HyperLogLog.fromBytes(row.devices as Uint8Array));
    }
    finish();
    return cells;
  }
  if (source.table === 't1') {
    const rows = await capped(sql, metric, `SELECT ${select}, value::text AS value, devices FROM license_analytics_t1_daily WHERE ${where} AND measure = $4 ORDER BY day`, [...range, source.measure], metricQueryRowCaps.counts);
    return rows.map((row) => ({ day: String(row.day), group: groupOf(row), value: Number(row.value), devices: Number(row.devices) }));
  }
  const rows = await capped(sql, metric, `SELECT ${select}, devices FROM license_analytics_t1_sketches WHERE ${where} ORDER BY day`, range, metricQueryRowCaps.sketches);
  return rows.map((row) => ({ day: String(row.day), group: groupOf(row), sketch: row.devices as Uint8Array, devices: HyperLogLog.fromBytes(row.devices as Uint8Array).estimate() }));
}

function bucketStarts(query: MetricQuery): string[] {
  const starts: string[] = [];
  for (let day = query.from; daysBetween(day, query.to) >= 0; day = addDays(day, 1)) {
    const start = bucketStartOf(day, query.granularity);
    if (starts.at(-1) !== start) starts.push(start);
  }
  return starts;
}

async function seriesOf(sql: SqlClient, vendorId: string, metric: MetricDefinition, query: MetricQuery, options: { kAnonymityThreshold: number; maxSeries: number }): Promise<MetricSeries[]> {
  const cells = await cellsOf(sql, vendorId, metric, query);
  const starts = bucketStarts(query);
  const position = new Map(starts.map((start, index) => [start, index]));
  const groups = new Map<string, string[]>();
  const points = new Map<string, MetricPoint[]>();
  // Cells come in day order: each bucket's accumulators (and sketches) are finished before the next.
  let bucket: { start: string; accumulators: Map<string, Accumulator> } | undefined;
  const finish = () => {
    for (const [key, target] of bucket?.accumulators ?? []) {
      const value = target.sketch !== undefined ? target.sketch.estimate() : target.value;
      points.get(key)![position.get(bucket!.start)!] = target.shown ? { start: bucket!.start, value, suppressed: false } : { start: bucket!.start, value: null, suppressed: true };
    }
  };
  for (const cell of cells) {
    const key = JSON.stringify(cell.group);
    if (!groups.has(key)) {
      if (groups.size >= options.maxSeries) refuse(`group_by: more than ${options.maxSeries} series for metric "${metric.id}"; group by fewer dimensions or shorten the range.`);
      groups.set(key, cell.group);
      points.set(key, starts.map((start) => ({ start, value: 0, suppressed: false })));
    }
    const start = bucketStartOf(cell.day, query.granularity);
    if (bucket?.start !== start) {
      finish();
      bucket = { start, accumulators: new Map() };
    }
    const target = bucket.accumulators.get(key) ?? bucket.accumulators.set(key, { value: 0, shown: false }).get(key)!;
    // A cell behind fewer than k devices is left out of every number (never subtracted back out).
    if (cell.devices < options.kAnonymityThreshold) continue;
    target.shown = true;
    if (cell.value !== undefined) target.value += cell.value;
    if (cell.sketch !== undefined) (target.sketch ??= new HyperLogLog()).merge(HyperLogLog.fromBytes(cell.sketch));
  }
  finish();
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, group]) => ({
      metric: metric.id,
      unit: metric.unit,
      group: Object.fromEntries(query.groupBy.map((dimension, index) => [dimension, group[index] === '' ? null : group[index]!])),
      points: points.get(key)!,
    }));
}

/**
 * Answers a metric query from the rollup tables of one vendor: one series per metric and group, with a
 * point for every bucket of the range (0 where nothing happened). Suppression is per cell (one rollup
 * row: one day, every dimension, for counts of activations or check-ins the devices of that kind): a
 * cell behind fewer than `kAnonymityThreshold` distinct devices is left out of every number, so totals,
 * coarser groups and longer buckets are sums (or sketch merges) of shown cells only and no difference
 * of two answers reveals a suppressed cell. A bucket with data but no shown cell is `value: null,
 * suppressed: true`. Metrics without a group return one series with `group: {}` when they have data.
 * A metric reading more than {@link metricQueryRowCaps} rollup rows is refused.
 *
 * @param sql - The database.
 * @param vendorId - The caller's vendor.
 * @param query - From {@link parseMetricQuery}.
 * @param options - The k-anonymity threshold and the series cap.
 * @returns The answer, JSON-ready.
 * @throws AdminError `invalid_request` when a metric would answer more than `maxSeries` series.
 * @example
 * ```ts
 * import { parseMetricQuery, queryMetricSeries } from '@tollgate/core/license';
 * const answer = await queryMetricSeries(sql, vendorId, parseMetricQuery(call.query), { kAnonymityThreshold: 5 });
 * ```
 */
export async function queryMetricSeries(
  sql: SqlClient,
  vendorId: string,
  query: MetricQuery,
  options: { kAnonymityThreshold: number; maxSeries?: number },
): Promise<MetricSeriesAnswer> {
  const series: MetricSeries[] = [];
  for (const id of query.ids) {
    const metric = analyticsMetricsById.get(id);
    if (metric === undefined) refuse(`ids: unknown metric "${id.slice(0, 64)}".`);
    series.push(...(await seriesOf(sql, vendorId, metric, query, { kAnonymityThreshold: options.kAnonymityThreshold, maxSeries: options.maxSeries ?? defaultMetricQueryLimits.maxSeries })));
  }
  return { from: query.from, to: query.to, granularity: query.granularity, group_by: query.groupBy, k_anonymity_threshold: options.kAnonymityThreshold, series };
}
