// Public exports of the analytics area: detail events, rollups, sketches, metric queries and exports.
export { HyperLogLog, hllPrecision, hllRelativeStandardError } from './hll';
export { analyticsPseudonymLabel, deriveAnalyticsKeys, analyticsPseudonym, type AnalyticsKeys, type PseudonymKind } from './analytics-keys';
export { isAnalyticsDay, utcDayOf as analyticsDayOf, addDays as addAnalyticsDays, daysBetween as analyticsDaysBetween, bucketStartOf, type MetricGranularity } from './analytics-days';
export { drainAnalyticsOutbox } from './analytics-drain';
export { analyticsPlatformOf, analyticsOperatingSystems, analyticsArchitectures } from './analytics-platform';
export { rollupAnalyticsDay, analyticsRolledUpThrough, analyticsSettledAfterFailures, sessionDurationBuckets, type AnalyticsDayRollup } from './analytics-rollup';
export { analyticsMetricCatalog, analyticsMetricsById, eventDimensions, type MetricDefinition, type MetricDimension, type MetricSource } from './metric-catalog';
export {
  parseMetricQuery,
  queryMetricSeries,
  defaultMetricQueryLimits,
  metricQueryRowCaps,
  type MetricQuery,
  type MetricQueryLimits,
  type MetricPoint,
  type MetricSeries,
  type MetricSeriesAnswer,
} from './metric-query';
export {
  parseAnalyticsExportQuery,
  analyticsExportChunks,
  analyticsExportNextCursor,
  analyticsExportColumns,
  type AnalyticsExportLimits,
  type AnalyticsExportQuery,
} from './analytics-export';
export { exportAnalyticsEvents, analyticsEventErasure, eraseLicenseAnalyticsEvents, type AnalyticsEventExport, type AnalyticsSubject } from './analytics-subject';
export { analyticsOperations, type AnalyticsOperationsOptions } from './analytics-operations';
