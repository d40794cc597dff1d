import { adminOperation, type AdminOperation } from '../admin/admin-operation';
import { analyticsExportChunks, analyticsExportNextCursor, parseAnalyticsExportQuery, type AnalyticsExportLimits } from './analytics-export';
import { hllRelativeStandardError } from './hll';
import { analyticsMetricCatalog } from './metric-catalog';
import { parseMetricQuery, queryMetricSeries, type MetricQueryLimits } from './metric-query';

/** What the analytics Admin operations need. */
export interface AnalyticsOperationsOptions {
  /** Buckets behind fewer distinct devices than this (but at least one) are suppressed. */
  readonly kAnonymityThreshold: number;
  readonly metricLimits: MetricQueryLimits;
  readonly exportLimits: AnalyticsExportLimits;
}

const definitionsBody = Object.freeze({
  metrics: analyticsMetricCatalog.map(({ id, unit, description, aggregation, dimensions }) => ({ id, unit, description, aggregation, dimensions })),
  granularities: ['day', 'week', 'month'],
  distinct_relative_standard_error: Number(hllRelativeStandardError.toFixed(4)),
});

/**
 * The analytics Admin operations (scope `analytics:r`):
 * - `GET /analytics/definitions`: the metric catalog (id, unit, description, aggregation, dimensions) and
 *   the k-anonymity threshold;
 * - `GET /analytics/metrics`: `ids`, `from`, `to`, `granularity`, `group_by` → series (see
 *   `queryMetricSeries`), small buckets suppressed;
 * - `GET /analytics/export`: the raw detail events streamed as NDJSON (`application/x-ndjson`) or CSV
 *   (`text/csv`), at most `limit` rows; header `X-Next-Cursor` names the cursor of the next response when
 *   there is one, and every row carries its `event_id`, so a broken stream resumes with
 *   `cursor=<last event_id received>`.
 *
 * @param options - The threshold and the bounds.
 * @returns The operations.
 * @example
 * ```ts
 * import { analyticsOperations } from '@tollgate/core/license';
 * const operations = analyticsOperations({ kAnonymityThreshold: 5, metricLimits: { maxDays: 400, maxSeries: 500 }, exportLimits: { maxRows: 100_000, maxDays: 92 } });
 * ```
 */
export function analyticsOperations(options: AnalyticsOperationsOptions): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/analytics/definitions',
      docs: { summary: 'Lists the metric definitions and the k-anonymity threshold.' },
      scopes: ['analytics:r'],
      kind: 'read',
      maxBodyBytes: 0,
      run: async () => ({ body: { ...definitionsBody, k_anonymity_threshold: options.kAnonymityThreshold } }),
    }),
    adminOperation({
      method: 'GET',
      path: '/analytics/metrics',
      docs: { summary: 'Queries metric series (metric_id, from, to, granularity, group_by, filters); small groups are suppressed.' },
      scopes: ['analytics:r'],
      kind: 'read',
      maxBodyBytes: 0,
      run: async (call) => {
        const query = parseMetricQuery(call.query, options.metricLimits);
        const answer = await queryMetricSeries(call.sql, call.actor.vendorId, query, { kAnonymityThreshold: options.kAnonymityThreshold, maxSeries: options.metricLimits.maxSeries });
        return { body: { ...answer } };
      },
    }),
    adminOperation({
      method: 'GET',
      path: '/analytics/export',
      docs: { summary: 'Streams raw analytics events as NDJSON (or CSV with format=csv); X-Next-Cursor continues.', responseMediaType: 'application/x-ndjson' },
      scopes: ['analytics:r'],
      kind: 'read',
      maxBodyBytes: 0,
      run: async (call) => {
        const query = parseAnalyticsExportQuery(call.query, options.exportLimits);
        const next = await analyticsExportNextCursor(call.database, call.actor.vendorId, query);
        return {
          stream: analyticsExportChunks(call.database, call.actor.vendorId, query),
          contentType: query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
          headers: {
            'content-disposition': `attachment; filename="analytics-${query.from}-${query.to}.${query.format}"`,
            'x-export-limit': String(query.limit),
            ...(next === null ? {} : { 'x-next-cursor': next }),
          },
        };
      },
    }),
  ];
}
